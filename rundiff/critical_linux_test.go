// critical_linux_test.go: the CPU time on diff's critical path, each phase's own thread's, so that the
// wall time of an idle machine can be read off a busy one.

package rundiff

import (
	"os"
	"path/filepath"
	"runtime"
	"syscall"
	"testing"
	"time"
)

// threadCPU is the calling thread's CPU time so far (getrusage RUSAGE_THREAD); it panics if the kernel
// has none to give, which Linux always has.
func threadCPU() time.Duration {
	const rusageThread = 1
	var ru syscall.Rusage
	if err := syscall.Getrusage(rusageThread, &ru); err != nil {
		panic(err)
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// TestDiffCriticalPath logs the CPU time of each phase of Compare on the runs in ATTEST_DIFF_LARGE_DIR
// (written by TestWriteLargeRuns; skipped without it), each on a thread of its own: the two runs' reads,
// which run at once, then pairing, the tests and naming the results with no pair. The longer read plus
// the rest is the wall time on a machine with two idle cores; on a shared one the wall time is longer,
// the CPU time about the same. A measurement, not a check: it fails only on an error.
//
//	ATTEST_DIFF_LARGE_DIR=/tmp/runs go test ./rundiff -run DiffCriticalPath -v
func TestDiffCriticalPath(t *testing.T) {
	dir := os.Getenv("ATTEST_DIFF_LARGE_DIR")
	if dir == "" {
		t.Skip("ATTEST_DIFF_LARGE_DIR not set: the runs TestWriteLargeRuns wrote there")
	}
	bp, hp := filepath.Join(dir, "base.json"), filepath.Join(dir, "head.json")
	for range 3 {
		var head *run
		var headCPU time.Duration
		var headErr error
		done := make(chan struct{})
		go func() {
			defer close(done)
			runtime.LockOSThread()
			defer runtime.UnlockOSThread()
			start := threadCPU()
			head, headErr = load(hp)
			headCPU = threadCPU() - start
		}()
		runtime.LockOSThread()
		start := threadCPU()
		base, err := load(bp)
		baseCPU := threadCPU() - start
		<-done
		if err != nil || headErr != nil {
			t.Fatal(err, headErr)
		}
		start = threadCPU()
		p := pairRuns(base, head)
		pairCPU := threadCPU() - start
		start = threadCPU()
		decide(p, Options{Alpha: 0.05, Detectable: 0.1, Seed: 1})
		decideCPU := threadCPU() - start
		start = threadCPU()
		if _, err := unpaired(base.src, p.onlyBase); err != nil {
			t.Fatal(err)
		}
		if _, err := unpaired(head.src, p.onlyHead); err != nil {
			t.Fatal(err)
		}
		unpairedCPU := threadCPU() - start
		runtime.UnlockOSThread()
		t.Logf("read base %v, head %v (at once); pair %v, tests %v, unpaired named %v: critical path %v",
			baseCPU.Round(time.Millisecond), headCPU.Round(time.Millisecond), pairCPU.Round(time.Millisecond),
			decideCPU.Round(time.Millisecond), unpairedCPU.Round(time.Millisecond),
			(max(baseCPU, headCPU) + pairCPU + decideCPU + unpairedCPU).Round(time.Millisecond))
	}
}
