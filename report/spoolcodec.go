// spoolcodec.go: a recorded result as bytes in a spool file, exactly (every string byte, every float bit).

package report

import (
	"encoding/binary"
	"errors"
	"math"

	"attest-engine/assert"
)

// A spooled record is its length (uvarint) then its fields: the strings
// TraceID, Suite, Plugin, Type, Spec, AssertionID, Status, Explanation and
// RequestID, CaseKey, AssertionKey and KeyLabel, each as a uvarint length and its
// bytes; Score and Cost as the 8 bytes of their IEEE 754 bits; DurationMS
// and Repeat as varints; a byte of flags (1 Skipped, 2 Replayed, 4 a
// FailedStep follows, 8 its AtEnd, 16 a judge's fields follow, 32 a
// Failure follows, 64 HasRepeat); with a FailedStep, its Step as a varint
// and its strings Location, AgentID, Tool and Reason as above; then a
// judge's fields (Samples and Agreeing as varints, a byte of flags: 1
// Split, 2 PositionConsistent set, 4 its value, 8 Calibrated set, 16 its
// value) and a Failure (Code as a varint, a byte 1 when Retryable, the
// strings AssertionID, Message and Detail). Binary, not JSON: a report read back from the
// spool must be the report the same results make in memory, byte for byte,
// and JSON would turn invalid UTF-8 in an explanation into U+FFFD and
// cannot carry a NaN. TestSpoolCodecEveryField fails when a field is added
// to Recorded or assert.Result and not here.

var errSpoolRecord = errors.New("spool: malformed record")

// appendRecord appends r's frame to b.
func appendRecord(b []byte, r *Recorded) []byte {
	start := len(b)
	b = append(b, make([]byte, binary.MaxVarintLen64)...) // room for the length, moved down below
	body := len(b)
	for _, s := range [...]string{r.TraceID, r.Suite, r.Plugin, r.Type, r.Spec, r.Result.AssertionID,
		string(r.Result.Status), r.Result.Explanation, r.Result.RequestID, r.CaseKey, r.AssertionKey, r.KeyLabel} {
		b = binary.AppendUvarint(b, uint64(len(s)))
		b = append(b, s...)
	}
	b = binary.BigEndian.AppendUint64(b, math.Float64bits(r.Result.Score))
	b = binary.BigEndian.AppendUint64(b, math.Float64bits(r.Result.Cost))
	b = binary.AppendVarint(b, r.Result.DurationMS)
	b = binary.AppendVarint(b, r.Repeat)
	var flags byte
	if r.HasRepeat {
		flags |= 64
	}
	if r.Result.Skipped {
		flags |= 1
	}
	if r.Result.Replayed {
		flags |= 2
	}
	f := r.Result.FailedStep
	if f != nil {
		flags |= 4
		if f.AtEnd {
			flags |= 8
		}
	}
	if r.Result.Judge != nil {
		flags |= 16
	}
	if r.Result.Failure != nil {
		flags |= 32
	}
	b = append(b, flags)
	if f != nil {
		b = binary.AppendVarint(b, int64(f.Step))
		for _, s := range [...]string{f.Location, f.AgentID, f.Tool, f.Reason} {
			b = binary.AppendUvarint(b, uint64(len(s)))
			b = append(b, s...)
		}
	}
	if j := r.Result.Judge; j != nil {
		b = binary.AppendVarint(b, int64(j.Samples))
		b = binary.AppendVarint(b, int64(j.Agreeing))
		var jf byte
		if j.Split {
			jf |= 1
		}
		if j.PositionConsistent != nil {
			jf |= 2
			if *j.PositionConsistent {
				jf |= 4
			}
		}
		if j.Calibrated != nil {
			jf |= 8
			if *j.Calibrated {
				jf |= 16
			}
		}
		b = append(b, jf)
	}
	if e := r.Result.Failure; e != nil {
		b = binary.AppendVarint(b, int64(e.Code))
		var retry byte
		if e.Retryable {
			retry = 1
		}
		b = append(b, retry)
		for _, s := range [...]string{e.AssertionID, e.Message, e.Detail} {
			b = binary.AppendUvarint(b, uint64(len(s)))
			b = append(b, s...)
		}
	}
	var n [binary.MaxVarintLen64]byte
	k := binary.PutUvarint(n[:], uint64(len(b)-body))
	copy(b[start:], n[:k])
	return append(b[:start+k], b[body:]...)
}

