// fields.go: the members of a JSON report's trace and result, and of a watch result line, read in one
// walk over each object's members, their strings decoded in place (or into scratch when they have
// escapes): no map, no string and no Get per member.

package rundiff

import (
	"errors"
	"fmt"
	"strconv"
	"unicode/utf8"

	"attest-engine/tape"
)

// fields reads results; its scratch holds the decoded texts of escaped strings and the keys diff makes
// up (trace:…, assertion_id:…/…), and its result is the one handed to the reader's callback.
type fields struct {
	res      result
	traceBuf []byte // the trace's texts: its case key, for all its results
	buf      []byte // one result's texts
}

// memberName is a member name's decoded text: the name in place, or decoded into buf when it has
// escapes (a name longer than buf is none diff reads, and comes back empty).
func memberName(k tape.Value, buf *[32]byte) []byte {
	if !k.Escaped() {
		return k.Raw()
	}
	n := 0
	for run, r := range k.Chunks() {
		if r >= 0 {
			if n+utf8.RuneLen(r) > len(buf) {
				return nil
			}
			n += utf8.EncodeRune(buf[n:], r)
			continue
		}
		if n+len(run) > len(buf) {
			return nil
		}
		n += copy(buf[n:], run)
	}
	return buf[:n]
}

// text is string v's decoded content: in place, or appended to *scratch when it has escapes; nil for any
// other kind (as an absent member).
func text(v tape.Value, scratch *[]byte) []byte {
	if v.Kind() != tape.String {
		return nil
	}
	if !v.Escaped() {
		return v.Raw()
	}
	start := len(*scratch)
	for run, r := range v.Chunks() {
		if r >= 0 {
			*scratch = utf8.AppendRune(*scratch, r)
		} else {
			*scratch = append(*scratch, run...)
		}
	}
	return (*scratch)[start:len(*scratch):len(*scratch)]
}

// lazy is a string member decoded only when something reads it: a result's label and type are read for
// the first result of each assertion key, and for results with no pair, not for every result.
type lazy struct{ v tape.Value }

// empty reports whether the member is absent, not a string or the empty string (an escape never decodes
// to nothing).
func (l lazy) empty() bool { return len(l.v.Raw()) == 0 }

// text is the member's decoded content (nil when it is not a string), valid while the result is.
func (l lazy) text() []byte {
	var b []byte
	return text(l.v, &b)
}

// join appends the concatenation of parts to *scratch and returns it.
func join(scratch *[]byte, parts ...[]byte) []byte {
	start := len(*scratch)
	for _, p := range parts {
		*scratch = append(*scratch, p...)
	}
	return (*scratch)[start:len(*scratch):len(*scratch)]
}

// or is a unless it is empty, else b.
func or(a, b []byte) []byte {
	if len(a) > 0 {
		return a
	}
	return b
}

// shared are the members that a JSON report's result and a watch result line both have, as read.
type shared struct {
	status                      []byte
	score, repeat               tape.Value
	skipped, calibratedFalse    bool
	statusSeen, statusNotString bool
}

// read takes member name of v if it is one of the shared ones.
func (s *shared) read(name []byte, v tape.Value, scratch *[]byte) bool {
	switch string(name) {
	case "status":
		s.status = text(v, scratch)
	case "score":
		s.score = v
	case "repeat":
		s.repeat = v
	case "skipped":
		s.skipped = v.Bool()
	case "calibrated":
		s.calibratedFalse = v.Kind() == tape.Bool && !v.Bool()
	default:
		return false
	}
	return true
}

