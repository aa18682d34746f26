// scenario.go: the Simulator: scenario state (occurrence counts, the ledger) and answering one call.

package simulate

import (
	"crypto/sha256"
	"fmt"
	"sync"
)

// Bounds of the state a session keeps.
const (
	MaxScenarios   = 4096      // scenarios per Simulator
	MaxCalls       = 100_000   // calls recorded per scenario
	MaxLedgerBytes = 64 << 20  // what the ledgers keep, all scenarios together (entryBytes)
	MaxIDText      = 256       // bytes of a scenario id, a seed's text or a tool name
	MaxAttempt     = 1_000_000 // an SDK's attempt number
	maxWarned      = 4096      // overlap pairs remembered so each is reported once
)

// entryBytes is what a recorded call keeps besides its texts (its tool name, canonical args and fault):
// the Entry in its scenario's ledger (128 bytes, twice over while the slice grows), its occurrence count
// (a 40-byte map slot, at most twice over), and the size-class rounding of the texts' allocations.
// TestLedgerHoldsWhatItCounts checks that the heap a session's calls retain stays within what is counted.
const entryBytes = 448

// CallError is a call that cannot be answered as sent (a missing or wrong parameter).
type CallError struct{ Field, Msg string }

func (e *CallError) Error() string { return e.Field + ": " + e.Msg }

// LimitError is a call refused because the session's simulation state is full.
type LimitError struct{ Msg string }

func (e *LimitError) Error() string { return e.Msg }

// Call is one mock_tool_call.
type Call struct {
	ScenarioID string
	Seed       string // the seed's text (SeedText)
	Tool       string
	Args       any // an object
	Attempt    int // 0 when the SDK sent none: the occurrence is used
}

// Answer is the outcome of one call.
type Answer struct {
	RuleID     string
	Occurrence int
	Attempt    int
	Fault      map[string]any // nil when no fault fired
	Result     any
	Error      any
	HasError   bool
	LatencyMS  int
	Warnings   []string // overlaps first seen on this call
}

// Wire is the answer as the protocol sends it: {rule_id, occurrence, attempt, fault, result | error,
// latency_ms} and warnings when there are any.
func (a *Answer) Wire() map[string]any {
	m := map[string]any{
		"rule_id": a.RuleID, "occurrence": a.Occurrence, "attempt": a.Attempt,
		"fault": nil, "latency_ms": a.LatencyMS,
	}
	if a.Fault != nil {
		m["fault"] = a.Fault
	}
	if a.HasError {
		m["error"] = a.Error
	} else {
		m["result"] = a.Result
	}
	if len(a.Warnings) > 0 {
		w := make([]any, len(a.Warnings))
		for i, s := range a.Warnings {
			w[i] = s
		}
		m["warnings"] = w
	}
	return m
}

// Entry is one decision in a scenario's ledger. Args and Fault are kept as canonical text, not as the
// decoded values of the request: a ledger holds what it counts against MaxLedgerBytes.
type Entry struct {
	Seq        int // 1, 2, … in the order occurrences were given out
	Tool       string
	Args       Text
	Occurrence int
	Attempt    int
	RuleID     string
	Fault      Text   // the answer's fault member; nil when no fault fired
	Outcome    string // "result" or "error"
	LatencyMS  int
}

// Wire is the entry as simulation_ledger sends it.
func (e *Entry) Wire() map[string]any {
	m := map[string]any{
		"seq": e.Seq, "tool": e.Tool, "args": e.Args, "occurrence": e.Occurrence, "attempt": e.Attempt,
		"rule_id": e.RuleID, "fault": nil, "outcome": e.Outcome, "latency_ms": e.LatencyMS,
	}
	if e.Fault != nil {
		m["fault"] = e.Fault
	}
	return m
}

// Simulator holds the state of every scenario of a session. It is safe for concurrent use.
type Simulator struct {
	mu          sync.Mutex
	scenarios   map[string]*scenario
	warned      map[[2]string]bool
	ledgerBytes int
}

type scenario struct {
	counts map[[32]byte]int // SHA-256 of tool and canonical args → calls so far
	ledger []Entry
}

