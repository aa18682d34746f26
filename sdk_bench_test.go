// sdk_bench_test.go: the workload the SDKs in use really send (issue "speed on the workload SDKs really
// send"), beside a do-nothing engine on the same driver. Every batch is new: its own trace (trace_id,
// amounts, order and refund ids, message) and fresh assertion ids (`assert_` + 8 hex digits, as the Python
// SDK makes them), no request_id (../shared/sdk-compat.md), so no idempotency record can answer it.
//
//	go test -run '^$' -bench 'SDKWorkload' -count 6 . | tee new.txt   (then benchstat old.txt new.txt)

package main

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
)

// sdkLines is how many distinct request lines a benchmark cycles through:
// none repeats, and all are built before the clock starts.
const sdkLines = 4096

// workloadBatch returns request i of the SDK workload: the spec §2.2 refund batch
// with every value an SDK would vary changed, and its five assertions with
// fresh random-looking ids and no request_id. Deterministic in i.
func workloadBatch(i int) string {
	h := workloadHash(i)
	x := hex.EncodeToString(h[:])
	var ids [5]string
	for k := range ids {
		ids[k] = "assert_" + x[12+8*k:20+8*k]
	}
	return workloadBatchIDs(i, ids)
}

// workloadHash is the SHA-256 every value of workload request i derives from.
func workloadHash(i int) [32]byte {
	return sha256.Sum256(fmt.Appendf(nil, "sdk-workload %d", i))
}

