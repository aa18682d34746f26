// suite.go: the suite file: named assertions, per-agent sample rates and filters, and its hash.

package suite

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"sort"

	"attest-engine/assert"
	"attest-engine/resultkey"
	"attest-engine/sample"
	"attest-engine/trace"
)

// Bounds of a suite file.
const (
	MaxBytes       = 4 << 20
	MaxAssertions  = 1000
	MaxNameBytes   = 256
	MaxAgentRates  = 10000
	MaxFilterAgent = 10000
)

// Suite is a parsed suite file:
//
//	{"assertions": [{"name", "type", "spec", "agent_id"?}, …],
//	 "sample_rates": {"<agent_id>": 0.1, …},
//	 "filter": {"agent_ids": ["<agent_id>", …]}}
//
// A name is the assertion's stable name (for result ids) and part of its
// assertion key (Keys); it must be unique in the suite.
type Suite struct {
	Assertions []assert.Assertion // ID is the name
	// Keys are the assertions' keys (package resultkey: type, canonical
	// spec, agent_id and name), in suite order: the history's keys and the
	// result lines' assertion_key.
	Keys   []string
	Rates  map[string]sample.Rate
	Agents map[string]bool // nil: every agent
	Hash   string          // SHA-256 of the suite's canonical JSON, hex
}

// Read reads and checks a suite file of at most MaxBytes.
func Read(r io.Reader, name string) (*Suite, error) {
	data, err := io.ReadAll(io.LimitReader(r, MaxBytes+1))
	if err != nil {
		return nil, fmt.Errorf("suite %s: %v", name, err)
	}
	if len(data) > MaxBytes {
		return nil, fmt.Errorf("suite %s: larger than %d bytes", name, MaxBytes)
	}
	s, err := parse(data)
	if err != nil {
		return nil, fmt.Errorf("suite %s: %v", name, err)
	}
	return s, nil
}

func parse(data []byte) (*Suite, error) {
	v, err := trace.Decode(data)
	if err != nil {
		return nil, err
	}
	obj, ok := v.(map[string]any)
	if !ok {
		return nil, fmt.Errorf(`want a JSON object {"assertions": [...]}, got %s`, trace.Kind(v))
	}
	for k := range obj {
		if k != "assertions" && k != "sample_rates" && k != "filter" {
			return nil, fmt.Errorf("unknown member %q (want assertions, sample_rates, filter)", k)
		}
	}
	list, ok := obj["assertions"].([]any)
	if !ok || len(list) == 0 {
		return nil, fmt.Errorf(`"assertions" must be a non-empty array`)
	}
	if len(list) > MaxAssertions {
		return nil, fmt.Errorf("%d assertions, more than %d", len(list), MaxAssertions)
	}
	s := &Suite{Rates: map[string]sample.Rate{}}
	seen := map[string]bool{}
	for i, item := range list {
		a, err := assertion(item)
		if err != nil {
			return nil, fmt.Errorf("assertions[%d]: %v", i, err)
		}
		if seen[a.ID] {
			return nil, fmt.Errorf("assertions[%d]: name %q is used twice (names are the keys of results and history)", i, a.ID)
		}
		seen[a.ID] = true
		key, err := resultkey.Assertion(a.Type, a.Spec, a.AgentID, a.ID)
		if err != nil {
			return nil, fmt.Errorf("assertions[%d]: spec: %v", i, err)
		}
		s.Assertions, s.Keys = append(s.Assertions, a), append(s.Keys, key)
	}
	if rv, ok := obj["sample_rates"]; ok {
		rates, ok := rv.(map[string]any)
		if !ok || len(rates) > MaxAgentRates {
			return nil, fmt.Errorf(`"sample_rates" must be an object of at most %d agent ids → rates`, MaxAgentRates)
		}
		for agent, x := range rates {
			n, ok := x.(json.Number)
			if !ok {
				return nil, fmt.Errorf("sample_rates[%q]: want a number from 0 to 1", agent)
			}
			r, err := sample.ParseRate(string(n))
			if err != nil {
				return nil, fmt.Errorf("sample_rates[%q]: %v", agent, err)
			}
			s.Rates[agent] = r
		}
	}
	if fv, ok := obj["filter"]; ok {
		f, ok := fv.(map[string]any)
		ids, ok2 := f["agent_ids"].([]any)
		if !ok || !ok2 || len(f) != 1 || len(ids) > MaxFilterAgent {
			return nil, fmt.Errorf(`"filter" must be {"agent_ids": [...]} with at most %d ids`, MaxFilterAgent)
		}
		s.Agents = map[string]bool{}
		for _, x := range ids {
			id, ok := x.(string)
			if !ok {
				return nil, fmt.Errorf(`"filter.agent_ids" must hold strings`)
			}
			s.Agents[id] = true
		}
	}
	// The hash is of the canonical form (members sorted, no white space,
	// numbers as written), so re-indenting the file keeps result ids.
	canon, err := json.Marshal(v)
	if err != nil {
		return nil, err
	}
	sum := sha256.Sum256(canon)
	s.Hash = hex.EncodeToString(sum[:])
	return s, nil
}

func assertion(item any) (assert.Assertion, error) {
	m, ok := item.(map[string]any)
	if !ok {
		return assert.Assertion{}, fmt.Errorf("want an object with name, type and spec")
	}
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		if k != "name" && k != "type" && k != "spec" && k != "agent_id" {
			return assert.Assertion{}, fmt.Errorf("unknown member %q (want name, type, spec, agent_id)", k)
		}
	}
	name, _ := m["name"].(string)
	typ, _ := m["type"].(string)
	spec, _ := m["spec"].(map[string]any)
	agent, _ := m["agent_id"].(string)
	switch {
	case name == "" || len(name) > MaxNameBytes:
		return assert.Assertion{}, fmt.Errorf(`"name" must be a string of 1 to %d bytes`, MaxNameBytes)
	case typ == "":
		return assert.Assertion{}, fmt.Errorf(`assertion %q: "type" must be a non-empty string`, name)
	case spec == nil:
		return assert.Assertion{}, fmt.Errorf(`assertion %q: "spec" must be an object`, name)
	}
	if _, ok := m["agent_id"]; ok && agent == "" {
		return assert.Assertion{}, fmt.Errorf(`assertion %q: "agent_id" must be a non-empty string`, name)
	}
	return assert.Assertion{ID: name, Type: typ, Spec: spec, AgentID: agent}, nil
}

// MaxRate is the highest rate any agent may be sampled at, given the
// command's rate: spans can be dropped by trace id before the agent is
// known only when the trace is out at every rate.
func (s *Suite) MaxRate(def sample.Rate) sample.Rate {
	m := def
	for _, r := range s.Rates {
		if r.Threshold() < m.Threshold() {
			m = r
		}
	}
	return m
}

// Rate is the sampling rate of traces of this agent: its own in
// sample_rates, else def (the command's).
func (s *Suite) Rate(agent string, def sample.Rate) sample.Rate {
	if r, ok := s.Rates[agent]; ok {
		return r
	}
	return def
}