// decodeRecord reads the fields of one record from body (its frame without
// the length).
func decodeRecord(body []byte) (Recorded, error) {
	var r Recorded
	var strs [12]string
	var ok bool
	if body, ok = readStrings(body, strs[:]); !ok {
		return r, errSpoolRecord
	}
	if len(body) < 16 {
		return r, errSpoolRecord
	}
	r.TraceID, r.Suite, r.Plugin, r.Type, r.Spec, r.CaseKey, r.AssertionKey, r.KeyLabel = strs[0], strs[1], strs[2], strs[3], strs[4], strs[9], strs[10], strs[11]
	r.Result = assert.Result{AssertionID: strs[5], Status: assert.Status(strs[6]), Explanation: strs[7], RequestID: strs[8],
		Score: math.Float64frombits(binary.BigEndian.Uint64(body)), Cost: math.Float64frombits(binary.BigEndian.Uint64(body[8:]))}
	body = body[16:]
	d, k := binary.Varint(body)
	if k <= 0 || len(body) < k+1 {
		return r, errSpoolRecord
	}
	r.Result.DurationMS = d
	body = body[k:]
	if r.Repeat, k = binary.Varint(body); k <= 0 || len(body) < k+1 {
		return r, errSpoolRecord
	}
	flags := body[k]
	body = body[k+1:]
	r.Result.Skipped, r.Result.Replayed, r.HasRepeat = flags&1 != 0, flags&2 != 0, flags&64 != 0
	if flags&4 != 0 {
		step, k := binary.Varint(body)
		if k <= 0 {
			return r, errSpoolRecord
		}
		var fs [4]string
		if body, ok = readStrings(body[k:], fs[:]); !ok {
			return r, errSpoolRecord
		}
		r.Result.FailedStep = &assert.FailedStep{Step: int(step), Location: fs[0], AgentID: fs[1], Tool: fs[2], Reason: fs[3], AtEnd: flags&8 != 0}
	}
	if flags&16 != 0 {
		var j assert.JudgeInfo
		var n [2]int64
		for i := range n {
			v, k := binary.Varint(body)
			if k <= 0 {
				return r, errSpoolRecord
			}
			n[i], body = v, body[k:]
		}
		if len(body) < 1 {
			return r, errSpoolRecord
		}
		jf := body[0]
		body = body[1:]
		j.Samples, j.Agreeing, j.Split = int(n[0]), int(n[1]), jf&1 != 0
		if jf&2 != 0 {
			v := jf&4 != 0
			j.PositionConsistent = &v
		}
		if jf&8 != 0 {
			v := jf&16 != 0
			j.Calibrated = &v
		}
		r.Result.Judge = &j
	}
	if flags&32 != 0 {
		code, k := binary.Varint(body)
		if k <= 0 || len(body) < k+1 {
			return r, errSpoolRecord
		}
		retry := body[k] == 1
		var es [3]string
		if body, ok = readStrings(body[k+1:], es[:]); !ok {
			return r, errSpoolRecord
		}
		r.Result.Failure = &assert.Failure{Code: int(code), Retryable: retry, AssertionID: es[0], Message: es[1], Detail: es[2]}
	}
	if len(body) != 0 {
		return r, errSpoolRecord
	}
	return r, nil
}

// readStrings reads len(strs) length-prefixed strings from body and returns the rest; false when body is
// too short for them.
func readStrings(body []byte, strs []string) ([]byte, bool) {
	for i := range strs {
		n, k := binary.Uvarint(body)
		if k <= 0 || n > uint64(len(body)-k) {
			return body, false
		}
		strs[i] = string(body[k : k+int(n)])
		body = body[k+int(n):]
	}
	return body, true
}

// recordSize is what a record costs held in memory: its strings and the
// struct (Recorded with its Result is 264 bytes on 64-bit systems), a
// FailedStep's (80 bytes and its strings), a judge's fields (48 bytes) and
// a Failure's (80 bytes and its strings).
func recordSize(r *Recorded) int {
	n := 264 + len(r.TraceID) + len(r.Suite) + len(r.Plugin) + len(r.Type) + len(r.Spec) + len(r.CaseKey) + len(r.AssertionKey) + len(r.KeyLabel) +
		len(r.Result.AssertionID) + len(r.Result.Status) + len(r.Result.Explanation) + len(r.Result.RequestID)
	if f := r.Result.FailedStep; f != nil {
		n += 80 + len(f.Location) + len(f.AgentID) + len(f.Tool) + len(f.Reason)
	}
	if r.Result.Judge != nil {
		n += 48
	}
	if e := r.Result.Failure; e != nil {
		n += 80 + len(e.AssertionID) + len(e.Message) + len(e.Detail)
	}
	return n
}
