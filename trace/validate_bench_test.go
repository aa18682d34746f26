// validate_bench_test.go: Validate (decoded values) and ValidateValue (a tape read in place) on the spec's refund trace and a 10,000-step trace.

package trace

import (
	"bytes"
	"fmt"
	"os"
	"testing"

	"attest-engine/tape"
)

// refundTrace is the text of the spec §2.2 refund trace: params.trace of
// the evaluate_batch line of testdata/session.jsonl.
func refundTrace(tb testing.TB) []byte {
	session, err := os.ReadFile("../testdata/session.jsonl")
	if err != nil {
		tb.Fatal(err)
	}
	d, err := tape.Parse(bytes.Split(session, []byte("\n"))[1])
	if err != nil {
		tb.Fatal(err)
	}
	defer d.Release()
	return bytes.Clone(d.Root().Get("params").Get("trace").Text())
}

// stepsTrace renders a valid trace of n spec-shaped steps, with numbers,
// escapes and non-ASCII text.
func stepsTrace(n int) []byte {
	var b bytes.Buffer
	b.WriteString(`{"schema_version":1,"trace_id":"trc_bench","agent_id":"customer-service-agent",` +
		`"input":{"user_message":"I want a refund for order ORD-123","context":{}},"steps":[`)
	for i := range n {
		if i > 0 {
			b.WriteByte(',')
		}
		fmt.Fprintf(&b, `{"type":"tool_call","name":"lookup_order_%d","args":{"order_id":"ORD-%d","query":"caf\u00e9 \"quoted\"\n"},`+
			`"result":{"status":"delivered","amount":89.99,"eligible_for_refund":true,"items":[{"sku":"SKU-%d","qty":2,"price":1.5e2}]},`+
			`"metadata":{"duration_ms":%d,"cost_usd":0.003}}`, i, i, i, i%1000)
	}
	b.WriteString(`],"output":{"message":"Your refund of $89.99 has been processed."},` +
		`"metadata":{"total_tokens":1350,"timestamp":"2026-02-18T10:30:00Z"},"parent_trace_id":null}`)
	return b.Bytes()
}

// benchInputs are the traces the validation benchmarks run on.
func benchInputs(tb testing.TB) []struct {
	name string
	data []byte
} {
	return []struct {
		name string
		data []byte
	}{
		{"refund", refundTrace(tb)},
		{"steps10000", stepsTrace(MaxSteps)},
	}
}

// BenchmarkValidate: the decoded-value version; decoding is not timed.
// "/source" passes Options.SourceBytes as the engine does (the refund trace
// is then never measured), "/plain" does not.
func BenchmarkValidate(b *testing.B) { benchRules(b, decoded, Validate) }

// BenchmarkValidateValue: the in-place version on the same traces; parsing
// is not timed (the engine parses the request line once, for every reader).
func BenchmarkValidateValue(b *testing.B) { benchRules(b, parsed, ValidateValue) }

// BenchmarkValidateRef: the rules as they were written over decoded values
// (validate_ref_test.go), for the before/after comparison.
func BenchmarkValidateRef(b *testing.B) { benchRules(b, decoded, refValidate) }

// benchRules times check on each of benchInputs, read by load (not timed),
// without ("/plain") and with ("/source") Options.SourceBytes.
func benchRules[T any](b *testing.B, load func(testing.TB, []byte) T, check func(T, Options) ([]string, *Error)) {
	for _, in := range benchInputs(b) {
		t := load(b, in.data)
		for _, src := range []int{0, len(in.data)} {
			b.Run(in.name+benchMode(src), func(b *testing.B) {
				b.ReportAllocs()
				for b.Loop() {
					if _, err := check(t, Options{SourceBytes: src}); err != nil {
						b.Fatal(err)
					}
				}
			})
		}
	}
}

func benchMode(src int) string {
	if src > 0 {
		return "/source"
	}
	return "/plain"
}

// decoded is the trace data holds, decoded.
func decoded(tb testing.TB, data []byte) any {
	v, err := Decode(data)
	if err != nil {
		tb.Fatal(err)
	}
	return v
}

// parsed is the trace data holds, on a tape that stays for the benchmark.
func parsed(tb testing.TB, data []byte) tape.Value {
	d, err := tape.Parse(data)
	if err != nil {
		tb.Fatal(err)
	}
	return d.Root()
}

// BenchmarkValidateText: from the trace's text to the verdict, as a fresh
// request pays it: Decode then the decoded-value rules (before; Validate before it re-encoded), or
// tape.Parse then ValidateValue (after), both with SourceBytes.
func BenchmarkValidateText(b *testing.B) {
	for _, in := range benchInputs(b) {
		data := in.data
		b.Run("decode+validate/"+in.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				v, err := Decode(data)
				if err != nil {
					b.Fatal(err)
				}
				if _, err := refValidate(v, Options{SourceBytes: len(data)}); err != nil {
					b.Fatal(err)
				}
			}
		})
		b.Run("parse+value/"+in.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				d, err := tape.Parse(data)
				if err != nil {
					b.Fatal(err)
				}
				if _, err := ValidateValue(d.Root(), Options{SourceBytes: len(data)}); err != nil {
					b.Fatal(err)
				}
				d.Release()
			}
		})
	}
}
