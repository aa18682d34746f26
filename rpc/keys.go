// keys.go: a batch's stable keys (package resultkey) for the report and the history, and the session's
// map from the random assertion_ids an SDK sends to the assertion keys query_drift answers by.

package rpc

import (
	"errors"
	"fmt"
	"hash/maphash"
	"strings"

	"attest-engine/assert"
	"attest-engine/history"
	"attest-engine/lru"
	"attest-engine/resultkey"
	"attest-engine/simulate"
	"attest-engine/tape"
)

// The keys known by their spec's exact text (keyCache): at most keyCacheEntries and keyCacheBytes,
// specs of at most keyCacheText bytes. An SDK suite sends the same spec text for every case of a
// parametrized test; a hit skips the canonical encoding and the hash.
const (
	keyCacheEntries = 4096
	keyCacheBytes   = 4 << 20
	keyCacheText    = 16 << 10
)

// knownKey is an assertion's key and label, cached by a hash (maphash) of its type, scope and spec
// text, which it holds to tell a collision from a hit.
type knownKey struct {
	typ, agent, text string
	key, label       string
}

func (k knownKey) size() int64 {
	return int64(len(k.typ)+len(k.agent)+len(k.text)+len(k.key)+len(k.label)) + 96
}

func (k knownKey) is(typ, agent string, text []byte) bool {
	return k.typ == typ && k.agent == agent && k.text == string(text)
}

func newKeyCache() *lru.Cache[uint64, knownKey] {
	return lru.NewWeighted[uint64, knownKey](keyCacheEntries, keyCacheBytes, knownKey.size)
}

// keyCacheSeed seeds the cache's hash: a process's own, so that no text can be made to collide.
var keyCacheSeed = maphash.MakeSeed()

func cacheHash(typ, agent string, text []byte) uint64 {
	var h maphash.Hash
	h.SetSeed(keyCacheSeed)
	h.WriteString(typ)
	h.WriteByte(0)
	h.WriteString(agent)
	h.WriteByte(0)
	h.Write(text)
	return h.Sum64()
}

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
	labels    []string
}

// keysOf computes a batch's keys: only when a report or a history keeps them (evaluate.go), never on the
// protocol's path otherwise. The case key is a scenario's when the batch names one, else the trace's
// (agent_id and canonical input); it is computed only for a report, the history keys results by
// assertion alone.
func (s *Server) keysOf(trace, specs tape.Value, list []assert.Assertion, scenario string, repeat int64, hasRepeat bool) *batchKeys {
	k := &batchKeys{keys: make([]string, len(list)), repeat: repeat, hasRepeat: hasRepeat}
	if s.record.on {
		if scenario != "" {
			k.caseKey = resultkey.Scenario(scenario)
		} else {
			in := trace.Get("input")
			k.caseKey, _ = resultkey.Case(trace.Get("agent_id").Str(), in.Any(), in.Exists())
		}
	}
	k.labels = make([]string, len(list))
	// specs is the request's assertions array, one element per assertion of list (assert.Parse reads
	// them in order); its elements' spec text is the cache's key.
	var texts []tape.Value
	if specs.Len() == len(list) {
		texts = make([]tape.Value, 0, len(list))
		for e := range specs.Elems() {
			texts = append(texts, e.Get("spec"))
		}
	}
	for i := range list {
		a := &list[i]
		var text []byte
		var hash uint64
		if texts != nil && texts[i].Exists() && len(texts[i].Text()) <= keyCacheText {
			text = texts[i].Text()
			hash = cacheHash(a.Type, a.AgentID, text)
			if kk, ok := s.keyCache.Get(hash); ok && kk.is(a.Type, a.AgentID, text) {
				k.keys[i], k.labels[i] = kk.key, kk.label
				continue
			}
		}
		c, err := simulate.Canonical(a.Spec)
		if err != nil {
			continue
		}
		kk := knownKey{key: resultkey.AssertionOf(a.Type, c, a.AgentID, ""), label: resultkey.Label(a.Type, c, "")}
		if text != nil {
			kk.typ, kk.agent, kk.text = a.Type, a.AgentID, string(text)
			s.keyCache.Put(hash, kk)
		}
		k.keys[i], k.labels[i] = kk.key, kk.label
	}
	if s.ids != nil {
		for i := range list {
			if k.keys[i] != "" {
				s.ids.Put(list[i].ID, k.keys[i])
			}
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
