// held_test.go: Span.Size, the estimate every bound on held spans counts, against the heap decoded spans really take.

package ingest

import (
	"fmt"
	"runtime"
	"strings"
	"testing"
)

// heldBody is an OTLP/JSON request of n spans, each with the given
// attributes (JSON of the attributes list's elements, %d replaced by the
// span's index).
func heldBody(n int, attrs string) []byte {
	var b strings.Builder
	b.WriteString(`{"resourceSpans":[{"resource":{"attributes":[{"key":"service.name","value":{"stringValue":"svc"}}]},"scopeSpans":[{"spans":[`)
	for i := range n {
		if i > 0 {
			b.WriteByte(',')
		}
		fmt.Fprintf(&b, `{"traceId":"%032x","spanId":"%016x","parentSpanId":"%016x","name":"chat gpt-4.1","startTimeUnixNano":"1","endTimeUnixNano":"2","attributes":[%s]}`,
			i+1, i+1, i+2, strings.ReplaceAll(attrs, "%d", fmt.Sprint(i)))
	}
	b.WriteString(`]}]}]}`)
	return []byte(b.String())
}

// TestHeldEstimate: the spans of bodies of many shapes hold between 0.6
// and 1.3 times what their Size fields add up to, so that a bound counted
// in Size bounds the heap: the estimate errs on the side of counting more.
func TestHeldEstimate(t *testing.T) {
	kvs := func(n int, v string) string {
		var parts []string
		for k := range n {
			parts = append(parts, fmt.Sprintf(`{"key":"attr.%d","value":%s}`, k, v))
		}
		return strings.Join(parts, ",")
	}
	for _, c := range []struct {
		name  string
		n     int
		attrs string
	}{
		{"no attributes", 50000, ``},
		{"GenAI model call", 20000, `{"key":"gen_ai.operation.name","value":{"stringValue":"chat"}},{"key":"gen_ai.request.model","value":{"stringValue":"gpt-4.1"}},{"key":"gen_ai.usage.input_tokens","value":{"intValue":"400"}},{"key":"gen_ai.usage.output_tokens","value":{"intValue":"50"}}`},
		{"30 string attributes", 3000, kvs(30, `{"stringValue":"value %d"}`)},
		{"an array of 500 ints", 300, `{"key":"a","value":{"arrayValue":{"values":[` + strings.Repeat(`{"intValue":"12345"},`, 499) + `{"intValue":"1"}]}}}`},
		{"a 20 KB string", 300, `{"key":"gen_ai.output.messages","value":{"stringValue":"` + strings.Repeat("x", 20000) + `"}}`},
		{"nested key-value lists", 2000, `{"key":"k","value":{"kvlistValue":{"values":[` + kvs(12, `{"kvlistValue":{"values":[{"key":"x","value":{"boolValue":true}}]}}`) + `]}}}`},
	} {
		body := heldBody(c.n, c.attrs)
		var spans []Span
		var err error
		_, held := peakHeap(func() { spans, err = ParseOTLP(body) })
		if err != nil || len(spans) != c.n {
			t.Fatalf("%s: %d spans, error %v", c.name, len(spans), err)
		}
		counted := 0
		for _, sp := range spans {
			counted += sp.Size
		}
		ratio := float64(held) / float64(counted)
		t.Logf("%-24s %6d spans: held %8.1f KiB, counted %8.1f KiB: %.2f×", c.name, c.n, float64(held)/1024, float64(counted)/1024, ratio)
		if ratio < 0.6 || ratio > 1.3 {
			t.Errorf("%s: the spans hold %.2f× what their Size counts; want 0.6 to 1.3", c.name, ratio)
		}
		runtime.KeepAlive(spans)
		runtime.KeepAlive(body) // in the heap before peakHeap began: freed, it would go out of held
	}
}

// heldLogsBody is an OTLP/JSON logs request of n GenAI event records, one
// span each (so each record is a carrier of its own), named by the
// eventName field or by the event.name attribute.
func heldLogsBody(n int, byAttr bool) []byte {
	var b strings.Builder
	b.WriteString(`{"resourceLogs":[{"resource":{"attributes":[{"key":"service.name","value":{"stringValue":"svc"}}]},"scopeLogs":[{"logRecords":[`)
	for i := range n {
		if i > 0 {
			b.WriteByte(',')
		}
		name := `"eventName":"gen_ai.user.message",`
		attrs := `{"key":"gen_ai.system","value":{"stringValue":"openai"}}`
		if byAttr {
			name, attrs = "", `{"key":"event.name","value":{"stringValue":"gen_ai.user.message"}},`+attrs
		}
		fmt.Fprintf(&b, `{"timeUnixNano":"%d","traceId":"%032x","spanId":"%016x",%s"attributes":[%s],"body":{"kvlistValue":{"values":[{"key":"content","value":{"stringValue":"what is the weather in Paris, order %d? %s"}}]}}}`,
			i+1, i+1, i+1, name, attrs, i, strings.Repeat("x", 1000))
	}
	b.WriteString(`]}]}]}`)
	return []byte(b.String())
}

// TestHeldEstimateLogs: log records, carried as spans, hold between 0.6 and
// 1.3 times their Size too, whether their attributes and body are packed
// as text (named by eventName) or held as the value model (named by the
// event.name attribute): they count against the same byte bounds as spans.
func TestHeldEstimateLogs(t *testing.T) {
	for _, byAttr := range []bool{false, true} {
		const n = 10000
		body := heldLogsBody(n, byAttr)
		var spans []Span
		var err error
		_, held := peakHeap(func() { spans, err = ParseOTLPLogs(body) })
		if err != nil || len(spans) != n {
			t.Fatalf("event.name attribute %v: %d carriers, error %v", byAttr, len(spans), err)
		}
		counted := 0
		for _, sp := range spans {
			counted += sp.Size
		}
		ratio := float64(held) / float64(counted)
		t.Logf("event.name attribute %-5v %6d records: held %8.1f KiB, counted %8.1f KiB: %.2f×", byAttr, n, float64(held)/1024, float64(counted)/1024, ratio)
		if ratio < 0.6 || ratio > 1.3 {
			t.Errorf("event.name attribute %v: the records hold %.2f× what their Size counts; want 0.6 to 1.3", byAttr, ratio)
		}
		runtime.KeepAlive(spans)
		runtime.KeepAlive(body)
	}
}
