// bench_test.go: Parse against encoding/json and trace.Decode on the spec's batch line and a generated 10 MB trace.

package tape_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"strconv"
	"strings"
	"testing"

	"attest-engine/tape"
	"attest-engine/trace"
)

// bigTrace renders a trace of about size bytes: spec-shaped steps with
// numbers, escapes, non-ASCII text, long strings and nested results.
func bigTrace(size int) []byte {
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

// BenchmarkParse: Parse alone (what checking a line costs), Parse then Any
// of the root (what building the old value model on top costs), and for
// comparison encoding/json's Valid and Unmarshal into any, and trace.Decode
// (the engine's value-model decoder: its own one-pass decoder before tape,
// Parse + Any since), on the spec's refund batch line (the second line of
// testdata/session.jsonl) and a generated 10 MB trace.
func BenchmarkParse(b *testing.B) {
	session, err := os.ReadFile("../testdata/session.jsonl")
	if err != nil {
		b.Fatal(err)
	}
	inputs := []struct {
		name string
		data []byte
	}{
		{"refund-line", bytes.Split(session, []byte("\n"))[1]},
		{"10MB", bigTrace(10 << 20)},
	}
	for _, in := range inputs {
		data := in.data
		run := func(name string, f func() error) {
			b.Run(name+"/"+in.name, func(b *testing.B) {
				b.SetBytes(int64(len(data)))
				b.ReportAllocs()
				for b.Loop() {
					if err := f(); err != nil {
						b.Fatal(err)
					}
				}
			})
		}
		run("tape.Parse", func() error {
			d, err := tape.Parse(data)
			if err != nil {
				return err
			}
			d.Release()
			return nil
		})
		run("tape.Parse+Any", func() error {
			d, err := tape.Parse(data)
			if err != nil {
				return err
			}
			_ = d.Root().Any()
			d.Release()
			return nil
		})
		run("json.Valid", func() error {
			if !json.Valid(data) {
				return fmt.Errorf("invalid")
			}
			return nil
		})
		run("json.Unmarshal", func() error {
			var v any
			return json.Unmarshal(data, &v)
		})
		run("trace.Decode", func() error {
			_, err := trace.Decode(data)
			return err
		})
	}
}
