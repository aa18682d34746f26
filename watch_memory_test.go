// watch_memory_test.go: peak memory while streaming 10⁶ traces through watch (run on demand: it takes minutes).

package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strconv"
	"testing"
)

// watchMemoryBudget is the stated bound on the peak RSS of watch streaming
// any number of traces with the default bounds and --jobs 2.
const watchMemoryBudget = 128 << 20

// TestWatchMemory streams ATTEST_WATCH_MEMORY traces (e.g. 1000000) of each
// format through the binary over a pipe and checks the peak RSS (VmHWM, from
// the exit log line: the parent's ru_maxrss for a child it started with
// vfork can be its own) against watchMemoryBudget:
//
//	ATTEST_WATCH_MEMORY=1000000 go test -run TestWatchMemory -v -timeout 1h .
func TestWatchMemory(t *testing.T) {
	n, _ := strconv.Atoi(os.Getenv("ATTEST_WATCH_MEMORY"))
	if n <= 0 {
		t.Skip("set ATTEST_WATCH_MEMORY=<traces> to run")
	}
	bin := buildEngine(t)
	for _, format := range []string{"attest", "otlp", "otlp-logs"} {
		t.Run(format, func(t *testing.T) {
			cmd := exec.Command(bin, "watch", "--suite", watchSuite, "--deterministic", "--jobs", "2")
			in, _ := cmd.StdinPipe()
			out, _ := cmd.StdoutPipe()
			var logs bytes.Buffer
			cmd.Stderr = &logs
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			go func() {
				w := bufio.NewWriterSize(in, 1<<20)
				for i := range n {
					writeTrace(w, format, i)
				}
				w.Flush()
				in.Close()
			}()
			lines := 0
			sc := bufio.NewScanner(out)
			sc.Buffer(nil, 1<<20)
			for sc.Scan() {
				lines++
			}
			io.Copy(io.Discard, out)
			if err := cmd.Wait(); err != nil {
				t.Fatal(err)
			}
			var rss int64
			for _, l := range bytes.Split(logs.Bytes(), []byte("\n")) {
				var m map[string]any
				if json.Unmarshal(l, &m) == nil && m["msg"] == "watch finished" {
					n, _ := m["peak_rss_bytes"].(float64)
					rss = int64(n)
				}
			}
			if rss == 0 {
				t.Fatalf("no peak_rss_bytes in the exit log line:\n%s", logs.Bytes())
			}
			t.Logf("%s: %d traces, %d result lines, peak RSS %.1f MiB, CPU %v user %v sys", format, n, lines,
				float64(rss)/(1<<20), cmd.ProcessState.UserTime(), cmd.ProcessState.SystemTime())
			if lines != 5*n {
				t.Errorf("%d lines, want %d", lines, 5*n)
			}
			if rss > watchMemoryBudget {
				t.Errorf("peak RSS %d bytes over the budget of %d", rss, watchMemoryBudget)
			}
		})
	}
}

