// gcpace_test.go: the collector's pacing keeps a fixed headroom for small heaps and the default for large ones.

package main

import "testing"

func TestGCPercentFor(t *testing.T) {
	const mb = 1 << 20
	tests := []struct {
		base uint64
		want int
	}{
		{0, 400},       // nothing live yet: the runtime's 4 MB floor becomes 16 MB
		{1 * mb, 400},  // a small heap: the floor still dominates
		{4 * mb, 400},  // goal 20 MB
		{8 * mb, 200},  // goal 24 MB: 16 MB of room
		{16 * mb, 100}, // from here on, the default doubling
		{40 * mb, 100}, // a 10 MB trace being evaluated: never less than the default
	}
	for _, tc := range tests {
		if got := gcPercentFor(tc.base); got != tc.want {
			t.Errorf("gcPercentFor(%d MB) = %d, want %d", tc.base/mb, got, tc.want)
		}
	}
}
