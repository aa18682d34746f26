// race_off_test.go: raceDetector is false without -race (see race_on_test.go).

//go:build !race

package ingest

const raceDetector = false