// trace reads one trace of a JSON report: {"name","trace_id","case_key"?,…,"results":[…]}, and calls fn
// with each of its results.
func (f *fields) trace(t tape.Value, fn func(*result) error) error {
	if t.Kind() != tape.Object {
		return errors.New("a trace of the report is not an object")
	}
	f.traceBuf = f.traceBuf[:0]
	var nbuf [32]byte
	var caseKey, name, traceID []byte
	var results tape.Value
	for k, v := range t.Members() {
		switch string(memberName(k, &nbuf)) {
		case "case_key":
			caseKey = text(v, &f.traceBuf)
		case "name":
			name = text(v, &f.traceBuf)
		case "trace_id":
			traceID = text(v, &f.traceBuf)
		case "results":
			results = v
		}
	}
	if len(caseKey) == 0 {
		caseKey = join(&f.traceBuf, []byte("trace:"), or(name, traceID))
	}
	if results.Kind() != tape.Array {
		return errors.New(`a trace of the report has no "results" list`)
	}
	for r := range results.Elems() {
		if r.Kind() != tape.Object {
			return errors.New("a result of the report is not an object")
		}
		f.buf = f.buf[:0]
		res := &f.res
		*res = result{}
		var sh shared
		// A result's own case_key (the engine writes one where it differs from its trace's) wins over its
		// trace's; the key's label where the engine wrote one (the id differs from run to run), else the id.
		var ownCase []byte
		var id, label tape.Value
		for k, v := range r.Members() {
			name := memberName(k, &nbuf)
			if sh.read(name, v, &f.buf) {
				continue
			}
			switch string(name) {
			case "assertion_id":
				id = v
			case "assertion_key":
				res.assertion = text(v, &f.buf)
			case "label":
				label = v
			case "case_key":
				ownCase = text(v, &f.buf)
			case "type":
				res.typ = lazy{v}
			}
		}
		res.caseKey, res.label = or(ownCase, caseKey), lazy{label}
		if res.label.empty() {
			res.label = lazy{id}
		}
		if len(res.assertion) == 0 {
			res.assertion = join(&f.buf, []byte("assertion_id:"), text(id, &f.buf), []byte("/"), text(res.typ.v, &f.buf))
		}
		if err := sh.apply(res); err != nil {
			return err
		}
		if err := fn(res); err != nil {
			return err
		}
	}
	return nil
}

// line reads one result line of watch: {"trace_id","assertion","type","status","score",…}.
func (f *fields) line(l tape.Value) (*result, error) {
	if l.Kind() != tape.Object {
		return nil, errors.New("a result line is not a JSON object")
	}
	f.buf = f.buf[:0]
	res := &f.res
	*res = result{}
	var sh shared
	var nbuf [32]byte
	var traceID []byte
	for k, v := range l.Members() {
		name := memberName(k, &nbuf)
		if sh.read(name, v, &f.buf) {
			continue
		}
		switch string(name) {
		case "assertion":
			res.label = lazy{v}
		case "assertion_key":
			res.assertion = text(v, &f.buf)
		case "case_key":
			res.caseKey = text(v, &f.buf)
		case "trace_id":
			traceID = text(v, &f.buf)
		case "type":
			res.typ = lazy{v}
		case "result_id":
			res.resultID = text(v, &f.buf)
		case "supersedes":
			res.supersedes = text(v, &f.buf)
		}
	}
	if res.label.empty() {
		return nil, errors.New(`a result line without "assertion" (diff reads watch's result lines and the engine's JSON reports)`)
	}
	if len(res.caseKey) == 0 {
		res.caseKey = join(&f.buf, []byte("trace:"), traceID)
	}
	if len(res.assertion) == 0 {
		res.assertion = join(&f.buf, []byte("assertion:"), text(res.label.v, &f.buf))
	}
	return res, sh.apply(res)
}

// apply checks and sets what both layouts share: the status, the score and the repeat.
func (s *shared) apply(res *result) error {
	if res.status = parseStatus(s.status); res.status == statusNone {
		return fmt.Errorf("status %q: want pass, soft_fail, hard_fail, skipped or error", s.status)
	}
	// A JSON report writes a result that was not evaluated (budget_usd, skip_after_hard_fail) as the wire
	// does: soft_fail with "skipped": true; and an uncalibrated judge's (require_calibration) as soft_fail
	// with "calibrated": false, its verdict not used. Neither has a verdict to compare.
	if s.skipped || s.calibratedFalse {
		res.status = statusSkipped
	}
	if s.score.Kind() == tape.Number {
		f, err := parseScore(s.score.Text())
		if err != nil {
			return fmt.Errorf("score %s: %v", s.score.Text(), err)
		}
		// Spec §2.2: a score is 0.0 to 1.0. One far outside would make the pairs' differences infinite
		// and the sign-flip test's sums NaN, which decided "regressed".
		if !(f >= 0 && f <= 1) {
			return fmt.Errorf("score %s: want a number from 0 to 1 (spec §2.2)", s.score.Text())
		}
		res.score = f
	}
	res.repeat = -1
	if s.repeat.Kind() == tape.Number {
		n, err := strconv.ParseInt(string(s.repeat.Text()), 10, 64)
		if err != nil || n < 0 {
			return fmt.Errorf("repeat %s: want a whole number from 0", s.repeat.Text())
		}
		res.repeat = n
	}
	return nil
}

// parseScore is a JSON number's value: the verdicts' 0 and 1 at once, else strconv's.
func parseScore(b []byte) (float64, error) {
	switch string(b) {
	case "0":
		return 0, nil
	case "1":
		return 1, nil
	}
	return strconv.ParseFloat(string(b), 64)
}
