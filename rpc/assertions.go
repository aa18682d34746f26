// assertions.go: params.assertions read straight into assertions when they have the shape SDKs send, instead of through maps.

package rpc

import (
	"bytes"
	"slices"

	"attest-engine/assert"
	"attest-engine/trace"
)

// taken is params.assertions as readAssertions read it: it stands in the
// params object for the array, which no one else reads. A list of up to 8
// lives in small: one allocation for both.
type taken struct {
	list  []assert.Assertion
	small [8]assert.Assertion
}

// Assertion types, as constants: a type read from a line takes no
// allocation when it is one of them.
var assertionTypes = [...]string{"schema", "constraint", "trace", "trace_tree", "content", "embedding", "llm_judge"}

// readAssertions is the decoder's Lookup for params.assertions (depth 2).
// An array of objects with the members of spec §2.2's table and nothing
// else, each once, of the right types (assertion_id a non-empty string,
// type a string, spec an object, request_id a string or null, agent_id a
// non-empty string or null), is read straight into assertions: what
// assert.Parse would make of the decoded array, without making it. Anything
// else (another member, a wrong type, a duplicate, malformed text) is left
// to the decoder, which decodes the array plainly, and to assert.Parse,
// which names what is wrong. Specs whose text the engine knows are taken as
// known (assert/spectext.go); the others are noted in r.fresh.
func (r *batchReuse) readAssertions(rest []byte) (int, any, bool) {
	if len(rest) == 0 || rest[0] != '[' {
		return 0, nil, false
	}
	p := skipSpace(rest, 1)
	list := r.list[:0]
	defer func() { clear(list); r.list = list[:0] }()
	nFresh := r.n
	for {
		a, n, ok := r.readAssertion(rest[p:])
		if !ok {
			r.n = nFresh // the plain decode notes the fresh specs again
			return 0, nil, false
		}
		list = append(list, a)
		p = skipSpace(rest, p+n)
		if p < len(rest) && rest[p] == ',' {
			p = skipSpace(rest, p+1)
			continue
		}
		if p < len(rest) && rest[p] == ']' {
			t := &taken{}
			if len(list) <= len(t.small) {
				t.list = append(t.small[:0], list...)
			} else {
				t.list = slices.Clone(list)
			}
			return p + 1, t, true
		}
		r.n = nFresh
		return 0, nil, false
	}
}

// Members of an assertion object, as bits of what was seen.
const (
	seenID = 1 << iota
	seenType
	seenSpec
	seenRequestID
	seenAgentID
)

// readAssertion reads one assertion object at the start of rest (depth 4),
// or gives up (ok false).
func (r *batchReuse) readAssertion(rest []byte) (a assert.Assertion, n int, ok bool) {
	if len(rest) == 0 || rest[0] != '{' {
		return a, 0, false
	}
	p := skipSpace(rest, 1)
	seen := 0
	for {
		key, n, ok := trace.DecodeString(rest[p:])
		if !ok {
			return a, 0, false
		}
		p = skipSpace(rest, p+n)
		if p >= len(rest) || rest[p] != ':' {
			return a, 0, false
		}
		p = skipSpace(rest, p+1)
		v := rest[p:]
		var bit int
		switch string(key) {
		case "assertion_id":
			bit = seenID
			s, n, ok := trace.DecodeString(v)
			if !ok || len(s) == 0 {
				return a, 0, false
			}
			a.ID, p = string(s), p+n
		case "type":
			bit = seenType
			s, n, ok := trace.DecodeString(v)
			if !ok {
				return a, 0, false
			}
			a.Type, p = typeName(s), p+n
		case "spec":
			bit = seenSpec
			sp, n, ok := r.readSpec(v)
			if !ok {
				return a, 0, false
			}
			a.Spec, p = sp, p+n
		case "request_id", "agent_id":
			bit = seenRequestID
			if string(key) == "agent_id" {
				bit = seenAgentID
			}
			if bytes.HasPrefix(v, []byte("null")) {
				p += 4
				break
			}
			s, n, ok := trace.DecodeString(v)
			if !ok || (bit == seenAgentID && len(s) == 0) {
				return a, 0, false
			}
			if bit == seenAgentID {
				a.AgentID = string(s)
			} else {
				a.RequestID = string(s)
			}
			p += n
		default:
			return a, 0, false
		}
		if seen&bit != 0 {
			return a, 0, false
		}
		seen |= bit
		p = skipSpace(rest, p)
		if p < len(rest) && rest[p] == ',' {
			p = skipSpace(rest, p+1)
			continue
		}
		if p < len(rest) && rest[p] == '}' && seen&(seenID|seenType|seenSpec) == seenID|seenType|seenSpec {
			return a, p + 1, true
		}
		return a, 0, false
	}
}

// readSpec reads a spec object at the start of rest: the known value when
// the engine knows its text, else decoded (at depth 4, as in the line) and
// noted in r.fresh.
func (r *batchReuse) readSpec(rest []byte) (map[string]any, int, bool) {
	if len(rest) == 0 || rest[0] != '{' {
		return nil, 0, false
	}
	n, v, ok := r.known(rest)
	if !ok {
		var err error
		if v, n, err = trace.DecodeValue(rest, 4); err != nil {
			return nil, 0, false
		}
		r.noteFresh(rest[:n], v)
	}
	sp, ok := v.(map[string]any)
	return sp, n, ok
}

// typeName is s as a string, one of the constants when it names a type.
func typeName(s []byte) string {
	for _, t := range assertionTypes {
		if string(s) == t {
			return t
		}
	}
	return string(s)
}

// skipSpace returns the offset of the first byte at or after p in b that is
// not JSON white space.
func skipSpace(b []byte, p int) int {
	for p < len(b) && (b[p] == ' ' || b[p] == '\t' || b[p] == '\n' || b[p] == '\r') {
		p++
	}
	return p
}