// New returns an empty Simulator.
func New() *Simulator {
	return &Simulator{scenarios: map[string]*scenario{}, warned: map[[2]string]bool{}}
}

func checkText(field, s string) error {
	if s == "" || len(s) > MaxIDText {
		return &CallError{field, fmt.Sprintf("must be a string of 1 to %d bytes", MaxIDText)}
	}
	return nil
}

// Call answers c from table t: the first mock in declared order that matches, then the first fault in
// declared order whose tool pattern matches and whose decision fires.
func (s *Simulator) Call(t *Table, c Call) (*Answer, error) {
	for _, f := range []struct{ name, v string }{{"scenario_id", c.ScenarioID}, {"seed", c.Seed}, {"tool", c.Tool}} {
		if err := checkText(f.name, f.v); err != nil {
			return nil, err
		}
	}
	if _, ok := c.Args.(map[string]any); !ok {
		return nil, &CallError{"args", "must be an object"}
	}
	if c.Attempt < 0 || c.Attempt > MaxAttempt {
		return nil, &CallError{"attempt", fmt.Sprintf("must be an integer from 1 to %d", MaxAttempt)}
	}
	canon, err := Canonical(c.Args)
	if err != nil {
		return nil, &CallError{"args", err.Error()}
	}
	mock, others := t.find(c.Tool, c.Args, canon)
	if mock == nil {
		return nil, t.noMatch(c.Tool, canon)
	}

	// Count the occurrence and reserve the ledger slot in one step, so the ledger lists calls in the order
	// their occurrences were given out.
	s.mu.Lock()
	sc := s.scenarios[c.ScenarioID]
	if sc == nil {
		if len(s.scenarios) >= MaxScenarios {
			s.mu.Unlock()
			return nil, &LimitError{fmt.Sprintf("at most %d simulation scenarios per session", MaxScenarios)}
		}
		sc = &scenario{counts: map[[32]byte]int{}}
		s.scenarios[c.ScenarioID] = sc
	}
	if len(sc.ledger) >= MaxCalls {
		s.mu.Unlock()
		return nil, &LimitError{fmt.Sprintf("scenario %q has recorded %d calls, the most one scenario keeps", c.ScenarioID, MaxCalls)}
	}
	// canon is kept as the entry's args: counted with its room to spare, as it was grown by appending.
	// The fault's text is appended to it once answered and counted then (at most a few hundred bytes: an
	// id of MaxIDLen and a few numbers), so the ledgers may pass MaxLedgerBytes by that much.
	cost := cap(canon) + len(c.Tool) + entryBytes
	if s.ledgerBytes+cost > MaxLedgerBytes {
		s.mu.Unlock()
		return nil, &LimitError{fmt.Sprintf("the simulation ledgers hold %d bytes of args, the most a session keeps", MaxLedgerBytes)}
	}
	s.ledgerBytes += cost
	key := sha256.Sum256(append(append([]byte(c.Tool), 0), canon...))
	sc.counts[key]++
	occ := sc.counts[key]
	slot := len(sc.ledger)
	sc.ledger = append(sc.ledger, Entry{Seq: slot + 1})
	var warnings []string
	for _, o := range others {
		pair := [2]string{mock.ID, o.ID}
		if !s.warned[pair] && len(s.warned) < maxWarned {
			s.warned[pair] = true
			warnings = append(warnings, fmt.Sprintf("mock rules %q and %q both match tool %q with these args; %q wins (declared first)", mock.ID, o.ID, c.Tool, mock.ID))
		}
	}
	s.mu.Unlock()

	a := answer(t, mock, c, canon, occ)
	a.Warnings = warnings
	// The args' text and the fault's share one allocation, canon's when it has the room; the tool name
	// is a string of its own: nothing kept refers to the request's decoded args.
	n, kept := len(canon), canon
	if a.Fault != nil {
		var err error
		if kept, err = appendCanonical(canon, a.Fault, 0); err != nil { // a fault's members are strings and integers: never
			return nil, err
		}
	}
	e := Entry{Seq: slot + 1, Tool: c.Tool, Args: Text(kept[:n:n]), Occurrence: a.Occurrence, Attempt: a.Attempt,
		RuleID: a.RuleID, Outcome: "result", LatencyMS: a.LatencyMS}
	if a.Fault != nil {
		e.Fault = Text(kept[n:len(kept):len(kept)])
	}
	if a.HasError {
		e.Outcome = "error"
	}
	s.mu.Lock()
	sc.ledger[slot] = e
	s.ledgerBytes += cap(kept) - cap(canon) // a new allocation when the fault did not fit in canon's room
	s.mu.Unlock()
	return a, nil
}

