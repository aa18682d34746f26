// race_on_test.go: raceDetector is true in a -race build (see race_off_test.go).

//go:build race

package history

// raceDetector: the race detector slows single-goroutine work tenfold and
// changes allocation counts, so the tests that generate and open hostile
// dirs of tens of MiB, and count what they allocate, skip under it; they
// run in the plain `go test ./...`.
const raceDetector = true
