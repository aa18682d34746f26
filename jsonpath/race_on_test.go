// race_on_test.go: raceDetector is true in a -race build (see race_off_test.go).

//go:build race

package jsonpath

// raceDetector: the race detector changes allocation counts (instrumented
// code allocates), so tests that count allocations skip under it; they run
// in the plain `go test ./...`.
const raceDetector = true