// answer is the pure part of Call: the answer of mock to c at occurrence occ.
func answer(t *Table, mock *Mock, c Call, canon []byte, occ int) *Answer {
	a := &Answer{RuleID: mock.ID, Occurrence: occ, Attempt: c.Attempt}
	if a.Attempt == 0 {
		a.Attempt = occ
	}
	switch mock.kind {
	case "result":
		a.Result = mock.Result
	case "sequence":
		a.Result = mock.Sequence[min(occ, len(mock.Sequence))-1]
	case "error":
		a.Error, a.HasError = mock.Error, true
	}
	if a.HasError {
		return a // a mock's own error is the answer; faults perturb successful answers only
	}
	k := Key{Seed: c.Seed, ScenarioID: c.ScenarioID, Tool: c.Tool, Args: canon, Occurrence: occ, Attempt: a.Attempt}
	for _, f := range t.Faults {
		if !globMatch(f.Tool, c.Tool) {
			continue
		}
		if f.Kind == KindFailUntil && a.Attempt > f.K {
			continue
		}
		k.FaultID = f.ID
		d := k.Digest()
		if Fires(d, f.Rate) {
			f.apply(a, d)
			break
		}
	}
	return a
}

// MaxLedgerPage bounds one page of a ledger (LedgerPage): the bytes its entries' texts and fields take in the
// answer, at most; a page holds at least one entry, so one entry larger than this (args up to a request
// line's size) is a page alone.
const MaxLedgerPage = 4 << 20

// entryWire is what an entry's answer adds to its texts: member names, numbers and punctuation.
const entryWire = 160

// quotedLen is the length of s as a canonical JSON string writes it, without its quotes: a control
// character takes 6 bytes (\u00xx) or 2 (\n and the like), a quote or a backslash 2.
func quotedLen(s string) int {
	n := len(s)
	for i := range len(s) {
		switch c := s[i]; {
		case c == '"' || c == '\\' || c == '\b' || c == '\f' || c == '\n' || c == '\r' || c == '\t':
			n++
		case c < 0x20:
			n += 5
		}
	}
	return n
}

// Ledger returns a copy of the decisions of a scenario, in order, and whether the scenario exists.
func (s *Simulator) Ledger(scenarioID string) ([]Entry, bool) {
	entries, _, ok := s.LedgerPage(scenarioID, 0, MaxCalls, -1)
	return entries, ok
}

// LedgerPage returns the decisions of a scenario from the offset-th (0 first), at most limit of them and,
// when maxBytes ≥ 0, no more than fit in maxBytes of answer (but always one, when there is one); total is the
// number of decisions the scenario holds. A slot whose call is still being answered ends the page: the
// ledger is read in order, and a read taken in its turn (the rpc read order) finds none.
func (s *Simulator) LedgerPage(scenarioID string, offset, limit, maxBytes int) (entries []Entry, total int, ok bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	sc := s.scenarios[scenarioID]
	if sc == nil {
		return nil, 0, false
	}
	size := 0
	for i := offset; i < len(sc.ledger) && len(entries) < limit; i++ {
		e := sc.ledger[i]
		if e.Outcome == "" {
			break
		}
		n := quotedLen(e.Tool) + len(e.Args) + len(e.Fault) + quotedLen(e.RuleID) + entryWire
		if maxBytes >= 0 && len(entries) > 0 && size+n > maxBytes {
			break
		}
		size += n
		entries = append(entries, e)
	}
	return entries, len(sc.ledger), true
}