// writeTrace writes trace i: an Attest trace, an OTLP request with the
// trace's three spans (agent, tool, model call), ids from i, or (otlp-logs)
// the same spans without content and a log request with the model call's
// messages as GenAI event records, as the official OpenAI instrumentation
// sends them.
func writeTrace(w io.Writer, format string, i int) {
	if format == "otlp-logs" {
		tid := fmt.Sprintf("%016x%016x", uint64(i)*0x9e3779b97f4a7c15, uint64(i)+1)
		t0 := int64(1763950000000000000) + int64(i)*1_000_000
		fmt.Fprintf(w, `{"resourceSpans":[{"resource":{"attributes":[{"key":"service.name","value":{"stringValue":"refund"}}]},"scopeSpans":[{"spans":[`+
			`{"traceId":"%s","spanId":"%016x","name":"chat gpt-4.1","startTimeUnixNano":"%d","endTimeUnixNano":"%d","parentSpanId":"%016x","attributes":[{"key":"gen_ai.operation.name","value":{"stringValue":"chat"}},{"key":"gen_ai.request.model","value":{"stringValue":"gpt-4.1"}},{"key":"gen_ai.usage.input_tokens","value":{"intValue":"400"}},{"key":"gen_ai.usage.output_tokens","value":{"intValue":"50"}}]},`+
			`{"traceId":"%s","spanId":"%016x","name":"execute_tool lookup_order","startTimeUnixNano":"%d","endTimeUnixNano":"%d","parentSpanId":"%016x","attributes":[{"key":"gen_ai.tool.name","value":{"stringValue":"lookup_order"}},{"key":"gen_ai.tool.call.arguments","value":{"stringValue":"{\"order_id\":\"ORD-%d\"}"}}]},`+
			`{"traceId":"%s","spanId":"%016x","name":"invoke_agent refund","startTimeUnixNano":"%d","endTimeUnixNano":"%d","attributes":[{"key":"gen_ai.operation.name","value":{"stringValue":"invoke_agent"}},{"key":"gen_ai.agent.name","value":{"stringValue":"refund"}}]}`+
			`]}]}]}`+"\n",
			tid, 2*i+2, t0+1e6, t0+2e6, 2*i+1,
			tid, 3*i+7, t0+3e6, t0+4e6, 2*i+1, i,
			tid, 2*i+1, t0, t0+5e6)
		rec := func(name string, at int64, body string) string {
			return fmt.Sprintf(`{"timeUnixNano":"%d","traceId":"%s","spanId":"%016x","eventName":"%s","body":{"kvlistValue":{"values":[%s]}}}`, at, tid, 2*i+2, name, body)
		}
		fmt.Fprintf(w, `{"resourceLogs":[{"resource":{"attributes":[{"key":"service.name","value":{"stringValue":"refund"}}]},"scopeLogs":[{"logRecords":[%s,%s,%s]}]}]}`+"\n",
			rec("gen_ai.user.message", t0+1e6, `{"key":"content","value":{"stringValue":"refund ORD-`+fmt.Sprint(i)+`"}}`),
			rec("gen_ai.choice", t0+2e6, `{"key":"index","value":{"intValue":"0"}},{"key":"finish_reason","value":{"stringValue":"stop"}},{"key":"message","value":{"kvlistValue":{"values":[{"key":"content","value":{"stringValue":"Your refund has been processed."}}]}}}`),
			rec("gen_ai.system.message", t0+1e6, `{"key":"content","value":{"stringValue":"You are a refund agent."}}`))
		return
	}
	if format == "attest" {
		fmt.Fprintf(w, `{"schema_version":1,"trace_id":"trc_%d","agent_id":"refund-agent","input":{"user_message":"refund ORD-%d"},"steps":[{"type":"llm_call","name":"reasoning","args":{"model":"gpt-4.1"},"result":{"completion":"looking up","tokens":450}},{"type":"tool_call","name":"lookup_order","args":{"order_id":"ORD-%d"},"result":{"status":"delivered"}},{"type":"tool_call","name":"process_refund","args":{"order_id":"ORD-%d"},"result":{"refund_id":"RFD-%d"}}],"output":{"message":"Your refund RFD-%d has been processed."},"metadata":{"latency_ms":%d}}`+"\n", i, i, i, i, i, i, 1000+i%5000)
		return
	}
	tid := fmt.Sprintf("%016x%016x", uint64(i)*0x9e3779b97f4a7c15, uint64(i)+1)
	t0 := int64(1763950000000000000) + int64(i)*1_000_000
	fmt.Fprintf(w, `{"resourceSpans":[{"resource":{"attributes":[{"key":"service.name","value":{"stringValue":"refund"}}]},"scopeSpans":[{"spans":[`+
		`{"traceId":"%s","spanId":"%016x","name":"chat gpt-4.1","startTimeUnixNano":"%d","endTimeUnixNano":"%d","parentSpanId":"%016x","attributes":[{"key":"gen_ai.operation.name","value":{"stringValue":"chat"}},{"key":"gen_ai.request.model","value":{"stringValue":"gpt-4.1"}},{"key":"gen_ai.usage.input_tokens","value":{"intValue":"400"}},{"key":"gen_ai.usage.output_tokens","value":{"intValue":"50"}}]},`+
		`{"traceId":"%s","spanId":"%016x","name":"execute_tool lookup_order","startTimeUnixNano":"%d","endTimeUnixNano":"%d","parentSpanId":"%016x","attributes":[{"key":"gen_ai.tool.name","value":{"stringValue":"lookup_order"}},{"key":"gen_ai.tool.call.arguments","value":{"stringValue":"{\"order_id\":\"ORD-%d\"}"}}]},`+
		`{"traceId":"%s","spanId":"%016x","name":"invoke_agent refund","startTimeUnixNano":"%d","endTimeUnixNano":"%d","attributes":[{"key":"gen_ai.operation.name","value":{"stringValue":"invoke_agent"}},{"key":"gen_ai.agent.name","value":{"stringValue":"refund"}},{"key":"gen_ai.output.messages","value":{"stringValue":"[{\"role\":\"assistant\",\"parts\":[{\"type\":\"text\",\"content\":\"Your refund has been processed.\"}]}]"}}]}`+
		`]}]}]}`+"\n",
		tid, 2*i+2, t0+1e6, t0+2e6, 2*i+1,
		tid, 3*i+7, t0+3e6, t0+4e6, 2*i+1, i,
		tid, 2*i+1, t0, t0+5e6)
}
