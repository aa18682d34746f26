// main_bench_test.go: end-to-end benchmarks of the built binary over pipes, as an SDK drives it.
//
//	go test -run '^$' -bench . -benchmem -count 6 . | tee new.txt   (then benchstat old.txt new.txt)
//
// BENCH_ENGINE_ENV adds variables to the engine's environment only, to try a
// runtime setting without touching the benchmark's own client, e.g.
// BENCH_ENGINE_ENV='GOGC=200 GOMAXPROCS=1'. BENCH_ENGINE names an engine
// binary built beforehand to drive instead of building this tree's: two
// builds compared on one driver, interleaved, or a binary kept for a
// profiler's symbols.

package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"
)

// startBench starts an engine and initializes a session.
func startBench(b *testing.B) (io.WriteCloser, *bufio.Reader, *exec.Cmd) {
	return startArgv(b, []string{benchEngine(b), "--log-level=error"})
}

// benchEngine is the engine binary the benchmarks drive: BENCH_ENGINE when
// set, else this tree's, built once.
func benchEngine(b *testing.B) string {
	if bin := os.Getenv("BENCH_ENGINE"); bin != "" {
		return bin
	}
	return buildEngine(b)
}

// startArgv starts argv (an engine, or a floor program that reads lines the
// same way) and initializes a session. BENCH_ENGINE_ENV applies to it.
func startArgv(b *testing.B, argv []string) (io.WriteCloser, *bufio.Reader, *exec.Cmd) {
	cmd := exec.Command(argv[0], argv[1:]...)
	if e := os.Getenv("BENCH_ENGINE_ENV"); e != "" {
		cmd.Env = append(os.Environ(), strings.Fields(e)...)
	}
	stdin, _ := cmd.StdinPipe()
	stdout, _ := cmd.StdoutPipe()
	if err := cmd.Start(); err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { stdin.Close(); _ = cmd.Wait() })
	r := bufio.NewReaderSize(stdout, 1<<20)
	io.WriteString(stdin, initLine+"\n")
	if _, err := r.ReadString('\n'); err != nil {
		b.Fatal(err)
	}
	return stdin, r, cmd
}

// BenchmarkPipelined: the spec's refund batch, 64 requests in flight.
//
// spec-batch sends that line as the spec has it, ids apart: its assertions
// carry request_ids, so after the first batch each one is answered from the
// idempotency record (spec §2.2) once its trace is decoded, validated and
// hashed. new-traces gives every request in flight a trace of its own (the
// trace_id differs), so nothing is answered from the record: every batch is
// evaluated, as for an SDK streaming production traces through one suite.
func BenchmarkPipelined(b *testing.B) {
	batch := specBatch(b)
	for _, tc := range []struct {
		name string
		line func(i int) string
	}{
		{"spec-batch", func(i int) string { return batch(fmt.Sprintf("p%d", i)) }},
		{"new-traces", func(i int) string {
			return strings.Replace(batch(fmt.Sprintf("p%d", i)), `"trace_id":"trc_abc123"`, fmt.Sprintf(`"trace_id":"trc_%03d"`, i), 1)
		}},
	} {
		b.Run(tc.name, func(b *testing.B) {
			lines := make([]string, 64)
			for i := range lines {
				lines[i] = tc.line(i) + "\n"
			}
			if lines[0] == lines[1] || !strings.Contains(lines[0], `"trace_id":"trc_`) {
				b.Fatal("testdata/session.jsonl: unexpected batch line")
			}
			stdin, r, cmd := startBench(b)
			pipelined(b, stdin, r, cmd, lines, len(lines), nil)
		})
	}
}

