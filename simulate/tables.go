// tables.go: parsed rule tables kept by their canonical text, and the merge of a request's tables with
// the config's (docs/simulation.md: "the request wins").

package simulate

import (
	"crypto/sha256"

	"attest-engine/lru"
)

// Tables keeps the last parsed rule tables by their canonical text: SDKs send a scenario's rules with
// every call, and a table's schemas and paths are compiled once. Safe for concurrent use.
type Tables struct {
	cache *lru.Cache[[32]byte, *Table]
}

// NewTables keeps at most n tables.
func NewTables(n int) *Tables { return &Tables{cache: lru.New[[32]byte, *Table](n)} }

// For returns the rules of a call: the request's mocks and faults where it sends them (has*), the
// base table's (the config's; nil for none) where it does not.
func (ts *Tables) For(base *Table, mocks any, hasMocks bool, faults any, hasFaults bool) (*Table, error) {
	if base == nil {
		base = &Table{}
	}
	if !hasMocks && !hasFaults {
		return base, nil
	}
	h := sha256.New()
	for _, part := range []struct {
		field string
		has   bool
		v     any
	}{{"mocks", hasMocks, mocks}, {"faults", hasFaults, faults}} {
		if !part.has {
			h.Write([]byte{0})
			continue
		}
		c, err := Canonical(part.v)
		if err != nil {
			return nil, &CallError{Field: part.field, Msg: err.Error()}
		}
		h.Write([]byte{1})
		h.Write(c)
		h.Write([]byte{0})
	}
	var key [32]byte
	h.Sum(key[:0])
	if t, ok := ts.cache.Get(key); ok {
		return t, nil
	}
	var mv, fv any
	if hasMocks {
		mv = mocks
	}
	if hasFaults {
		fv = faults
	}
	t, err := ParseTable(mv, fv)
	if err != nil {
		return nil, err
	}
	if !hasMocks {
		t.Mocks = base.Mocks
	}
	if !hasFaults {
		t.Faults = base.Faults
	}
	ts.cache.Put(key, t)
	return t, nil
}
