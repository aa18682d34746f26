// quota.go: what one trace maps, bounded: its span events, log records, messages and the JSON texts decoded from its attributes share one allowance.

package ingest

import (
	"encoding/json"
	"strings"
	"unicode/utf8"

	"attest-engine/trace"
)

// maxTraceEvents bounds what one trace maps, in units: a span event or a
// log record is one, a message read from an attribute one, and a JSON text
// decoded from an attribute (a list's element, tool arguments or a result,
// a message's embedded JSON) one per nodesPerUnit of its values and member
// names. Each becomes part of the Attest trace, several times the memory
// it was held in (a message of 40 bytes of text takes about 1 KiB mapped),
// and a trace's spans may hold the assembler's whole budget of them. Past
// it the rest are dropped, counted (metadata.otel.dropped_events), and the
// trace is incomplete. An agent whose every model call sends its whole
// history reaches it at about 128 calls of 128 messages.
const maxTraceEvents = 1 << 14

// nodesPerUnit is how many JSON values and member names one unit of
// maxTraceEvents buys: a message of the conventions' parts form with one
// text part has ten.
const nodesPerUnit = 16

// quota is what is left of a trace's allowance, and how much was dropped
// for want of it. The mapping of one trace has one.
type quota struct {
	left    int
	dropped int
}

func newQuota() quota { return quota{left: maxTraceEvents} }

// take spends n units; false (and one more dropped) when fewer are left.
func (q *quota) take(n int) bool {
	if n > q.left {
		q.dropped++
		return false
	}
	q.left -= n
	return true
}

// units is what a JSON text of n nodes costs.
func units(n int) int { return max(1, (n+nodesPerUnit-1)/nodesPerUnit) }

// budgetNodes is the most nodes q can still pay for.
func (q *quota) budgetNodes() int {
	return q.left * nodesPerUnit
}

// jsonSpace is JSON's white space (RFC 8259 §2), all that may stand around
// a JSON text: not strings.TrimSpace's, which takes \f, \v and Unicode's
// spaces too.
const jsonSpace = " \t\n\r"

// decode decodes a JSON text that holds an object or an array, when it is
// one and q can pay for it: its nodes are counted on the text before
// anything is decoded. ok is false for anything else, and for a text too
// large for what is left (counted dropped): the caller keeps the text.
func (q *quota) decode(s string) (any, bool) {
	t := strings.Trim(s, jsonSpace)
	if len(t) > maxMessageJSON || !(strings.HasPrefix(t, "{") || strings.HasPrefix(t, "[")) {
		return nil, false
	}
	n, within := jsonNodes(t, q.budgetNodes())
	if !within {
		q.dropped++
		return nil, false
	}
	d, err := trace.Decode([]byte(t))
	if err != nil {
		return nil, false
	}
	q.take(units(n))
	return d, true
}

// list reads the JSON text of an array one element at a time: each
// element is decoded only once q has paid for it, the rest are counted
// dropped and never decoded, so a list of a million tiny messages takes
// what its first elements take. ok is false when the text is not a valid
// JSON array, or an element read is not what trace.Decode accepts (a
// repeated member name): the caller reads it as text.
func (q *quota) list(s string) (out []any, ok bool) {
	t := strings.Trim(s, jsonSpace)
	if len(t) > maxMessageJSON || !strings.HasPrefix(t, "[") {
		return nil, false
	}
	b := []byte(t)
	if !json.Valid(b) || !utf8.Valid(b) {
		return nil, false
	}
	out = []any{}
	err := rawList(b).each("", func(elem []byte) error {
		n, within := jsonNodes(elem, q.budgetNodes())
		if !within {
			q.dropped++
			return nil
		}
		if !q.take(units(n)) {
			return nil // counted dropped
		}
		d, err := trace.Decode(elem)
		if err != nil {
			return err
		}
		out = append(out, d)
		return nil
	})
	return out, err == nil
}

// jsonNodes counts the values and member names of a valid JSON text
// (what tape makes nodes of) without decoding it, and stops past limit:
// within is false then.
func jsonNodes[T string | []byte](t T, limit int) (n int, within bool) {
	n = 1
	for i := 0; i < len(t); i++ {
		switch t[i] {
		case '"':
			for i++; i < len(t) && t[i] != '"'; i++ {
				if t[i] == '\\' {
					i++
				}
			}
		case ',', '[', '{':
			n++
		case ':':
			n++
		case ']', '}':
			if t[i-1] == '[' || t[i-1] == '{' {
				n-- // an empty list or object has no element
			}
		}
		if n > limit {
			return n, false
		}
	}
	return n, true
}

// valueNodes counts the values and member names of a decoded value, as
// jsonNodes does its text, and stops past limit.
func valueNodes(v any, limit int) (n int, within bool) {
	n = 1
	var walk func(v any) bool
	walk = func(v any) bool {
		switch x := v.(type) {
		case []any:
			for _, e := range x {
				n++
				if n > limit || !walk(e) {
					return false
				}
			}
		case map[string]any:
			for _, e := range x {
				n += 2
				if n > limit || !walk(e) {
					return false
				}
			}
		}
		return true
	}
	within = walk(v) && n <= limit
	return n, within
}
