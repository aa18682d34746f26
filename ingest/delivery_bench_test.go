// delivery_bench_test.go: the same traces with their messages in span attributes or in log records, side by side: CPU, allocations and memory held.

package ingest

import (
	"bytes"
	"fmt"
	"runtime"
	"syscall"
	"testing"
)

// deliveryInput is n traces of an agent, a model call and a tool call
// (ids and times from i), the model call's messages (a system and a user
// message, the answer) either as gen_ai.input/output.messages attributes
// of the span ("attrs") or as GenAI event log records after the spans, as
// the official OpenAI instrumentation sends them ("logs").
func deliveryInput(n int, logs bool) []byte {
	var b bytes.Buffer
	for i := range n {
		tid := fmt.Sprintf("%016x%016x", uint64(i)*0x9e3779b97f4a7c15, uint64(i)+1)
		t0 := int64(1763950000000000000) + int64(i)*1_000_000
		content := ""
		if !logs {
			content = `,{"key":"gen_ai.input.messages","value":{"stringValue":"[{\"role\":\"system\",\"parts\":[{\"type\":\"text\",\"content\":\"You are a refund agent.\"}]},{\"role\":\"user\",\"parts\":[{\"type\":\"text\",\"content\":\"refund ORD-` + fmt.Sprint(i) + `\"}]}]"}},` +
				`{"key":"gen_ai.output.messages","value":{"stringValue":"[{\"role\":\"assistant\",\"parts\":[{\"type\":\"text\",\"content\":\"Your refund has been processed.\"}],\"finish_reason\":\"stop\"}]"}}`
		}
		fmt.Fprintf(&b, `{"resourceSpans":[{"resource":{"attributes":[{"key":"service.name","value":{"stringValue":"refund"}}]},"scopeSpans":[{"spans":[`+
			`{"traceId":"%s","spanId":"%016x","name":"chat gpt-4.1","startTimeUnixNano":"%d","endTimeUnixNano":"%d","parentSpanId":"%016x","attributes":[{"key":"gen_ai.operation.name","value":{"stringValue":"chat"}},{"key":"gen_ai.request.model","value":{"stringValue":"gpt-4.1"}},{"key":"gen_ai.usage.input_tokens","value":{"intValue":"400"}},{"key":"gen_ai.usage.output_tokens","value":{"intValue":"50"}}%s]},`+
			`{"traceId":"%s","spanId":"%016x","name":"execute_tool lookup_order","startTimeUnixNano":"%d","endTimeUnixNano":"%d","parentSpanId":"%016x","attributes":[{"key":"gen_ai.tool.name","value":{"stringValue":"lookup_order"}},{"key":"gen_ai.tool.call.arguments","value":{"stringValue":"{\"order_id\":\"ORD-%d\"}"}}]},`+
			`{"traceId":"%s","spanId":"%016x","name":"invoke_agent refund","startTimeUnixNano":"%d","endTimeUnixNano":"%d","attributes":[{"key":"gen_ai.operation.name","value":{"stringValue":"invoke_agent"}},{"key":"gen_ai.agent.name","value":{"stringValue":"refund"}}]}`+
			`]}]}]}`+"\n",
			tid, 2*i+2, t0+1e6, t0+2e6, 2*i+1, content,
			tid, 3*i+7, t0+3e6, t0+4e6, 2*i+1, i,
			tid, 2*i+1, t0, t0+5e6)
		if !logs {
			continue
		}
		rec := func(name string, at int64, body string) string {
			return fmt.Sprintf(`{"timeUnixNano":"%d","traceId":"%s","spanId":"%016x","eventName":"%s","body":{"kvlistValue":{"values":[%s]}}}`, at, tid, 2*i+2, name, body)
		}
		fmt.Fprintf(&b, `{"resourceLogs":[{"resource":{"attributes":[{"key":"service.name","value":{"stringValue":"refund"}}]},"scopeLogs":[{"logRecords":[%s,%s,%s]}]}]}`+"\n",
			rec("gen_ai.system.message", t0+1e6, `{"key":"content","value":{"stringValue":"You are a refund agent."}}`),
			rec("gen_ai.user.message", t0+1e6, `{"key":"content","value":{"stringValue":"refund ORD-`+fmt.Sprint(i)+`"}}`),
			rec("gen_ai.choice", t0+2e6, `{"key":"index","value":{"intValue":"0"}},{"key":"finish_reason","value":{"stringValue":"stop"}},{"key":"message","value":{"kvlistValue":{"values":[{"key":"content","value":{"stringValue":"Your refund has been processed."}}]}}}`))
	}
	return b.Bytes()
}

