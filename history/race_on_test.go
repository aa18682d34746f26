//go:build race

package history

// raceOn: built with -race. The long single-goroutine simulations skip
// under it: the race detector finds nothing there and slows them tenfold.
const raceOn = true
