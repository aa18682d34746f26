// simorder.go: a scenario's mock calls and ledger reads taken in the order their lines were read.

package rpc

import (
	"context"
	"sync"
)

// simOrder hands each mock_tool_call and simulation_ledger request of a scenario a turn in the read loop,
// in the order the lines were read, and has the workers take their turns in that order. Occurrences are
// given out, and ledgers read, in read order whatever the scheduling: a client that pipelines gets the
// answers a client that waits for each answer gets. Only the decision waits its turn; a mock's latency
// ("sleep": true) is waited after the turn is passed on, so a slow call holds up no other.
//
// A turn waits only for turns of its scenario taken before it, which are held by requests already
// dispatched (each holds a slot, spec §1.5), so the chain always moves. The map holds a scenario only
// while one of its turns is outstanding: at most MaxInFlight entries.
type simOrder struct {
	mu   sync.Mutex
	last map[string]*simTurn // the latest turn handed out per scenario
}

// simTurn is one request's place in its scenario's order.
type simTurn struct {
	o        *simOrder
	scenario string
	prev     <-chan struct{} // closed when every earlier turn of the scenario has passed; nil for the first
	done     chan struct{}   // closed when this turn has passed
	once     sync.Once
}

// take hands out the next turn of scenario (the read loop calls it, in read order).
func (o *simOrder) take(scenario string) *simTurn {
	t := &simTurn{o: o, scenario: scenario, done: make(chan struct{})}
	o.mu.Lock()
	if o.last == nil {
		o.last = map[string]*simTurn{}
	}
	if p := o.last[scenario]; p != nil {
		t.prev = p.done
	}
	o.last[scenario] = t
	o.mu.Unlock()
	return t
}

// wait blocks until every earlier turn of the scenario has passed, or ctx ends.
func (t *simTurn) wait(ctx context.Context) error {
	if t == nil || t.prev == nil {
		return nil
	}
	select {
	case <-t.prev:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// finish passes the turn on once every earlier turn has passed (at once when they have, else from a
// goroutine that waits for them: a request that ends without its decision, an invalid one or one whose
// deadline passed while it waited, must not let a later turn overtake an earlier one). Calling it again
// does nothing; nil is a request without a turn.
func (t *simTurn) finish() {
	if t == nil {
		return
	}
	t.once.Do(func() {
		if t.prev != nil {
			select {
			case <-t.prev:
			default:
				go func() {
					<-t.prev
					t.pass()
				}()
				return
			}
		}
		t.pass()
	})
}

func (t *simTurn) pass() {
	t.o.mu.Lock()
	if t.o.last[t.scenario] == t {
		delete(t.o.last, t.scenario)
	}
	t.o.mu.Unlock()
	close(t.done)
}
