// otlp_ref_test.go: the OTLP/JSON decoder as it was before lists were walked (each list decoded into a
// slice), kept as the reference the walk must agree with.

package ingest

import (
	"encoding/json"
	"fmt"
	"strconv"
	"testing"

	"github.com/google/go-cmp/cmp"
)

type refRequest struct {
	ResourceSpans []struct {
		Resource struct {
			Attributes []refKeyValue `json:"attributes"`
		} `json:"resource"`
		ScopeSpans []struct {
			Spans []json.RawMessage `json:"spans"`
		} `json:"scopeSpans"`
	} `json:"resourceSpans"`
}

type refSpan struct {
	TraceID           string   `json:"traceId"`
	SpanID            string   `json:"spanId"`
	ParentSpanID      string   `json:"parentSpanId"`
	Name              string   `json:"name"`
	StartTimeUnixNano wireUint `json:"startTimeUnixNano"`
	EndTimeUnixNano   wireUint `json:"endTimeUnixNano"`
	Status            struct {
		Code    wireStatus `json:"code"`
		Message string     `json:"message"`
	} `json:"status"`
	Attributes []refKeyValue `json:"attributes"`
	Events     []struct {
		Name         string        `json:"name"`
		TimeUnixNano wireUint      `json:"timeUnixNano"`
		Attributes   []refKeyValue `json:"attributes"`
	} `json:"events"`
}

type refKeyValue struct {
	Key   string   `json:"key"`
	Value refValue `json:"value"`
}

type refValue struct {
	StringValue *string          `json:"stringValue"`
	BoolValue   *bool            `json:"boolValue"`
	IntValue    *wireInt         `json:"intValue"`
	DoubleValue *json.RawMessage `json:"doubleValue"`
	ArrayValue  *struct {
		Values []refValue `json:"values"`
	} `json:"arrayValue"`
	KvlistValue *struct {
		Values []refKeyValue `json:"values"`
	} `json:"kvlistValue"`
	BytesValue *string `json:"bytesValue"`
}

