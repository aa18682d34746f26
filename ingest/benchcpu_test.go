// benchcpu_test.go: the CPU time a benchmark takes per operation, beside its wall clock: steadier on a shared machine.

package ingest

import (
	"syscall"
	"testing"
)

// benchCPU is the process's CPU time so far, user and system, all threads
// (the collector's included), in nanoseconds.
func benchCPU() int64 {
	var ru syscall.Rusage
	syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return ru.Utime.Nano() + ru.Stime.Nano()
}

// reportCPU reports cpu-ns/op from start (benchCPU) for b.N operations.
func reportCPU(b *testing.B, start int64) {
	b.ReportMetric(float64(benchCPU()-start)/float64(b.N), "cpu-ns/op")
}
