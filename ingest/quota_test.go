// quota_test.go: a trace maps a bounded number of messages and decoded JSON values, whatever attribute carries them.

package ingest

import (
	"encoding/json"
	"fmt"
	"math"
	"reflect"
	"runtime"
	"strings"
	"testing"

	"attest-engine/trace"
)

// jsonList is the JSON text of a list of n elements made by elem.
func jsonList(n int, elem func(i int) string) string {
	var b strings.Builder
	b.WriteByte('[')
	for i := range n {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteString(elem(i))
	}
	b.WriteByte(']')
	return b.String()
}

// TestMessagesBounded: whatever attribute carries a trace's messages or
// tool JSON, what it maps is bounded (maxTraceEvents, quota.go): the
// rest is counted in metadata.otel.dropped_events, the trace is
// incomplete, and mapping it allocates a bounded amount, however many
// tiny values the text holds. Each text is just under maxMessageJSON
// (beyond it a text is read as text): decoded whole, the lists of tiny
// messages took 290 MiB of watch's peak RSS (TestWatchBudgetMessages).
func TestMessagesBounded(t *testing.T) {
	const n = 190000 // about 7 MB of tiny messages
	tiny := jsonList(n, func(i int) string { return fmt.Sprintf(`{"role":"user","content":"m%d"}`, i) })
	parts := `[{"role":"user","parts":` + jsonList(n, func(i int) string { return fmt.Sprintf(`{"type":"text","content":"%d"}`, i) }) + `}]`
	object := "{" + strings.TrimSuffix(strings.TrimPrefix(jsonList(n, func(i int) string { return fmt.Sprintf(`"k%d":[1]`, i) }), "["), "]") + "}"
	indexed := func(prefix string, spans int) []Span {
		var out []Span
		for s := range spans {
			attrs := map[string]any{"openinference.span.kind": "LLM"}
			if prefix == "gen_ai.prompt." {
				attrs = map[string]any{"llm.request.type": "chat"}
			}
			for k := range 512 {
				attrs[fmt.Sprintf("%s%d.%srole", prefix, k, strings.Repeat("message.", btoi(prefix != "gen_ai.prompt.")))] = "user"
				attrs[fmt.Sprintf("%s%d.%scontent", prefix, k, strings.Repeat("message.", btoi(prefix != "gen_ai.prompt.")))] = "m"
			}
			out = append(out, Span{SpanID: fmt.Sprintf("%016x", 0x100+s), Name: "llm", Start: int64(2 + s), End: int64(3 + s), Attrs: attrs})
		}
		return out
	}
	chat := func(attrs map[string]any) []Span {
		attrs["gen_ai.operation.name"] = "chat"
		return []Span{{SpanID: "0000000000000100", Name: "chat m", Start: 2, End: 3, Attrs: attrs}}
	}
	for _, c := range []struct {
		name  string
		spans []Span
		alloc int // MiB mapping may allocate at most
	}{
		{"gen_ai.input.messages", chat(map[string]any{"gen_ai.input.messages": tiny}), 64},
		{"gen_ai.output.messages", chat(map[string]any{"gen_ai.output.messages": tiny}), 64},
		{"deprecated gen_ai.prompt", chat(map[string]any{"gen_ai.prompt": tiny}), 64},
		{"one message of many parts", chat(map[string]any{"gen_ai.input.messages": parts}), 64},
		{"gen_ai.system_instructions", chat(map[string]any{"gen_ai.system_instructions": tiny, "gen_ai.input.messages": "[]"}), 64},
		{"ai.prompt.messages", []Span{{SpanID: "0000000000000100", Name: "ai.generateText.doGenerate", Start: 2, End: 3,
			Attrs: map[string]any{"ai.operationId": "ai.generateText.doGenerate", "ai.prompt.messages": tiny}}}, 64},
		{"gen_ai.tool.call.arguments", []Span{{SpanID: "0000000000000100", Name: "execute_tool t", Start: 2, End: 3,
			Attrs: map[string]any{"gen_ai.operation.name": "execute_tool", "gen_ai.tool.call.arguments": object}}}, 64},
		{"gen_ai.tool.call.result", []Span{{SpanID: "0000000000000100", Name: "execute_tool t", Start: 2, End: 3,
			Attrs: map[string]any{"gen_ai.operation.name": "execute_tool", "gen_ai.tool.call.result": tiny}}}, 64},
		{"llm.input_messages.N", indexed("llm.input_messages.", 40), 256},
		{"gen_ai.prompt.N", indexed("gen_ai.prompt.", 40), 256},
	} {
		t.Run(c.name, func(t *testing.T) {
			const tid = "5b8efff798038103d269b633813fc60c"
			in := []Span{{TraceID: tid, SpanID: "00000000000000a1", Name: "invoke_agent a", Start: 1, End: 100,
				Attrs: map[string]any{"gen_ai.operation.name": "invoke_agent"}}}
			for _, sp := range c.spans {
				sp.TraceID, sp.ParentID = tid, "00000000000000a1"
				in = append(in, sp)
			}
			feed := NewFeed(Limits{SpansPerTrace: 100, Bytes: 1 << 30}, nil, nil)
			feed.Add(Item{Spans: in, Seq: 1})
			feed.Flush()
			var before, after runtime.MemStats
			runtime.ReadMemStats(&before)
			out := take(feed)
			runtime.ReadMemStats(&after)
			if len(out) != 1 {
				t.Fatalf("%d traces", len(out))
			}
			otel := out[0].Value["metadata"].(map[string]any)["otel"].(map[string]any)
			dropped, _ := otel["dropped_events"].(json.Number)
			alloc := float64(after.TotalAlloc-before.TotalAlloc) / (1 << 20)
			t.Logf("dropped_events %v, mapping allocated %.1f MiB", dropped, alloc)
			if c.name == "gen_ai.system_instructions" { // kept as its text: nothing decoded
				if dropped != "" {
					t.Errorf("dropped_events %v; want none", dropped)
				}
			} else if !out[0].Incomplete || dropped == "" {
				t.Errorf("incomplete %v, dropped_events %v; want the trace incomplete, the rest counted", out[0].Incomplete, dropped)
			}
			if alloc > float64(c.alloc) && !raceDetector {
				t.Errorf("mapping allocated %.1f MiB; want at most %d", alloc, c.alloc)
			}
		})
	}
}

