// json_bench_test.go: Decode against encoding/json on the spec's batch line and generated ~1 MB and ~10 MB traces.

package trace

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"strconv"
	"strings"
	"testing"
)

// benchTrace renders a trace of about size bytes: spec-shaped steps with
// numbers, escapes, non-ASCII text and nested results.
func benchTrace(size int) []byte {
	var b bytes.Buffer
	b.WriteString(`{"schema_version":1,"trace_id":"trc_bench","agent_id":"customer-service-agent",` +
		`"input":{"user_message":"I want a refund for order ORD-123","context":{}},"steps":[`)
	for i := 0; b.Len() < size; i++ {
		if i > 0 {
			b.WriteByte(',')
		}
		fmt.Fprintf(&b, `{"type":"tool_call","name":"lookup_order_%d","args":{"order_id":"ORD-%d","amount":%d.99,"query":"caf\u00e9 \"quoted\"\n","tags":["a","b","ünïcödé"]},`+
			`"result":{"status":"delivered","amount":89.99,"eligible_for_refund":true,"items":[{"sku":"SKU-%d","qty":2,"price":1.5e2},{"sku":"X","qty":1,"price":-0.25}],"note":%s},`+
			`"metadata":{"duration_ms":%d,"cost_usd":0.003}}`, i, i, i, i, strconv.Quote(strings.Repeat("lorem ipsum ", i%20)), i%1000)
	}
	b.WriteString(`],"output":{"message":"Your refund of $89.99 has been processed."},` +
		`"metadata":{"total_tokens":1350,"timestamp":"2026-02-18T10:30:00Z"},"parent_trace_id":null}`)
	return b.Bytes()
}

// BenchmarkDecode: the spec's refund batch line (what every request costs),
// and generated ~1 MB and ~10 MB traces (cost per byte as traces grow).
func BenchmarkDecode(b *testing.B) {
	session, err := os.ReadFile("../testdata/session.jsonl")
	if err != nil {
		b.Fatal(err)
	}
	inputs := []struct {
		name string
		data []byte
	}{
		{"refund-line", bytes.Split(session, []byte("\n"))[1]},
		{"1MB", benchTrace(1 << 20)},
		{"10MB", benchTrace(10 << 20)},
	}
	for _, in := range inputs {
		data, name := in.data, in.name
		b.Run("Decode/"+name, func(b *testing.B) {
			b.SetBytes(int64(len(data)))
			b.ReportAllocs()
			for b.Loop() {
				if _, err := Decode(data); err != nil {
					b.Fatal(err)
				}
			}
		})
		b.Run("json.Unmarshal/"+name, func(b *testing.B) {
			b.SetBytes(int64(len(data)))
			b.ReportAllocs()
			for b.Loop() {
				var v any
				if err := json.Unmarshal(data, &v); err != nil {
					b.Fatal(err)
				}
			}
		})
		b.Run("json.Decoder.UseNumber/"+name, func(b *testing.B) {
			b.SetBytes(int64(len(data)))
			b.ReportAllocs()
			for b.Loop() {
				var v any
				dec := json.NewDecoder(bytes.NewReader(data))
				dec.UseNumber()
				if err := dec.Decode(&v); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
