// keys.go: a batch's stable keys (package resultkey) for the report and the history, and the session's
// map from the random assertion_ids an SDK sends to the assertion keys query_drift answers by.

package rpc

import (
	"errors"
	"fmt"
	"strings"

	"attest-engine/assert"
	"attest-engine/history"
	"attest-engine/lru"
	"attest-engine/resultkey"
	"attest-engine/simulate"
	"attest-engine/tape"
)

// maxSessionIDs bounds the session's assertion_id → assertion key map (about 200 bytes an entry: ~13 MiB);
// the least recently recorded ids are forgotten first. query_drift for a forgotten id answers as for one
// never seen, unless it is asked by its key.
const maxSessionIDs = 1 << 16

// batchKeys are one batch's keys: the case's, and one assertion key and label per assertion ("" where
// the spec has no canonical text: the record then falls back to the assertion_id).
type batchKeys struct {
	caseKey   string
	repeat    int64
	hasRepeat bool
	keys      []string
	labels    []string // only for the history
}

// keysOf computes a batch's keys: only when a report or a history keeps them (evaluate.go), never on the
// protocol's path otherwise. The case key is a scenario's when the batch names one, else the trace's
// (agent_id and canonical input); it is computed only for a report, the history keys results by
// assertion alone.
func (s *Server) keysOf(trace tape.Value, list []assert.Assertion, scenario string, repeat int64, hasRepeat bool) *batchKeys {
	k := &batchKeys{keys: make([]string, len(list)), repeat: repeat, hasRepeat: hasRepeat}
	if s.record.on {
		if scenario != "" {
			k.caseKey = resultkey.Scenario(scenario)
		} else {
			in := trace.Get("input")
			k.caseKey, _ = resultkey.Case(trace.Get("agent_id").Str(), in.Any(), in.Exists())
		}
	}
	if s.history != nil {
		k.labels = make([]string, len(list))
	}
	for i := range list {
		a := &list[i]
		c, err := simulate.Canonical(a.Spec)
		if err != nil {
			continue
		}
		k.keys[i] = resultkey.AssertionOf(a.Type, c, a.AgentID, "")
		if k.labels != nil {
			k.labels[i] = resultkey.Label(a.Type, c, "")
			s.ids.Put(a.ID, k.keys[i])
		}
	}
	return k
}

// historyKey is the key query_drift reads for what the client asked by: the assertion key of an
// assertion_id this session recorded, else the key the text names (a key, or the label of one: a watch
// suite's assertion name; history.Store.Lookup), else the text itself.
func (s *Server) historyKey(id string) string {
	if k, ok := s.ids.Get(id); ok {
		return k
	}
	if k, ok := s.history.Lookup(id); ok {
		return k
	}
	return id
}

// newSessionIDs is the map, made only with a history.
func newSessionIDs() *lru.Cache[string, string] { return lru.New[string, string](maxSessionIDs) }

// Thresholds is the engine's "threshold": "dynamic" learned from store, by assertion key: too few earlier
// results is assert.ErrTooFewResults (the check is judged against its default threshold while its own
// results fill the history), any other failure an ASSERTION_ERROR.
func Thresholds(store *history.Store) assert.Thresholds {
	return func(key string) (float64, string, error) {
		thr, why, err := store.Threshold(key)
		if errors.Is(err, history.ErrNoHistory) {
			err = fmt.Errorf("%w: %s", assert.ErrTooFewResults, strings.TrimPrefix(err.Error(), history.ErrNoHistory.Error()+": "))
		}
		return thr, why, err
	}
}
