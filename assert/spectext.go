// spectext.go: assertion specs kept by their exact text, so that a spec sent again is neither decoded nor compiled again.

package assert

import (
	"reflect"
	"sync"
	"sync/atomic"
	"unsafe"
)

// SDKs send a suite's assertions with every trace, each with a fresh
// assertion_id (../shared/sdk-compat.md): the ids change, the spec objects
// do not, byte for byte. The engine keeps the specs of recent requests by
// their exact text. A spec whose text is known is taken as the very value
// decoded from it before (KnownSpec, as rpc reads a request's tape), and
// that value finds its compiled checks by identity, without walking it
// (prepare). A spec is found only by its whole exact text: other white space
// or member order is decoded, hashed and compared as before.
//
// Bounds: specTextEntries texts of at most specTextMax bytes each.
const (
	specTextEntries = 1024
	specTextMax     = 4 << 10
)

// specText is one known spec: its text, the value decoded from it (shared
// read-only by every request that sends the text), and the checks compiled
// from it, one per assertion type it was sent with.
type specText struct {
	text   string
	spec   map[string]any
	checks []typedCheck // under specTexts.mu
	// used is set when the text is found, and cleared as the eviction
	// hand passes it (RememberSpec): a second chance.
	used atomic.Bool
}

type typedCheck struct {
	typ string
	chk check
}

// specTexts is a bounded set of specs, found by text or by value identity.
// Finding one takes the read lock and writes nothing shared but, once per
// pass of the eviction hand, its used bit: pipelined requests on several
// threads look up every spec of every batch, and a least-recently-used
// list (each hit moved to the front under an exclusive lock) had them
// queue for the lock and pass its memory from core to core. Eviction is
// the clock's second chance instead: the hand skips (and clears) texts
// found since it last passed, and evicts the first one that was not.
type specTexts struct {
	mu      sync.RWMutex
	ring    []*specText // at most specTextEntries, in order of arrival until full
	hand    int         // the next candidate for eviction, once ring is full
	byText  map[string]*specText
	byValue map[unsafe.Pointer]*specText // the entry's spec map: it keeps the map alive, so no other map has its address
}

func (st *specTexts) init() {
	st.byText = make(map[string]*specText)
	st.byValue = make(map[unsafe.Pointer]*specText)
}

func identity(m map[string]any) unsafe.Pointer { return reflect.ValueOf(m).UnsafePointer() }

// KnownSpec returns the value RememberSpec was given with text, the exact
// text of one whole spec object (a tape value's Text, as rpc reads
// params.assertions). The value is shared: no one may modify it.
func (e *Engine) KnownSpec(text []byte) (map[string]any, bool) {
	var out [1]map[string]any
	e.LookupSpecs([][]byte{text}, out[:])
	return out[0], out[0] != nil
}

// LookupSpecs is KnownSpec for a request's spec texts at once (one read
// lock): specs[i] is the value known for texts[i], or nil.
func (e *Engine) LookupSpecs(texts [][]byte, specs []map[string]any) {
	st := &e.specs
	st.mu.RLock()
	defer st.mu.RUnlock()
	for i, text := range texts {
		specs[i] = nil
		if len(text) > specTextMax {
			continue
		}
		ent, ok := st.byText[string(text)]
		if !ok {
			continue
		}
		if !ent.used.Load() {
			ent.used.Store(true)
		}
		specs[i] = ent.spec
	}
}

// RememberSpec keeps a copy of text, the exact text of an assertion spec
// object in a request, which decoded (at the depth where KnownSpec is
// read, whole and with no duplicate member names) to v.
func (e *Engine) RememberSpec(text []byte, v map[string]any) {
	if len(text) > specTextMax || v == nil {
		return
	}
	st := &e.specs
	st.mu.Lock()
	defer st.mu.Unlock()
	if _, ok := st.byText[string(text)]; ok {
		return // two requests with the same new text decoded at once
	}
	if _, ok := st.byValue[identity(v)]; ok {
		return
	}
	ent := &specText{text: string(text), spec: v}
	if len(st.ring) < specTextEntries {
		st.ring = append(st.ring, ent)
	} else {
		// Terminates: the hand clears what it skips, so a second pass
		// evicts.
		for st.ring[st.hand].used.Load() {
			st.ring[st.hand].used.Store(false)
			st.hand = (st.hand + 1) % len(st.ring)
		}
		old := st.ring[st.hand]
		delete(st.byText, old.text)
		delete(st.byValue, identity(old.spec))
		st.ring[st.hand] = ent
		st.hand = (st.hand + 1) % len(st.ring)
	}
	st.byText[ent.text], st.byValue[identity(v)] = ent, ent
}

// knownChecks sets, for each of a batch's pending assertions whose spec is
// a value KnownSpec handed out, known, and chk to the check compiled for
// its type when there is one: under one read lock for the whole batch.
func (st *specTexts) knownChecks(pending []prepared) {
	st.mu.RLock()
	defer st.mu.RUnlock()
	for i := range pending {
		p := &pending[i]
		ent, ok := st.byValue[identity(p.a.Spec)]
		if !ok {
			continue
		}
		p.known = true
		for _, c := range ent.checks {
			if c.typ == p.a.Type {
				p.chk = c.chk
				break
			}
		}
	}
}

// addCheck records chk, compiled from spec (a known value) for type typ.
func (st *specTexts) addCheck(spec map[string]any, typ string, chk check) {
	st.mu.Lock()
	defer st.mu.Unlock()
	ent, ok := st.byValue[identity(spec)]
	if !ok || len(ent.checks) >= len(compilers) {
		return
	}
	for _, c := range ent.checks {
		if c.typ == typ {
			return
		}
	}
	ent.checks = append(ent.checks, typedCheck{typ, chk})
}

// KnownSpecs is the number of specs kept by their text (for tests).
func (e *Engine) KnownSpecs() int {
	e.specs.mu.RLock()
	defer e.specs.mu.RUnlock()
	return len(e.specs.ring)
}
