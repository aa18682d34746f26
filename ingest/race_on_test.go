// race_on_test.go: raceDetector is true in a -race build (see race_off_test.go).

//go:build race

package ingest

// raceDetector: the race detector changes allocation counts (sync.Pool drops
// items at random, instrumented code allocates), so checks that count
// allocations are left out under it; they run in the plain `go test ./...`.
const raceDetector = true
