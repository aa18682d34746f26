// race_off_test.go: whether the race detector is on (it slows the code it checks ~10×).

//go:build !race

package history

const raceEnabled = false
