// export_test.go: --export-otlp round trip: results sent to a loopback receiver decode as gen_ai.evaluation.result events, one per result, parented to the evaluated span.

package watch

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// The OTLP/JSON log request as a strict decoder reads it: an unknown
// member name fails the decoding.
type (
	otlpLogs struct {
		ResourceLogs []struct {
			Resource struct {
				Attributes []otlpKV `json:"attributes"`
			} `json:"resource"`
			ScopeLogs []struct {
				Scope struct {
					Name    string `json:"name"`
					Version string `json:"version"`
				} `json:"scope"`
				LogRecords []struct {
					TimeUnixNano         string   `json:"timeUnixNano"`
					ObservedTimeUnixNano string   `json:"observedTimeUnixNano"`
					SeverityNumber       int      `json:"severityNumber"`
					SeverityText         string   `json:"severityText"`
					EventName            string   `json:"eventName"`
					TraceID              string   `json:"traceId"`
					SpanID               string   `json:"spanId"`
					Attributes           []otlpKV `json:"attributes"`
				} `json:"logRecords"`
			} `json:"scopeLogs"`
		} `json:"resourceLogs"`
	}
	otlpKV struct {
		Key   string `json:"key"`
		Value struct {
			StringValue *string  `json:"stringValue"`
			DoubleValue *float64 `json:"doubleValue"`
		} `json:"value"`
	}
)

// event is a record reduced to what the test compares.
type event struct {
	Trace, Span, Name, Label, Explanation string
	Score                                 *float64
}

func decodeEvents(t *testing.T, body []byte) []event {
	t.Helper()
	dec := json.NewDecoder(bytes.NewReader(body))
	dec.DisallowUnknownFields()
	var req otlpLogs
	if err := dec.Decode(&req); err != nil {
		t.Fatalf("not an OTLP/JSON log request: %v\n%s", err, body)
	}
	var out []event
	for _, rl := range req.ResourceLogs {
		for _, sl := range rl.ScopeLogs {
			for _, r := range sl.LogRecords {
				if r.EventName != "gen_ai.evaluation.result" || r.TimeUnixNano == "" {
					t.Errorf("record named %q at %q", r.EventName, r.TimeUnixNano)
				}
				e := event{Trace: r.TraceID, Span: r.SpanID}
				for _, a := range r.Attributes {
					s := ""
					if a.Value.StringValue != nil {
						s = *a.Value.StringValue
					}
					switch a.Key {
					case "gen_ai.evaluation.name":
						e.Name = s
					case "gen_ai.evaluation.score.label":
						e.Label = s
					case "gen_ai.evaluation.score.value":
						e.Score = a.Value.DoubleValue
					case "gen_ai.evaluation.explanation":
						e.Explanation = s
					}
				}
				out = append(out, e)
			}
		}
	}
	return out
}

// TestExportOTLP: with --export-otlp each result line is one
// gen_ai.evaluation.result event with the trace's id and the evaluated
// span's id (the trace's top span), the assertion's name, the status as
// label, the score (none for a skipped result) and the explanation; a 503
// is retried; with --export-otlp-file the same requests are lines.
func TestExportOTLP(t *testing.T) {
	var mu sync.Mutex
	var bodies [][]byte
	calls := 0
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		mu.Lock()
		defer mu.Unlock()
		calls++
		if calls == 1 || r.URL.Path != "/v1/logs" || r.Header.Get("Content-Type") != "application/json" {
			w.Header().Set("Retry-After", "0")
			w.WriteHeader(http.StatusServiceUnavailable)
			return
		}
		bodies = append(bodies, b)
		io.WriteString(w, "{}")
	}))
	defer srv.Close()
	file := filepath.Join(t.TempDir(), "events.jsonl")
	input, err := os.ReadFile("../testdata/ingest/weather_events_logs.input.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	var out, errb bytes.Buffer
	code := RunEnv(context.Background(), []string{"--suite", "../testdata/watch/otel-suite.json", "--deterministic", "--export-otlp", srv.URL + "/v1/logs", "--export-otlp-file", file},
		bytes.NewReader(input), &out, &errb, testEnv(nil))
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errb.String())
	}
	var want []event
	dec := json.NewDecoder(&out)
	for dec.More() {
		var r Result
		if err := dec.Decode(&r); err != nil {
			t.Fatal(err)
		}
		e := event{Trace: r.TraceID, Span: "a000000000000001", Name: r.Assertion, Label: r.Status, Explanation: r.Explanation}
		if r.Status != StatusSkipped {
			e.Score = &r.Score
		}
		want = append(want, e)
	}
	if len(want) != 4 {
		t.Fatalf("%d result lines, want 4", len(want))
	}
	mu.Lock()
	defer mu.Unlock()
	if len(bodies) != 1 || calls != 2 {
		t.Fatalf("%d requests delivered in %d calls, want one (the trace's) after one 503", len(bodies), calls)
	}
	if diff := cmp.Diff(want, decodeEvents(t, bodies[0])); diff != "" {
		t.Errorf("events differ from the result lines (-lines +events):\n%s", diff)
	}
	lines, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	if n := strings.Count(string(lines), "\n"); n != 1 {
		t.Fatalf("%d lines in --export-otlp-file, want 1", n)
	}
	if diff := cmp.Diff(want, decodeEvents(t, lines)); diff != "" {
		t.Errorf("file events differ from the result lines (-lines +events):\n%s", diff)
	}
}
