// result.go: the result record the watch command hands over, and its binary
// encoding inside a log frame.

package history

import (
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"time"
	"unicode/utf8"
)

// Status is a result's outcome. The numbers are the on-disk codes of the log
// format (doc.go, "Log format"): never renumber them.
type Status uint8

const (
	Pass     Status = 1
	SoftFail Status = 2
	HardFail Status = 3
	Error    Status = 4
	Skipped  Status = 5
)

var statusNames = [...]string{Pass: "pass", SoftFail: "soft_fail", HardFail: "hard_fail", Error: "error", Skipped: "skipped"}

// String returns the status as the protocol writes it.
func (s Status) String() string {
	if s >= Pass && s <= Skipped {
		return statusNames[s]
	}
	return fmt.Sprintf("status(%d)", uint8(s))
}

// ParseStatus reads a protocol status name.
func ParseStatus(name string) (Status, error) {
	for s := Pass; s <= Skipped; s++ {
		if statusNames[s] == name {
			return s, nil
		}
	}
	return 0, fmt.Errorf("history: unknown status %q (want pass, soft_fail, hard_fail, error or skipped)", name)
}

// MaxField bounds each string of a Result, in bytes.
const MaxField = 4096

// Result is one (trace, assertion) result. Assertion is the history's key:
// the result's assertion key (package resultkey), the same in every run of
// a suite; Label is how a person names it (a watch suite's name, or the
// type and spec an SDK's assertion checks), "" when none.
type Result struct {
	TraceID   string
	Assertion string
	Label     string
	Type      string
	Status    Status
	Score     float64 // 0..1
	// Timestamp is the wall-clock time of the evaluation; zero when absent
	// (the watch command's --deterministic mode).
	Timestamp time.Time
	// Seq is the trace's position in the input (1-based; 0 when unknown). It
	// places the result in a count window (doc.go, "Windows"): N processes that
	// read the same input with --shard agree on it.
	Seq      uint64
	ResultID string
	// Through is the last input item (the Seq numbering) holding a span the
	// verdict judged, and Spans how many spans it judged: for a trace
	// assembled from OTLP spans, so that after a restart the watch command
	// tells a span already judged from a late one. Zero for whole traces.
	Through uint64
	Spans   uint32
}

// Validate reports why r cannot be recorded.
func (r *Result) Validate() error {
	for _, f := range [...]struct{ name, v string }{{"trace_id", r.TraceID}, {"assertion", r.Assertion}, {"type", r.Type}, {"result_id", r.ResultID}, {"label", r.Label}} {
		if len(f.v) > MaxField {
			return fmt.Errorf("history: %s is %d bytes, over the %d-byte limit", f.name, len(f.v), MaxField)
		}
		if !utf8.ValidString(f.v) {
			return fmt.Errorf("history: %s is not valid UTF-8", f.name)
		}
	}
	if r.Assertion == "" {
		return errors.New("history: a result needs its assertion name (the history key)")
	}
	if r.Status < Pass || r.Status > Skipped {
		return fmt.Errorf("history: invalid status %d", r.Status)
	}
	if !(r.Score >= 0 && r.Score <= 1) { // NaN fails too
		return fmt.Errorf("history: score %v is outside 0..1", r.Score)
	}
	return nil
}

// payloadVersion is the first byte of every record payload written: 2
// adds Through and Spans after the strings, 3 the Label after them (only a
// result with a label is written as 3). Version 1 payloads are read.
const (
	payloadVersion   = 2
	payloadVersionV1 = 1
	payloadVersionV3 = 3
)

// appendPayload encodes r (already validated) after b.
func appendPayload(b []byte, r *Result) []byte {
	version := byte(payloadVersion)
	if r.Label != "" {
		version = payloadVersionV3
	}
	b = append(b, version, byte(r.Status))
	b = binary.LittleEndian.AppendUint64(b, math.Float64bits(r.Score))
	var ts int64
	if !r.Timestamp.IsZero() {
		ts = r.Timestamp.UnixNano()
	}
	b = binary.AppendVarint(b, ts)
	b = binary.AppendUvarint(b, r.Seq)
	for _, s := range [...]string{r.TraceID, r.Assertion, r.Type, r.ResultID} {
		b = binary.AppendUvarint(b, uint64(len(s)))
		b = append(b, s...)
	}
	b = binary.AppendUvarint(b, r.Through)
	b = binary.AppendUvarint(b, uint64(r.Spans))
	if version == payloadVersionV3 {
		b = binary.AppendUvarint(b, uint64(len(r.Label)))
		b = append(b, r.Label...)
	}
	return b
}

// DecodeError is a record payload that does not decode.
type DecodeError struct{ Reason string }

func (e *DecodeError) Error() string { return "history: bad record: " + e.Reason }

// decodePayload is the inverse of appendPayload. It trusts nothing: the
// payload passed its checksum, but a checksum is not an authentication.
func decodePayload(p []byte) (Result, error) {
	var r Result
	bad := func(reason string) (Result, error) { return Result{}, &DecodeError{reason} }
	if len(p) < 10 {
		return bad("short payload")
	}
	version := p[0]
	if !knownVersion(version) {
		return bad(fmt.Sprintf("payload version %d", p[0]))
	}
	r.Status = Status(p[1])
	r.Score = math.Float64frombits(binary.LittleEndian.Uint64(p[2:10]))
	p = p[10:]
	ts, n := binary.Varint(p)
	if n <= 0 {
		return bad("timestamp")
	}
	p = p[n:]
	if ts != 0 {
		r.Timestamp = time.Unix(0, ts).UTC()
	}
	if r.Seq, n = binary.Uvarint(p); n <= 0 {
		return bad("seq")
	}
	p = p[n:]
	for _, dst := range [...]*string{&r.TraceID, &r.Assertion, &r.Type, &r.ResultID} {
		l, n := binary.Uvarint(p)
		if n <= 0 || l > MaxField || l > uint64(len(p)-n) {
			return bad("string length")
		}
		*dst = string(p[n : n+int(l)])
		p = p[n+int(l):]
	}
	if version >= 2 {
		if r.Through, n = binary.Uvarint(p); n <= 0 {
			return bad("through")
		}
		p = p[n:]
		spans, n := binary.Uvarint(p)
		if n <= 0 || spans > math.MaxUint32 {
			return bad("spans")
		}
		r.Spans = uint32(spans)
		p = p[n:]
	}
	if version == payloadVersionV3 {
		l, n := binary.Uvarint(p)
		if n <= 0 || l == 0 || l > MaxField || l > uint64(len(p)-n) {
			return bad("label length")
		}
		r.Label = string(p[n : n+int(l)])
		p = p[n+int(l):]
	}
	if len(p) != 0 {
		return bad("trailing bytes")
	}
	if err := r.Validate(); err != nil {
		return bad(err.Error())
	}
	return r, nil
}

// ParseLine builds a Result from the fields of a watch result line: status
// as written ("pass", …), ts as RFC 3339 ("" when absent, as under
// --deterministic), seq the trace's 1-based input position (0 unknown).
func ParseLine(traceID, assertion, typ, status string, score float64, ts string, seq uint64, resultID string) (Result, error) {
	st, err := ParseStatus(status)
	if err != nil {
		return Result{}, err
	}
	r := Result{TraceID: traceID, Assertion: assertion, Type: typ, Status: st, Score: score, Seq: seq, ResultID: resultID}
	if ts != "" {
		if r.Timestamp, err = time.Parse(time.RFC3339Nano, ts); err != nil {
			return Result{}, fmt.Errorf("history: timestamp %q: %v", ts, err)
		}
	}
	return r, r.Validate()
}