// workloadBatchIDs is workloadBatch(i) with the assertion ids given, in order.
func workloadBatchIDs(i int, ids [5]string) string {
	h := workloadHash(i)
	x := hex.EncodeToString(h[:])
	order := fmt.Sprintf("ORD-%d", 100+i)
	amount := fmt.Sprintf("%d.%02d", 10+int(h[0]), int(h[1])%100)
	refund := fmt.Sprintf("RFD-%03d", i%1000)
	trace := `{"schema_version":1,"trace_id":"trc_` + x[:12] + `","agent_id":"customer-service-agent",` +
		`"input":{"user_message":"I want a refund for order ` + order + `","context":{}},"steps":[` +
		`{"type":"llm_call","name":"reasoning","args":{"model":"gpt-4.1","prompt":"You are a customer service agent. User: I want a refund for order ` + order + `"},"result":{"completion":"I need to look up the order to verify eligibility."},"metadata":{"duration_ms":` + fmt.Sprint(900+int(h[2])) + `,"cost_usd":0.003}},` +
		`{"type":"tool_call","name":"lookup_order","args":{"order_id":"` + order + `"},"result":{"status":"delivered","amount":` + amount + `,"eligible_for_refund":true},"metadata":{"duration_ms":` + fmt.Sprint(20+int(h[3])%100) + `}},` +
		`{"type":"tool_call","name":"process_refund","args":{"order_id":"` + order + `","amount":` + amount + `},"result":{"refund_id":"` + refund + `","estimated_days":3},"metadata":{"duration_ms":` + fmt.Sprint(80+int(h[4])%100) + `}}],` +
		`"output":{"message":"Your refund of $` + amount + ` has been processed. You'll see it in 3 business days. Refund ID: ` + refund + `.","structured":{"refund_id":"` + refund + `","confidence":0.95}},` +
		`"metadata":{"total_tokens":` + fmt.Sprint(1000+int(h[5])*4) + `,"cost_usd":0.0067,"latency_ms":` + fmt.Sprint(3000+int(h[6])*10) + `,"model":"gpt-4.1","timestamp":"2026-02-18T10:30:00Z"},"parent_trace_id":null}`
	id := func(k int) string { return `"` + ids[k] + `"` }
	assertions := `[{"assertion_id":` + id(0) + `,"type":"schema","spec":{"target":"steps[?name=='lookup_order'].result","schema":{"$schema":"https://json-schema.org/draft/2020-12","type":"object","required":["status","amount"],"properties":{"status":{"type":"string"},"amount":{"type":"number","minimum":0}}}}},` +
		`{"assertion_id":` + id(1) + `,"type":"constraint","spec":{"field":"metadata.cost_usd","operator":"lte","value":0.01}},` +
		`{"assertion_id":` + id(2) + `,"type":"trace","spec":{"check":"contains_in_order","tools":["lookup_order","process_refund"]}},` +
		`{"assertion_id":` + id(3) + `,"type":"content","spec":{"target":"output.message","check":"contains","value":"refund"}},` +
		`{"assertion_id":` + id(4) + `,"type":"content","spec":{"target":"output.message","check":"not_contains","value":"cannot process","soft":true}}]`
	return fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"evaluate_batch","params":{"trace":%s,"assertions":%s}}`, i+1, trace, assertions)
}

// sdkWorkload builds the request lines once, newline included.
func sdkWorkload(tb testing.TB) []string {
	lines := make([]string, sdkLines)
	for i := range lines {
		lines[i] = workloadBatch(i) + "\n"
	}
	if lines[0] == lines[1] {
		tb.Fatal("workload lines repeat")
	}
	return lines
}

// TestSDKWorkload: every workload batch is valid and passes all five
// assertions, so the benchmarks measure full evaluation, not error paths.
func TestSDKWorkload(t *testing.T) {
	e := start(t, buildEngine(t), "--log-level=warn")
	e.send(t, initLine)
	e.answer(t)
	for i := range 50 {
		e.send(t, workloadBatch(i))
		got := e.answer(t)
		results, _ := got["result"].(map[string]any)["results"].([]any)
		if len(results) != 5 {
			t.Fatalf("batch %d: %d results, want 5: %v", i, len(results), got)
		}
		for _, r := range results {
			if st := r.(map[string]any)["status"]; st != "pass" {
				t.Fatalf("batch %d: %v", i, r)
			}
		}
	}
}

// nothingEngine builds testdata/bench/nothing and writes its canned answer:
// the engine's own answer to a workload batch, id replaced by 0.
func nothingEngine(b *testing.B) []string {
	dir := b.TempDir()
	bin := filepath.Join(dir, "nothing")
	cmd := goBuild(bin)
	cmd.Args[len(cmd.Args)-1] = "./testdata/bench/nothing"
	if out, err := cmd.CombinedOutput(); err != nil {
		b.Fatalf("go build nothing: %v\n%s", err, out)
	}
	answer := engineAnswer(b, workloadBatch(0))
	answer = strings.Replace(answer, `"id":1,`, `"id":0,`, 1)
	file := filepath.Join(dir, "answer.json")
	if err := os.WriteFile(file, []byte(answer), 0o600); err != nil {
		b.Fatal(err)
	}
	return []string{bin, file}
}

// engineAnswer returns the engine's answer line to one request.
func engineAnswer(b *testing.B, line string) string {
	cmd := exec.Command(benchEngine(b), "--log-level=error")
	cmd.Stdin = strings.NewReader(initLine + "\n" + line + "\n")
	out, err := cmd.Output()
	if err != nil {
		b.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(string(out)), "\n")
	if len(lines) != 2 || !strings.Contains(lines[1], `"id":1,`) {
		b.Fatalf("engine answered %q", out)
	}
	return lines[1]
}

// sdkEngines names the two processes each SDK-workload benchmark drives.
func sdkEngines(b *testing.B) map[string][]string {
	return map[string][]string{
		"engine":  {benchEngine(b), "--log-level=warn"},
		"nothing": nothingEngine(b),
	}
}

// okAnswer checks an answer without decoding it: a result with five results
// and no error. It costs the driver the same for both engines.
func okAnswer(line []byte) bool {
	return bytes.HasPrefix(line, []byte(`{"jsonrpc":"2.0","id":`)) && !bytes.Contains(line, []byte(`"error":`)) &&
		bytes.Count(line, []byte(`"assertion_id":`)) == 5
}

// BenchmarkSDKWorkloadPipelined: 64 requests in flight, every one new.
func BenchmarkSDKWorkloadPipelined(b *testing.B) {
	lines := sdkWorkload(b)
	engines := sdkEngines(b)
	for _, name := range []string{"engine", "nothing"} {
		b.Run(name, func(b *testing.B) {
			stdin, r, cmd := startArgv(b, engines[name])
			pipelined(b, stdin, r, cmd, lines, 64, okAnswer)
		})
	}
}

// BenchmarkSDKWorkloadRoundTrip: one request at a time, as the SDK fixtures
// send them, every one new. The goal is on the median. Beside the
// do-nothing engine, the same spinning 6 µs on the CPU before each answer
// (about a batch's cost in process, rpc BatchLine/sdk-workload): the floor
// of any engine that does that much work per request. An answer that comes
// later than a few µs finds the SDK's thread asleep, and waking it costs
// more than the pipe itself.
func BenchmarkSDKWorkloadRoundTrip(b *testing.B) {
	lines := sdkWorkload(b)
	engines := sdkEngines(b)
	engines["busy-6us"] = append(slices.Clone(engines["nothing"]), "6us")
	for _, name := range []string{"engine", "nothing", "busy-6us"} {
		b.Run(name, func(b *testing.B) {
			stdin, r, cmd := startArgv(b, engines[name])
			took := make([]time.Duration, b.N)
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				start := time.Now()
				io.WriteString(stdin, lines[i%len(lines)])
				line, err := r.ReadSlice('\n')
				if err != nil {
					b.Fatal(err)
				}
				took[i] = time.Since(start)
				if !okAnswer(line) {
					b.Fatalf("answer %d: %.300s", i, line)
				}
			}
			b.StopTimer()
			slices.Sort(took)
			b.ReportMetric(float64(took[len(took)/2].Nanoseconds())/1e3, "median-µs")
			b.ReportMetric(float64(took[len(took)*9/10].Nanoseconds())/1e3, "p90-µs")
			reportEngineCPU(b, stdin, cmd)
		})
	}
}
