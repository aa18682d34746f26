// otlp.go: OTLP/JSON trace export requests decoded into spans: ids, times and attribute value unions.

package ingest

import (
	"bytes"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"
)

// Span is one OTLP span, normalized: ids as lower-case hex, times in
// nanoseconds since the Unix epoch, attributes as the engine's value model
// (string, bool, json.Number, []any, map[string]any, nil).
type Span struct {
	TraceID  string // 32 hex digits
	SpanID   string // 16 hex digits
	ParentID string // "" for a root span
	Name     string
	Start    int64
	End      int64
	Attrs    map[string]any
	Events   []Event
	Error    bool   // status code ERROR
	Status   string // status message
	Service  string // resource attribute service.name
	Size     int    // length of the span's JSON text: what it costs to hold
	Seq      uint64 // the input item it came in (Item.Seq)
}

// Event is a span event (older GenAI conventions carried content in events).
type Event struct {
	Name  string
	Attrs map[string]any
}

// Wire shapes of OTLP/JSON (opentelemetry-proto's JSON mapping: lowerCamelCase
// member names, 64-bit integers as decimal strings, ids as hex strings).
type exportRequest struct {
	ResourceSpans []struct {
		Resource struct {
			Attributes []keyValue `json:"attributes"`
		} `json:"resource"`
		ScopeSpans []struct {
			Spans []json.RawMessage `json:"spans"`
		} `json:"scopeSpans"`
	} `json:"resourceSpans"`
}

type wireSpan struct {
	TraceID           string     `json:"traceId"`
	SpanID            string     `json:"spanId"`
	ParentSpanID      string     `json:"parentSpanId"`
	Name              string     `json:"name"`
	StartTimeUnixNano wireUint   `json:"startTimeUnixNano"`
	EndTimeUnixNano   wireUint   `json:"endTimeUnixNano"`
	Attributes        []keyValue `json:"attributes"`
	Events            []struct {
		Name       string     `json:"name"`
		Attributes []keyValue `json:"attributes"`
	} `json:"events"`
	Status struct {
		Code    wireStatus `json:"code"`
		Message string     `json:"message"`
	} `json:"status"`
}

type keyValue struct {
	Key   string   `json:"key"`
	Value anyValue `json:"value"`
}

// anyValue is the AnyValue union: exactly one member is set.
type anyValue struct {
	StringValue *string          `json:"stringValue"`
	BoolValue   *bool            `json:"boolValue"`
	IntValue    *wireInt         `json:"intValue"`
	DoubleValue *json.RawMessage `json:"doubleValue"`
	ArrayValue  *struct {
		Values []anyValue `json:"values"`
	} `json:"arrayValue"`
	KvlistValue *struct {
		Values []keyValue `json:"values"`
	} `json:"kvlistValue"`
	BytesValue *string `json:"bytesValue"`
}

// wireUint is a uint64 sent as a decimal string (the JSON mapping) or,
// leniently, as a JSON number.
type wireUint uint64

func (u *wireUint) UnmarshalJSON(b []byte) error {
	s := strings.Trim(string(b), `"`)
	if s == "" || s == "null" {
		*u = 0
		return nil
	}
	n, err := strconv.ParseUint(s, 10, 64)
	if err != nil {
		return fmt.Errorf("time %s is not an unsigned 64-bit integer", clip(string(b)))
	}
	*u = wireUint(n)
	return nil
}

// wireInt is an int64 sent as a decimal string or a JSON number.
type wireInt string

func (i *wireInt) UnmarshalJSON(b []byte) error {
	s := strings.Trim(string(b), `"`)
	if _, err := strconv.ParseInt(s, 10, 64); err != nil {
		return fmt.Errorf("intValue %s is not a 64-bit integer", clip(string(b)))
	}
	*i = wireInt(s)
	return nil
}

// wireStatus is a status code as a number (2 is ERROR) or an enum name.
type wireStatus bool // true: ERROR

func (s *wireStatus) UnmarshalJSON(b []byte) error {
	v := strings.Trim(string(b), `"`)
	*s = v == "2" || v == "STATUS_CODE_ERROR"
	return nil
}

// maxValueDepth bounds nesting of attribute values (arrays and kvlists).
const maxValueDepth = 32

// ParseOTLP decodes one OTLP/JSON ExportTraceServiceRequest (the body of
// POST /v1/traces, or one line of a collector's file exporter) into spans.
// A span with an invalid trace or span id is an error for the whole request:
// the sender's encoding is wrong, and guessing would mis-assemble traces.
func ParseOTLP(data []byte) ([]Span, error) {
	var req exportRequest
	if err := json.Unmarshal(data, &req); err != nil {
		return nil, fmt.Errorf("OTLP/JSON: %v", err)
	}
	var spans []Span
	for _, rs := range req.ResourceSpans {
		service := ""
		if res, _ := attrMap(rs.Resource.Attributes, 0); res != nil {
			service, _ = res["service.name"].(string)
		}
		for _, ss := range rs.ScopeSpans {
			for _, raw := range ss.Spans {
				sp, err := parseSpan(raw)
				if err != nil {
					return nil, fmt.Errorf("OTLP/JSON span %d: %v", len(spans), err)
				}
				sp.Service = service
				spans = append(spans, sp)
			}
		}
	}
	return spans, nil
}

