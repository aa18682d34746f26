// watchdog_test.go: how long a concurrency test waits before it fails with a message, not a hang.

package rpc

import (
	"testing"
	"time"
)

// watchdog bounds every wait of a concurrency test: a regression that
// would hang (a lost wake-up, a leaked slot) fails in seconds, saying what
// it waited for, instead of at the test binary's timeout.
const watchdog = 10 * time.Second

// within runs f on a goroutine and fails the test, naming what, if f has
// not returned within watchdog. f must not call t.Fatal.
func within(t *testing.T, what string, f func()) {
	t.Helper()
	done := make(chan struct{})
	go func() {
		defer close(done)
		f()
	}()
	select {
	case <-done:
	case <-time.After(watchdog):
		t.Fatalf("%s: still waiting after %v", what, watchdog)
	}
}