// pipelined sends b.N requests cycling through lines, inFlight of them
// unanswered at most, and reads the answers, each checked by ok when not
// nil; then it reports the rate and the engine's CPU time.
func pipelined(b *testing.B, stdin io.WriteCloser, r *bufio.Reader, cmd *exec.Cmd, lines []string, inFlight int, ok func(line []byte) bool) {
	b.ResetTimer()
	start := time.Now()
	slots := make(chan struct{}, inFlight)
	go func() {
		w := bufio.NewWriterSize(stdin, 1<<16)
		for i := 0; i < b.N; i++ {
			slots <- struct{}{}
			w.WriteString(lines[i%len(lines)])
			if len(slots) == cap(slots) || i == b.N-1 {
				w.Flush()
			}
		}
		w.Flush()
	}()
	for i := 0; i < b.N; i++ {
		line, err := r.ReadSlice('\n')
		if err != nil {
			b.Fatal(err)
		}
		if ok != nil && !ok(line) {
			b.Fatalf("answer %d: %.300s", i, line)
		}
		<-slots
	}
	b.ReportMetric(float64(b.N)/time.Since(start).Seconds(), "batches/s")
	reportEngineCPU(b, stdin, cmd)
}

// reportEngineCPU ends the engine and reports the CPU time it used per
// operation (user + system, start-up included, and the system part alone):
// what a batch costs the engine itself, apart from the benchmark's own
// client on the same cores.
func reportEngineCPU(b *testing.B, stdin io.Closer, cmd *exec.Cmd) {
	b.StopTimer()
	// System calls per operation, from /proc/<pid>/io (Linux): how well
	// reads and writes are shared between batches.
	if io, err := os.ReadFile(fmt.Sprintf("/proc/%d/io", cmd.Process.Pid)); err == nil {
		for _, l := range strings.Split(string(io), "\n") {
			for key, unit := range map[string]string{"syscr: ": "reads/op", "syscw: ": "writes/op"} {
				if v, ok := strings.CutPrefix(l, key); ok {
					if n, err := strconv.Atoi(v); err == nil {
						b.ReportMetric(float64(n)/float64(b.N), unit)
					}
				}
			}
		}
	}
	stdin.Close()
	if err := cmd.Wait(); err != nil {
		b.Fatal(err)
	}
	st := cmd.ProcessState
	b.ReportMetric(float64((st.UserTime()+st.SystemTime()).Microseconds())/float64(b.N), "engine-cpu-µs/op")
	b.ReportMetric(float64(st.SystemTime().Microseconds())/float64(b.N), "engine-sys-µs/op")
}

// BenchmarkRoundTrip: the spec's refund batch, one request at a time.
func BenchmarkRoundTrip(b *testing.B) {
	line := specBatch(b)("rt") + "\n"
	stdin, r, cmd := startBench(b)
	took := make([]time.Duration, b.N)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		start := time.Now()
		io.WriteString(stdin, line)
		if _, err := r.ReadSlice('\n'); err != nil {
			b.Fatal(err)
		}
		took[i] = time.Since(start)
	}
	b.StopTimer()
	// The mean (ns/op) carries the pipe's wake-up tail; the goal is on the median.
	slices.Sort(took)
	b.ReportMetric(float64(took[len(took)/2].Nanoseconds())/1e3, "median-µs")
	b.ReportMetric(float64(took[len(took)*9/10].Nanoseconds())/1e3, "p90-µs")
	reportEngineCPU(b, stdin, cmd)
}

// BenchmarkStartup: from process start to the initialize answer. The floor
// beside it: a Go program that answers one line (hello), and the same linked
// with net/http and TLS as the provider clients need (hellohttp), built from
// testdata/bench/ the same way.
func BenchmarkStartup(b *testing.B) {
	bins := map[string]string{"engine": benchEngine(b)}
	for _, name := range []string{"hello", "hellohttp"} {
		bin := filepath.Join(b.TempDir(), name)
		cmd := goBuild(bin)
		cmd.Args[len(cmd.Args)-1] = "./testdata/bench/" + name
		if out, err := cmd.CombinedOutput(); err != nil {
			b.Fatalf("go build %s: %v\n%s", name, err, out)
		}
		bins[name] = bin
	}
	for _, name := range []string{"engine", "hello", "hellohttp"} {
		b.Run(name, func(b *testing.B) {
			for i := 0; i < b.N; i++ {
				cmd := exec.Command(bins[name], "--log-level=warn")
				if name != "engine" {
					cmd.Args = cmd.Args[:1]
				}
				stdin, _ := cmd.StdinPipe()
				stdout, _ := cmd.StdoutPipe()
				if err := cmd.Start(); err != nil {
					b.Fatal(err)
				}
				io.WriteString(stdin, initLine+"\n")
				if _, err := bufio.NewReader(stdout).ReadString('\n'); err != nil {
					b.Fatal(err)
				}
				b.StopTimer()
				stdin.Close()
				cmd.Wait()
				b.StartTimer()
			}
		})
	}
}