func parseSpan(raw json.RawMessage) (Span, error) {
	var w wireSpan
	if err := json.Unmarshal(raw, &w); err != nil {
		return Span{}, err
	}
	sp := Span{Name: w.Name, Start: clampNanos(w.StartTimeUnixNano), End: clampNanos(w.EndTimeUnixNano),
		Error: bool(w.Status.Code), Status: w.Status.Message, Size: len(raw)}
	var err error
	if sp.TraceID, err = decodeID(w.TraceID, 16, "traceId"); err != nil {
		return Span{}, err
	}
	if sp.SpanID, err = decodeID(w.SpanID, 8, "spanId"); err != nil {
		return Span{}, err
	}
	if w.ParentSpanID != "" {
		if sp.ParentID, err = decodeID(w.ParentSpanID, 8, "parentSpanId"); err != nil {
			return Span{}, err
		}
	}
	if sp.Attrs, err = attrMap(w.Attributes, 0); err != nil {
		return Span{}, err
	}
	for _, e := range w.Events {
		attrs, err := attrMap(e.Attributes, 0)
		if err != nil {
			return Span{}, err
		}
		sp.Events = append(sp.Events, Event{Name: e.Name, Attrs: attrs})
	}
	return sp, nil
}

func clampNanos(u wireUint) int64 {
	if u > math.MaxInt64 {
		return math.MaxInt64
	}
	return int64(u)
}

// decodeID accepts the OTLP/JSON hex form and, because some exporters
// use protobuf's generic JSON mapping for bytes, base64 (standard or URL
// alphabet, padded or not). The length tells them apart: 2n hex digits
// against ceil(4n/3) base64 characters for an n-byte id.
func decodeID(s string, n int, field string) (string, error) {
	if len(s) == 2*n {
		if b, err := hex.DecodeString(s); err == nil {
			if allZero(b) {
				return "", fmt.Errorf("%s is all zeros (an invalid id)", field)
			}
			return hex.EncodeToString(b), nil
		}
	}
	if len(s) <= 4*n/3+4 {
		t := strings.TrimRight(s, "=")
		for _, enc := range []*base64.Encoding{base64.RawStdEncoding, base64.RawURLEncoding} {
			if b, err := enc.DecodeString(t); err == nil && len(b) == n {
				if allZero(b) {
					return "", fmt.Errorf("%s is all zeros (an invalid id)", field)
				}
				return hex.EncodeToString(b), nil
			}
		}
	}
	return "", fmt.Errorf("%s %s is neither %d hex digits nor base64 of %d bytes", field, clip(strconv.Quote(s)), 2*n, n)
}

func allZero(b []byte) bool { return len(bytes.Trim(b, "\x00")) == 0 }

// attrMap turns a key-value list into a map; a repeated key keeps the last
// value (the collector's behaviour when it builds a map from the list).
func attrMap(kvs []keyValue, depth int) (map[string]any, error) {
	if len(kvs) == 0 {
		return nil, nil
	}
	m := make(map[string]any, len(kvs))
	for _, kv := range kvs {
		v, err := kv.Value.value(depth + 1)
		if err != nil {
			return nil, fmt.Errorf("attribute %s: %v", clip(strconv.Quote(kv.Key)), err)
		}
		m[kv.Key] = v
	}
	return m, nil
}

var errDepth = errors.New("attribute value nested too deeply")

// value converts the union to the engine's value model. doubleValue may be
// a number or, as proto3 JSON allows, "NaN", "Infinity" or "-Infinity",
// which JSON cannot carry: they become null. bytesValue stays its base64
// text.
func (a anyValue) value(depth int) (any, error) {
	if depth > maxValueDepth {
		return nil, errDepth
	}
	switch {
	case a.StringValue != nil:
		return *a.StringValue, nil
	case a.BoolValue != nil:
		return *a.BoolValue, nil
	case a.IntValue != nil:
		return json.Number(*a.IntValue), nil
	case a.DoubleValue != nil:
		var f float64
		if err := json.Unmarshal(*a.DoubleValue, &f); err != nil {
			return nil, nil
		}
		return json.Number(strconv.FormatFloat(f, 'g', -1, 64)), nil
	case a.ArrayValue != nil:
		out := make([]any, len(a.ArrayValue.Values))
		for i, v := range a.ArrayValue.Values {
			x, err := v.value(depth + 1)
			if err != nil {
				return nil, err
			}
			out[i] = x
		}
		return out, nil
	case a.KvlistValue != nil:
		m, err := attrMap(a.KvlistValue.Values, depth)
		if m == nil && err == nil {
			m = map[string]any{}
		}
		return m, err
	case a.BytesValue != nil:
		return *a.BytesValue, nil
	}
	return nil, nil
}

// clip shortens text quoted in an error message.
func clip(s string) string {
	if len(s) > 80 {
		return s[:77] + "..."
	}
	return s
}
