// repeats.go: a warning that recurs batch after batch is logged once per session, with its count at the end.

package rpc

import (
	"log/slog"
	"sync"
)

// maxRepeatKinds bounds the distinct warnings a session remembers: their
// text can come from a trace (an unknown step type's name).
const maxRepeatKinds = 64

// repeats counts the warnings of a session by their text. The first
// occurrence of each is logged at once; at the end of the session (Serve
// returns, whichever way) one line per warning seen more than once gives its
// count. Warnings beyond maxRepeatKinds distinct texts are only counted.
type repeats struct {
	mu     sync.Mutex
	counts map[string]int64
	order  []string // first-seen order, for the summary
	other  int64    // occurrences of texts beyond maxRepeatKinds
}

// warn logs msg the first time this session sees it, and counts it.
func (r *repeats) warn(log *slog.Logger, msg, traceID string) {
	r.mu.Lock()
	n, seen := r.counts[msg]
	first := false
	switch {
	case seen:
		r.counts[msg] = n + 1
	case len(r.order) >= maxRepeatKinds:
		r.other++
	default:
		if r.counts == nil {
			r.counts = map[string]int64{}
		}
		r.counts[msg] = 1
		r.order = append(r.order, msg)
		first = true
	}
	r.mu.Unlock()
	if first {
		log.Warn(msg, "trace_id", traceID, "repeats", "logged once per session; the count is logged when the session ends")
	}
}

// summarize logs the count of every warning seen more than once.
func (r *repeats) summarize(log *slog.Logger) {
	r.mu.Lock()
	defer r.mu.Unlock()
	for _, msg := range r.order {
		if n := r.counts[msg]; n > 1 {
			log.Warn(msg, "occurrences", n)
		}
	}
	if r.other > 0 {
		log.Warn("further warnings not logged: more than 64 distinct warnings this session", "occurrences", r.other)
	}
}