// largeTraceBatch is an evaluate_batch over a trace of n steps (n = 10,000 is
// about 10 MB) with a schema, constraint, trace and content assertion.
func largeTraceBatch(n int, id string) (line string, traceJSON string) {
	var t strings.Builder
	t.WriteString(`{"schema_version":1,"trace_id":"trc_large","steps":[`)
	for i := range n {
		if i > 0 {
			t.WriteByte(',')
		}
		name := []string{"lookup_order", "search", "process_refund", "reasoning"}[i%4]
		typ := "tool_call"
		if name == "reasoning" {
			typ = "llm_call"
		}
		fmt.Fprintf(&t, `{"type":%q,"name":%q,"args":{"order_id":"ORD-%d","query":"refund policy for order %d"},"result":{"status":"delivered","amount":%d.99,"text":"%s"},"metadata":{"duration_ms":%d}}`,
			typ, name, i, i, i%500, strings.Repeat("lorem ipsum ", 70), i%300)
	}
	t.WriteString(`],"output":{"message":"Your refund of $89.99 has been processed. Refund ID: RFD-001.","structured":{"refund_id":"RFD-001","confidence":0.95}},"metadata":{"total_tokens":1350,"cost_usd":0.0067,"latency_ms":4200}}`)
	assertions := `[{"assertion_id":"a1","type":"schema","spec":{"target":"steps[?name=='lookup_order'].result","schema":{"type":"object","required":["status","amount"],"properties":{"status":{"type":"string"},"amount":{"type":"number","minimum":0}}}}},` +
		`{"assertion_id":"a2","type":"constraint","spec":{"field":"steps.length","operator":"lte","value":10000}},` +
		`{"assertion_id":"a3","type":"trace","spec":{"check":"contains_in_order","tools":["lookup_order","process_refund"]}},` +
		`{"assertion_id":"a4","type":"content","spec":{"target":"output.message","check":"regex_match","value":"RFD-\\d{3,}"}}]`
	return fmt.Sprintf(`{"jsonrpc":"2.0","id":%q,"method":"evaluate_batch","params":{"trace":%s,"assertions":%s}}`, id, t.String(), assertions), t.String()
}

// BenchmarkLargeTrace: cost as traces grow (linear), over pipes. Compare each
// size with BenchmarkUnmarshalBaseline of the same size.
func BenchmarkLargeTrace(b *testing.B) {
	for _, n := range []int{1000, 3000, 10000} {
		line, trace := largeTraceBatch(n, "big")
		b.Run(fmt.Sprintf("steps=%d", n), func(b *testing.B) {
			stdin, r, cmd := startBench(b)
			b.SetBytes(int64(len(trace)))
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				io.WriteString(stdin, line+"\n")
				if _, err := r.ReadString('\n'); err != nil {
					b.Fatal(err)
				}
			}
			b.StopTimer()
			rss := peakRSSKB(cmd)
			stdin.Close()
			cmd.Wait()
			if rss > 0 {
				b.ReportMetric(float64(rss)*1024/float64(len(trace)), "peakRSS/trace")
			}
		})
	}
}

// BenchmarkUnmarshalBaseline: a plain json.Unmarshal of the same traces into any.
func BenchmarkUnmarshalBaseline(b *testing.B) {
	for _, n := range []int{1000, 3000, 10000} {
		_, trace := largeTraceBatch(n, "big")
		b.Run(fmt.Sprintf("steps=%d", n), func(b *testing.B) {
			b.SetBytes(int64(len(trace)))
			for i := 0; i < b.N; i++ {
				var v any
				if err := json.Unmarshal([]byte(trace), &v); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
