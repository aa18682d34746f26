package ingest

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"os"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"

	"attest-engine/trace"
)

func seeds(f *testing.F) {
	inputs, _ := filepath.Glob(filepath.Join(dir, "*.input.jsonl"))
	for _, in := range inputs {
		data, err := os.ReadFile(in)
		if err != nil {
			f.Fatal(err)
		}
		for line := range bytes.SplitSeq(data, []byte("\n")) {
			f.Add(line)
		}
	}
	f.Add([]byte(`{"resourceSpans":[{"scopeSpans":[{"spans":[{"traceId":"5b8efff798038103d269b633813fc60c","spanId":"eee19b7ec3c1b174","parentSpanId":"eee19b7ec3c1b174"}]}]}]}`))
	f.Add([]byte(`{"schema_version":1,"trace_id":"t","output":{"a":1},"steps":[{"type":"llm_call","name":"x"}]}`))
}

// FuzzOTLP: any request either fails to parse with an error or assembles
// into traces that pass the engine's own validation, within the bounds.
func FuzzOTLP(f *testing.F) {
	seeds(f)
	f.Fuzz(func(t *testing.T, data []byte) {
		spans, err := ParseOTLP(data)
		checkChunked(t, data, spans, err, ParseOTLPChunks)
		if err != nil {
			return
		}
		feed := NewFeed(Limits{OpenTraces: 4, SpansPerTrace: 64}, nil, nil)
		feed.Add(Item{Spans: spans})
		feed.Flush()
		traces := take(feed)
		for _, tr := range traces {
			if _, verr := trace.Validate(tr.Value, trace.Options{Strict: true}); verr != nil && encodedSize(t, tr.Value) <= trace.MaxTraceBytes {
				t.Fatalf("trace %s fails validation: %v", tr.ID, verr)
			}
			checkAppendJSON(t, tr.Value)
		}
	})
}

// checkChunked: decoding data in chunks (of one span each, and of 4 KiB)
// fails exactly when the whole decode does, with its error and no span
// handed on, and otherwise hands on the same spans in order.
func checkChunked(t *testing.T, data []byte, whole []Span, wholeErr error, chunks func([]byte, int, func([]Span, bool) error) error) {
	t.Helper()
	for _, max := range []int{1, 4 << 10} {
		var got []Span
		err := chunks(data, max, func(spans []Span, _ bool) error {
			got = append(got, spans...)
			return nil
		})
		if (err != nil) != (wholeErr != nil) || (err != nil && err.Error() != wholeErr.Error()) {
			t.Fatalf("chunks of %d: error %v, the whole decode's %v", max, err, wholeErr)
		}
		if err != nil && len(got) > 0 {
			t.Fatalf("chunks of %d: %d spans handed on from a request that does not decode", max, len(got))
		}
		if diff := cmp.Diff(whole, got); err == nil && diff != "" {
			t.Fatalf("chunks of %d differ from the whole decode (-whole +chunks):\n%s", max, diff)
		}
	}
}

// encodedSize is the length of v's compact encoding, HTML escaping off: the
// size spec §7 limits.
func encodedSize(t *testing.T, v any) int {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		t.Fatal(err)
	}
	return b.Len() - 1 // Encode ends with a newline
}

// FuzzReader: any input reads to EOF without a panic, each line an item.
func FuzzReader(f *testing.F) {
	seeds(f)
	f.Fuzz(func(t *testing.T, data []byte) {
		r := NewReader(bytes.NewReader(data), FormatAuto, 1<<12)
		for range 1 << 16 {
			it, err := r.Next()
			if errors.Is(err, io.EOF) {
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if tr := it.Trace; tr != nil && tr.Err == nil {
				if tr.Doc == nil {
					t.Fatal("a trace item with neither document nor error")
				}
				v, _ := tr.Doc.Root().Any().(map[string]any)
				if id, _ := v["trace_id"].(string); id != tr.ID {
					t.Fatalf("ID %q, trace_id %q", tr.ID, id)
				}
				if agent, _ := v["agent_id"].(string); agent != tr.AgentID {
					t.Fatalf("AgentID %q, agent_id %q", tr.AgentID, agent)
				}
			}
		}
		t.Fatal("more items than lines")
	})
}
