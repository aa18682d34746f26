// race_off_test.go: raceDetector is false outside a -race build (see race_on_test.go).

//go:build !race

package history

const raceDetector = false