func feedAll(tb testing.TB, data []byte, flush bool) (*Feed, []Trace) {
	feed := NewFeed(Limits{}, nil, nil)
	r := NewReader(bytes.NewReader(data), FormatAuto, 0)
	var out []Trace
	for {
		it, err := r.Next()
		if err != nil {
			break
		}
		feed.Add(it)
		out = append(out, take(feed)...)
	}
	if flush {
		feed.Flush()
		out = append(out, take(feed)...)
	}
	return feed, out
}

// BenchmarkContentDelivery: 100 traces read, assembled and mapped, the
// messages in span attributes or in log records. Besides wall time it
// reports the process's CPU time per operation (cpu-ns/op, from
// getrusage: on a shared machine wall time also counts the waits for a
// core). Compare the two with benchstat, runs interleaved:
//
//	for i in 1 2 3 4 5 6 7 8; do for d in attrs logs; do
//	  go test ./ingest -run '^$' -bench "ContentDelivery/$d" -benchtime 100x >> $d.txt; done; done
//	sed -i 's,/attrs,,;s,/logs,,' attrs.txt logs.txt; benchstat attrs.txt logs.txt
func BenchmarkContentDelivery(b *testing.B) {
	for _, name := range []string{"attrs", "logs"} {
		data := deliveryInput(100, name == "logs")
		b.Run(name, func(b *testing.B) {
			b.ReportAllocs()
			b.SetBytes(int64(len(data)))
			start := cpuTime()
			for b.Loop() {
				if _, ts := feedAll(b, data, true); len(ts) != 100 || !ts[0].ContentCaptured {
					b.Fatalf("%d traces, content %v", len(ts), ts[0].ContentCaptured)
				}
			}
			b.ReportMetric(float64(cpuTime()-start)/float64(b.N), "cpu-ns/op")
		})
	}
}

// cpuTime is the process's user and system CPU time in nanoseconds.
func cpuTime() int64 {
	var ru syscall.Rusage
	syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return ru.Utime.Nano() + ru.Stime.Nano()
}

// TestDeliveryHeld reports the heap held per open trace (assembled, not yet
// closed) by each delivery, and checks that log records are held within
// 1.25× the attribute form's memory per trace (go test -run
// TestDeliveryHeld -v prints the figures).
func TestDeliveryHeld(t *testing.T) {
	const n = 4000
	held := map[string]float64{}
	for _, name := range []string{"attrs", "logs"} {
		data := deliveryInput(n, name == "logs")
		var before, after runtime.MemStats
		runtime.GC()
		runtime.ReadMemStats(&before)
		feed, _ := feedAll(t, data, false)
		runtime.GC()
		runtime.ReadMemStats(&after)
		if feed.Open() < n/2 {
			t.Fatalf("%s: %d traces open, want most of %d", name, feed.Open(), n)
		}
		held[name] = float64(after.HeapAlloc-before.HeapAlloc) / float64(feed.Open())
		runtime.KeepAlive(feed)
		t.Logf("%s: %d traces open, %.0f bytes held per trace", name, feed.Open(), held[name])
	}
	if r := held["logs"] / held["attrs"]; r > 1.25 {
		t.Errorf("log records hold %.2f× the memory of the same content in span attributes, over 1.25×", r)
	}
}