func btoi(b bool) int {
	if b {
		return 1
	}
	return 0
}

// FuzzQuotaList: for any text, reading it as a message list never panics;
// jsonNodes never counts fewer nodes than the decoded value has (so what
// is paid for is never less than what is decoded); and with room for all
// of it, a list reads as trace.Decode reads it whole, while with room for
// none nothing is decoded and every element is counted dropped.
func FuzzQuotaList(f *testing.F) {
	for _, s := range []string{`[]`, `[ ]`, `[{"role":"user","content":"a"},{"role":"tool","content":"{\"x\":[1,2]}"}]`,
		`[[], {}, [ ], { }, "a,b:[{", 1e3, null]`, `[{"a":1,"a":2}]`, `{"a":[1]}`, `["\"\\", "\u00e9"]`, `[1,`, `x`} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		q := newQuota()
		got, ok := q.list(s)
		whole, err := trace.Decode([]byte(s))
		if d, isList := whole.([]any); err == nil && isList {
			n, _ := valueNodes(whole, math.MaxInt)
			if j, _ := jsonNodes(s, math.MaxInt); j < n {
				t.Fatalf("jsonNodes %d < the %d nodes decoded of %q", j, n, s)
			}
			if n <= maxTraceEvents && (!ok || q.dropped != 0 || !reflect.DeepEqual(got, d)) {
				t.Fatalf("list(%q) = %v, %v, %d dropped; want %v", s, got, ok, q.dropped, d)
			}
			none := quota{}
			if got, ok := none.list(s); ok && (len(got) != 0 || none.dropped != len(d)) {
				t.Fatalf("with no room: %d decoded, %d dropped of %d", len(got), none.dropped, len(d))
			}
		}
		// A text trace.Decode refuses is not read as a list.
		if err != nil && ok {
			t.Fatalf("list(%q) read a text trace.Decode refuses (%v)", s, err)
		}
	})
}
