// encode.go: compact response lines built by hand: no reflection on the hot path.

package rpc

import (
	"encoding/json"
	"math"
	"strconv"

	"attest-engine/assert"
	"attest-engine/jsonstr"
)

// appendHead starts a response line: {"jsonrpc":"2.0","id":<id>,
func appendHead(b []byte, id any) []byte {
	b = append(b, `{"jsonrpc":"2.0","id":`...)
	return appendID(b, id)
}

// appendID echoes an id exactly as sent: a number keeps its original text.
func appendID(b []byte, id any) []byte {
	switch v := id.(type) {
	case json.Number:
		return append(b, v...)
	case string:
		return appendString(b, v)
	default:
		return append(b, "null"...)
	}
}

func encodeError(id any, e *Error) []byte {
	b := appendHead(make([]byte, 0, 256), id)
	b = append(b, `,"error":{"code":`...)
	b = strconv.AppendInt(b, int64(e.Code), 10)
	b = append(b, `,"message":`...)
	b = appendString(b, e.Message)
	b = append(b, `,"data":{"error_type":`...)
	b = appendString(b, errorType(e.Code))
	b = append(b, `,"retryable":`...)
	b = strconv.AppendBool(b, e.Retryable)
	b = append(b, `,"detail":`...)
	b = appendString(b, e.Detail)
	return append(b, "}}}\n"...)
}

// encodeResults builds the evaluate_batch result (spec §2.2, response).
func encodeResults(b []byte, id any, results []assert.Result, totalMS int64) []byte {
	b = appendHead(b, id)
	b = append(b, `,"result":{"results":[`...)
	total := 0.0
	for i, r := range results {
		if i > 0 {
			b = append(b, ',')
		}
		b = appendResult(b, r)
		total += r.Cost
	}
	b = append(b, `],"total_cost":`...)
	b = appendFloat(b, total)
	b = append(b, `,"total_duration_ms":`...)
	b = strconv.AppendInt(b, totalMS, 10)
	return append(b, "}}\n"...)
}

func appendResult(b []byte, r assert.Result) []byte {
	b = append(b, `{"assertion_id":`...)
	b = appendString(b, r.AssertionID)
	b = append(b, `,"status":`...)
	b = appendString(b, string(r.Status))
	b = append(b, `,"score":`...)
	b = appendFloat(b, r.Score)
	b = append(b, `,"explanation":`...)
	b = appendString(b, r.Explanation)
	b = append(b, `,"cost":`...)
	b = appendFloat(b, r.Cost)
	b = append(b, `,"duration_ms":`...)
	b = strconv.AppendInt(b, r.DurationMS, 10)
	if r.RequestID != "" {
		b = append(b, `,"request_id":`...)
		b = appendString(b, r.RequestID)
	}
	if r.Skipped {
		b = append(b, `,"skipped":true`...)
	}
	if r.Judge != nil {
		b = appendJudge(b, r.Judge)
	}
	if f := r.FailedStep; f != nil {
		// Additive (spec §6 item 1): where a failing trajectory check's
		// trajectory departs from what was asked (package trajectory).
		b = append(b, `,"failed_step":{"step":`...)
		b = strconv.AppendInt(b, int64(f.Step), 10)
		b = append(b, `,"location":`...)
		b = appendString(b, f.Location)
		if f.AgentID != "" {
			b = append(b, `,"agent_id":`...)
			b = appendString(b, f.AgentID)
		}
		if f.Tool != "" {
			b = append(b, `,"tool":`...)
			b = appendString(b, f.Tool)
		}
		if f.AtEnd {
			b = append(b, `,"at_end":true`...)
		}
		b = append(b, `,"reason":`...)
		b = appendString(b, f.Reason)
		b = append(b, '}')
	}
	return append(b, '}')
}

// appendJudge writes a judge result's additive fields (docs/protocol.md):
// "samples" and "agreeing" when more than one verdict was drawn or the
// judge is pairwise, "split" when true, "position_consistent" for a
// pairwise judge, "calibrated" under require_calibration.
func appendJudge(b []byte, j *assert.JudgeInfo) []byte {
	if j.Samples > 0 {
		b = append(b, `,"samples":`...)
		b = strconv.AppendInt(b, int64(j.Samples), 10)
		b = append(b, `,"agreeing":`...)
		b = strconv.AppendInt(b, int64(j.Agreeing), 10)
	}
	if j.Split {
		b = append(b, `,"split":true`...)
	}
	if j.PositionConsistent != nil {
		b = append(b, `,"position_consistent":`...)
		b = strconv.AppendBool(b, *j.PositionConsistent)
	}
	if j.Calibrated != nil {
		b = append(b, `,"calibrated":`...)
		b = strconv.AppendBool(b, *j.Calibrated)
	}
	return b
}

func appendStrings(b []byte, list []string) []byte {
	b = append(b, '[')
	for i, s := range list {
		if i > 0 {
			b = append(b, ',')
		}
		b = appendString(b, s)
	}
	return append(b, ']')
}

// appendFloat writes a float the way the spec's examples do: always with a
// decimal point or exponent (1.0, 0.0067), so typed SDKs read a float.
func appendFloat(b []byte, f float64) []byte {
	switch {
	case math.IsNaN(f) || math.IsInf(f, 0):
		return append(b, "0.0"...)
	case f == 1: // a score
		return append(b, "1.0"...)
	case f == 0 && !math.Signbit(f): // a cost or score
		return append(b, "0.0"...)
	}
	start := len(b)
	if a := math.Abs(f); a != 0 && (a < 1e-6 || a >= 1e21) {
		b = strconv.AppendFloat(b, f, 'e', -1, 64)
	} else {
		b = strconv.AppendFloat(b, f, 'f', -1, 64)
	}
	for _, c := range b[start:] {
		if c == '.' || c == 'e' {
			return b
		}
	}
	return append(b, ".0"...)
}

// appendString writes s as a JSON string (package jsonstr: as
// encoding/json writes it, U+2028/U+2029 escaped so a line is safe for any
// JSON reader).
func appendString(b []byte, s string) []byte { return jsonstr.Append(b, s) }
