package rpc

import (
	"context"
	"errors"
	"testing"
	"time"
)

// TestDeadline: the timerless deadline answers as context.WithTimeout does:
// no error before its time, DeadlineExceeded after, a Done that closes at
// its time, and a context derived from it that ends with it.
func TestDeadline(t *testing.T) {
	d := newDeadline(50 * time.Millisecond)
	defer d.stop()
	if err := d.Err(); err != nil {
		t.Fatalf("Err before the deadline: %v", err)
	}
	at, ok := d.Deadline()
	if !ok || time.Until(at) <= 0 {
		t.Fatalf("Deadline() = %v, %v", at, ok)
	}
	child, cancel := context.WithCancel(d) // asks for Done
	defer cancel()
	select {
	case <-child.Done():
		// On a loaded machine the 10 ms wait may outlast the deadline: only
		// a Done seen before the deadline's time is wrong.
		if now := time.Now(); now.Before(at) {
			t.Fatalf("derived context done %v before the deadline", at.Sub(now))
		}
	case <-time.After(10 * time.Millisecond):
	}
	for _, c := range []context.Context{d, child} { // the derived one ends right after
		select {
		case <-c.Done():
		case <-time.After(5 * time.Second):
			t.Fatal("Done not closed after the deadline")
		}
	}
	if !errors.Is(d.Err(), context.DeadlineExceeded) || !errors.Is(child.Err(), context.DeadlineExceeded) {
		t.Fatalf("after the deadline: Err %v, derived %v; want DeadlineExceeded", d.Err(), child.Err())
	}

	// Never asked for Done: the clock alone decides, and no timer is made.
	past := newDeadline(-time.Second)
	if !errors.Is(past.Err(), context.DeadlineExceeded) || past.timer.Load() != nil {
		t.Fatalf("a past deadline: Err %v, timer %v", past.Err(), past.timer.Load())
	}
	select {
	case <-past.Done(): // made now, already closed
	case <-time.After(5 * time.Second):
		t.Fatal("Done of a past deadline not closed")
	}
	past.stop()
}
