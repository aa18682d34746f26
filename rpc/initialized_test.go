// initialized_test.go: Options.Initialized runs once, after the initialize answer and before the next line.

package rpc

import (
	"context"
	"strings"
	"sync"
	"testing"
)

// lockedBuilder is the server's stdout, read by the hook while the read
// loop writes.
type lockedBuilder struct {
	mu sync.Mutex
	b  strings.Builder
}

func (w *lockedBuilder) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.b.Write(p)
}

func (w *lockedBuilder) String() string {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.b.String()
}

// TestInitialized: the hook (the server command installs its signal
// handlers there) runs once the initialize answer is written, compatible
// or not, and before the next line is answered; a session that never
// initializes never runs it. Without the call in initialize, or with it
// before the reply, the answers seen by the hook are wrong.
func TestInitialized(t *testing.T) {
	const (
		init   = `{"jsonrpc":"2.0","id":"i","method":"initialize","params":{"sdk_name":"t","sdk_version":"0","protocol_version":1,"required_capabilities":[],"preferred_encoding":"json"}}`
		incomp = `{"jsonrpc":"2.0","id":"i","method":"initialize","params":{"sdk_name":"t","sdk_version":"0","protocol_version":1,"required_capabilities":["teleport"],"preferred_encoding":"json"}}`
		badver = `{"jsonrpc":"2.0","id":"v","method":"initialize","params":{"sdk_name":"t","sdk_version":"0","protocol_version":99,"required_capabilities":[],"preferred_encoding":"json"}}`
		drift  = `{"jsonrpc":"2.0","id":"d","method":"query_drift","params":{}}`
		bye    = `{"jsonrpc":"2.0","id":"s","method":"shutdown"}`
	)
	tests := []struct {
		name   string
		lines  []string
		calls  int
		before []string // ids answered when the hook ran
		reason string
	}{
		{"initialize", []string{init, drift, bye}, 1, []string{`"i"`}, "after the answer, before the next line"},
		{"incompatible", []string{incomp, drift}, 1, []string{`"i"`}, "an incompatible session is initialized too"},
		{"refused first", []string{drift, badver, init, drift}, 1, []string{`"d"`, `"v"`, `"i"`}, "requests refused before initialize do not run it; a failed initialize neither"},
		{"never", []string{drift, bye}, 0, nil, "no initialize, no hook"},
		{"twice", []string{init, init, drift}, 1, []string{`"i"`}, "a second initialize is refused and runs nothing"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var out lockedBuilder
			calls := 0
			var before []string
			s := New(Options{Initialized: func() {
				calls++
				before = answeredIDs(out.String())
			}})
			within(t, "Serve", func() {
				s.Serve(context.Background(), strings.NewReader(strings.Join(tc.lines, "\n")+"\n"), &out)
			})
			if calls != tc.calls {
				t.Fatalf("%s: the hook ran %d times, want %d", tc.reason, calls, tc.calls)
			}
			if strings.Join(before, " ") != strings.Join(tc.before, " ") {
				t.Errorf("%s: answered when the hook ran: %v, want %v", tc.reason, before, tc.before)
			}
		})
	}
}

// answeredIDs are the ids of the answers in out, in order.
func answeredIDs(out string) []string {
	var ids []string
	for _, l := range strings.Split(out, "\n") {
		if _, rest, ok := strings.Cut(l, `"id":`); ok {
			id, _, _ := strings.Cut(rest, `,`)
			ids = append(ids, id)
		}
	}
	return ids
}