// refParse is ParseOTLP as it was, but for the events: it keeps those the mapping reads, as ParseOTLP
// does now.
func refParse(data []byte) ([]Span, error) {
	var req refRequest
	if err := json.Unmarshal(data, &req); err != nil {
		return nil, fmt.Errorf("OTLP/JSON: %v", err)
	}
	var spans []Span
	for _, rs := range req.ResourceSpans {
		service := ""
		if res, _ := refAttrMap(rs.Resource.Attributes, 0); res != nil {
			service, _ = res["service.name"].(string)
		}
		for _, ss := range rs.ScopeSpans {
			for _, raw := range ss.Spans {
				sp, err := refParseSpan(raw)
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

func refParseSpan(raw json.RawMessage) (Span, error) {
	var w refSpan
	if err := json.Unmarshal(raw, &w); err != nil {
		return Span{}, err
	}
	sp := Span{Name: w.Name, Start: clampNanos(w.StartTimeUnixNano), End: clampNanos(w.EndTimeUnixNano),
		Error: bool(w.Status.Code), Status: w.Status.Message}
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
	if sp.Attrs, err = refAttrMap(w.Attributes, 0); err != nil {
		return Span{}, err
	}
	var found [len(deprecatedNames)]bool
	for _, e := range w.Events {
		attrs, err := refAttrMap(e.Attributes, 0)
		if err != nil {
			return Span{}, err
		}
		if len(sp.Events) >= maxKeptEvents {
			continue
		}
		at := clampNanos(e.TimeUnixNano)
		if genaiEvents[e.Name] {
			sp.Events = append(sp.Events, Event{Name: e.Name, Time: at, Attrs: attrs})
			continue
		}
		for i, old := range deprecatedNames {
			if v := attrs[old]; v != nil && !found[i] {
				found[i] = true
				sp.Events = append(sp.Events, Event{Name: e.Name, Time: at, Attrs: map[string]any{old: v}})
			}
		}
	}
	sp.Size = spanHeld(&sp)
	return sp, nil
}

func refAttrMap(kvs []refKeyValue, depth int) (map[string]any, error) {
	if len(kvs) == 0 {
		return nil, nil
	}
	m := make(map[string]any, len(kvs))
	for _, kv := range kvs {
		v, err := kv.Value.value(depth + 1)
		if err != nil {
			return nil, fmt.Errorf("attribute %q: %v", kv.Key, err)
		}
		m[kv.Key] = v
	}
	return m, nil
}

func (a refValue) value(depth int) (any, error) {
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
		m, err := refAttrMap(a.KvlistValue.Values, depth)
		if m == nil && err == nil {
			m = map[string]any{}
		}
		return m, err
	case a.BytesValue != nil:
		return *a.BytesValue, nil
	}
	return nil, nil
}

// FuzzOTLPWalk: walking a request's lists in place reads what decoding them into slices read: the same
// spans, or an error for both. The seeds are the golden inputs and bodies with the shapes the walk handles
// apart: repeated and case-folded member names, escapes, nulls, long spans.
func FuzzOTLPWalk(f *testing.F) {
	seeds(f)
	span := `{"traceId":"5b8efff798038103d269b633813fc60c","spanId":"eee19b7ec3c1b175","name":"chat m","attributes":[{"key":"gen_ai.operation.name","value":{"stringValue":"chat"}}],"events":[{"name":"gen_ai.content.prompt","attributes":[{"key":"gen_ai.prompt","value":{"stringValue":"hi"}}]},{"attributes":[{"key":"gen_ai.prompt","value":{"stringValue":"later"}},{"key":"gen_ai.system","value":{"stringValue":"openai"}}]}]}`
	for _, s := range []string{
		`{"resourceSpans":[{"resource":{"attributes":[{"key":"service.name","value":{"stringValue":"svc"}}]},"scopeSpans":[{"spans":[` + span + `]}]}]}`,
		`{"ResourceSpans":[{"RESOURCE":{"Attributes":[{"Key":"service.name","Value":{"StringValue":"svc"}}]},"scopespans":[{"Spans":[` + span + `]}]}]}`,
		`{"resource\u0053pans":[{"scopeSpans":[{"spans":[` + span + `]}]}],"resourceSpans":null}`,
		`{"resourceSpans":[{"scopeSpans":[{"spans":[` + span + `]}]}],"resourceSpans":[{"scopeSpans":[{"spans":[]}]}]}`,
		`{"resourceSpans":[null,{"resource":null,"scopeSpans":[null,{"spans":null}]}]}`,
		`{"resourceSpans":[{"resource":{"attributes":[{"key":"a","value":{"kvlistValue":{"values":[{"key":"b","value":{"arrayValue":{"values":[{},{"intValue":"7"}]}}}]}}}]},"scopeSpans":[]}]}`,
		`{"resourceSpans":[{"resource":[],"scopeSpans":[]}]}`,
		`{"resourceSpans":{"scopeSpans":[]}}`,
		` { "resourceSpans" : [ { "scopeSpans" : [ { "spans" : [ ` + span + ` , ` + span + ` ] } ] } ] } `,
		`{"resourceSpans":[{"scopeSpans":[{"spans":[` + span[:len(span)-1] + `,"pad":"` + string(make([]byte, 0)) + fmt.Sprintf("%070000d", 0) + `"}]}]}]}`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		if repeatsName(data) {
			// A repeated member name (or two equal without regard to case)
			// is refused (names.go), where encoding/json keeps the last.
			if _, err := ParseOTLP(data); err == nil {
				t.Fatalf("a body that repeats a member name parsed: %q", data)
			}
			return
		}
		got, err := ParseOTLP(data)
		want, werr := refParse(data)
		if (err == nil) != (werr == nil) {
			t.Fatalf("walked: error %v; decoded into slices: error %v", err, werr)
		}
		if err == nil {
			if diff := cmp.Diff(want, got); diff != "" {
				t.Fatalf("spans differ (-slices +walked):\n%s", diff)
			}
		}
	})
}
