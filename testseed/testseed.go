// testseed.go: the seed of a test, read from its environment variable.

package testseed

import (
	"os"
	"strconv"
	"testing"
)

// Uint64 is the whole number in the environment variable name, or def
// when it is unset or empty. A value that is not a whole number fails the
// test at once, naming the variable. The seed is logged with its variable.
func Uint64(t testing.TB, name string, def uint64) uint64 {
	t.Helper()
	seed := def
	if v := os.Getenv(name); v != "" {
		n, err := strconv.ParseUint(v, 10, 64)
		if err != nil {
			t.Fatalf("%s=%q: want a whole number", name, v)
		}
		seed = n
	}
	t.Logf("seed %d (%s)", seed, name)
	return seed
}
