//go:build unix

// cpu_unix_test.go: the process's CPU time, for benchmarks on a shared machine.

package rpc

import "syscall"

// cpuTime is the CPU time this process has used so far (every thread, the
// garbage collector's included), in nanoseconds.
func cpuTime() int64 {
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) != nil {
		return 0
	}
	return ru.Utime.Nano() + ru.Stime.Nano()
}
