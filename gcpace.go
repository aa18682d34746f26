// gcpace.go: garbage-collector pacing for a process whose live heap is usually a few hundred KB.

package main

import (
	"os"
	"runtime"
	"runtime/debug"
	"sync"
)

// minHeadroom is how far the heap may grow past the live heap before the next
// collection, at the least.
//
// The Go collector's default (GOGC=100) starts a cycle whenever the heap
// doubles, with a 4 MB floor. Between requests the engine holds well under
// 1 MB, so at the default a pipelined stream of small batches runs a cycle
// every few milliseconds, and each cycle stops and signals every thread:
// about a third of the engine's CPU goes to collecting
// (docs/performance.md). With at least minHeadroom of room the same stream
// collects a few times a second. Once the
// live heap is larger than minHeadroom (a 10 MB trace being evaluated) the
// usual doubling applies unchanged, so peak memory for large traces does not
// grow: the extra room is a fixed 16 MB, never a multiple of the input.
const minHeadroom = 16 << 20

// gcPercentFor is the GOGC value that gives minHeadroom of room above a scan
// base (live heap and stacks) of base bytes, and never less than
// the default 100. The runtime's heap floor is 4 MB × GOGC/100, so for a base
// under 4 MB the value 400 already sets a 16 MB floor; a higher one would
// raise the floor past minHeadroom.
func gcPercentFor(base uint64) int {
	const floor = 4 << 20 // the runtime's heap minimum at GOGC=100
	const maxPercent = minHeadroom * 100 / floor
	if base <= floor {
		return maxPercent
	}
	return int(max(minHeadroom*100/base, 100))
}

// paceGC re-targets the collector after every cycle from the live heap that
// cycle measured. An operator's explicit GOGC in the environment wins, and
// the pacing is then off.
func paceGC() {
	if _, set := os.LookupEnv("GOGC"); set {
		return
	}
	// Start where the pacing settles for a near-empty heap.
	last := gcPercentFor(0)
	debug.SetGCPercent(last)
	var (
		mu sync.Mutex // Go may run cleanups in parallel; only one of ours is pending at a time, and mu makes that plain
		ms runtime.MemStats
	)
	var arm func()
	arm = func() {
		// The sentinel is unreachable at once, so the next cycle finds it
		// and runs the cleanup: once per cycle, on a runtime cleanup
		// goroutine. It holds a pointer so that it is not a tiny object,
		// whose cleanup could wait for its neighbours.
		runtime.AddCleanup(&sentinel{}, func(struct{}) {
			// The cycle's goal is its scan base (the heap it found live,
			// plus stacks and globals) grown by GOGC percent, or the
			// runtime's floor when that is larger: so the base is read back
			// from the goal. (The allocated heap would overstate it by
			// whatever was allocated since the cycle; ReadMemStats stops the
			// world briefly, once per cycle, where runtime/metrics would
			// cost 0.4 ms of start-up to initialize.)
			mu.Lock()
			runtime.ReadMemStats(&ms)
			if p := gcPercentFor(ms.NextGC * 100 / uint64(100+last)); p != last {
				debug.SetGCPercent(p)
				last = p
			}
			mu.Unlock()
			arm()
		}, struct{}{})
	}
	arm()
}

type sentinel struct {
	_ *byte
	_ [2]uintptr
}
