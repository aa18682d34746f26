// Command otelkill drives `attest-engine watch --listen --state-dir` with
// the official OpenTelemetry Go SDK (otlptracehttp: binary protobuf, gzip,
// its own retries of 429, 502, 503 and 504 after Retry-After) while killing
// the engine with SIGKILL at seeded moments and starting it again, then
// checks that every span answered 200 was judged in its trace's verdict
// that counts, and that the history counts what a clean run counts.
//
// Run it through scripts/otel-kill.sh, which builds the engine first. It
// lives in a module of its own so that the engine's stays standard-library
// only.
package main

import (
	"context"
	"encoding/binary"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"math/rand/v2"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"sort"
	"strings"
	"sync"
	"syscall"
	"time"

	"attest-engine/history"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/exporters/otlp/otlptrace/otlptracehttp"
	"go.opentelemetry.io/otel/sdk/resource"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/trace"
)

// suite judges what a trace's spans hold: all three tools (a trace judged
// without one of its spans fails), their order, the latency.
const suite = `{"assertions": [
 {"name": "all-tools", "type": "trace", "spec": {"check": "required_tools", "tools": ["t1", "t2", "t3"]}},
 {"name": "t1-before-t3", "type": "trace", "spec": {"check": "contains_in_order", "tools": ["t1", "t3"]}},
 {"name": "fast", "type": "constraint", "spec": {"field": "metadata.latency_ms", "operator": "lte", "value": 120}}
]}`

func main() {
	engine := flag.String("engine", "", "the attest-engine binary")
	traces := flag.Int("traces", 3000, "traces exported")
	kills := flag.Int("kills", 50, "SIGKILLs during the export")
	seed := flag.Uint64("seed", 1, "seed of the traces and of the kill moments")
	work := flag.String("work", "", "work directory (default: a new temporary one)")
	flag.Parse()
	if *engine == "" {
		fmt.Fprintln(os.Stderr, "otelkill: -engine is required")
		os.Exit(2)
	}
	if *work == "" {
		d, err := os.MkdirTemp("", "otelkill")
		check(err)
		*work = d
	}
	check(os.WriteFile(filepath.Join(*work, "suite.json"), []byte(suite), 0o644))
	pace := max(time.Millisecond, (time.Duration(*kills)*400*time.Millisecond+2*time.Second)/time.Duration(*traces))
	clean := run(*engine, filepath.Join(*work, "clean"), *seed, *traces, 0, pace)
	killed := run(*engine, filepath.Join(*work, "killed"), *seed, *traces, *kills, pace)

	ok := true
	fmt.Printf("traces %d, seed %d; clean run: %d spans answered 200; killed run: %d kills, %d spans answered 200, %d not; %d batches the SDK gave up on exported again\n",
		*traces, *seed, clean.acked, killed.kills, killed.acked, killed.failed, killed.retried)
	want, got := finalVerdicts(clean.lines), finalVerdicts(killed.lines)
	whole, differ := 0, 0
	for _, id := range clean.traceIDs {
		if killed.ackedBy[id] != 4 {
			continue // a span the SDK never got a 200 for: its verdict is not a clean run's
		}
		whole++
		for _, a := range []string{"all-tools", "t1-before-t3", "fast"} {
			k := id + " " + a
			if !reflect.DeepEqual(want[k], got[k]) {
				differ++
				if differ <= 5 {
					fmt.Printf("  %s: clean %q, killed %q\n", k, want[k], got[k])
				}
			}
		}
	}
	fmt.Printf("verdicts that count: %d traces with every span answered 200, %d (trace, assertion)s differ from the clean run\n", whole, differ)
	if differ > 0 || whole == 0 {
		ok = false
	}
	if killed.failed > 0 || clean.failed > 0 {
		fmt.Println("history counts not compared: some spans were never answered 200")
		ok = false
	} else {
		wt, gt := totals(clean.state), totals(killed.state)
		fmt.Printf("history counts (passes, fails, errors, skipped): clean %v, killed %v\n", wt, gt)
		if !reflect.DeepEqual(wt, gt) {
			ok = false
		}
	}
	if !ok {
		fmt.Println("FAIL")
		os.Exit(1)
	}
	fmt.Println("OK: every span answered 200 is in its trace's verdict that counts, and the history counts what a clean run counts")
}

func check(err error) {
	if err != nil {
		fmt.Fprintln(os.Stderr, "otelkill:", err)
		os.Exit(1)
	}
}

// result is what one run leaves.
type result struct {
	lines         []byte
	state         string
	acked, failed int
	retried       int            // batches the SDK gave up on, exported again
	ackedBy       map[string]int // spans answered 200, by trace id
	traceIDs      []string
	kills         int
}

// engineProc is the watch process, started again after each kill.
type engineProc struct {
	mu   sync.Mutex
	cmd  *exec.Cmd
	args []string
	logs *os.File
}

func (p *engineProc) start() {
	p.cmd = exec.Command(p.args[0], p.args[1:]...)
	p.cmd.Stderr = p.logs
	check(p.cmd.Start())
}

func run(engine, dir string, seed uint64, n, kills int, pace time.Duration) result {
	check(os.MkdirAll(dir, 0o755))
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	check(err)
	addr := ln.Addr().String()
	ln.Close()
	logs, err := os.Create(filepath.Join(dir, "stderr.log"))
	check(err)
	defer logs.Close()
	out, state := filepath.Join(dir, "results.jsonl"), filepath.Join(dir, "state")
	p := &engineProc{logs: logs, args: []string{engine, "watch", "--suite", filepath.Join(filepath.Dir(dir), "suite.json"),
		"--listen", addr, "--state-dir", state, "--out", out, "--grace", "1s", "--idle", "2s", "--checkpoint-every", "5ms"}}
	p.start()

	rec := &recording{ackedBy: map[string]int{}}
	exp, err := otlptracehttp.New(context.Background(),
		otlptracehttp.WithEndpoint(addr), otlptracehttp.WithInsecure(),
		otlptracehttp.WithCompression(otlptracehttp.GzipCompression),
		otlptracehttp.WithRetry(otlptracehttp.RetryConfig{Enabled: true, InitialInterval: 100 * time.Millisecond,
			MaxInterval: time.Second, MaxElapsedTime: time.Minute}),
		otlptracehttp.WithHTTPClient(redialClient()))
	check(err)
	rec.SpanExporter = exp
	ids := &idGen{seed: seed}
	tp := sdktrace.NewTracerProvider(sdktrace.WithIDGenerator(ids), sdktrace.WithResource(resource.Empty()),
		sdktrace.WithBatcher(rec, sdktrace.WithBatchTimeout(50*time.Millisecond), sdktrace.WithMaxExportBatchSize(40),
			sdktrace.WithMaxQueueSize(1<<16), sdktrace.WithBlocking()))
	tracer := tp.Tracer("otelkill")

	exported := make(chan struct{})
	var traceIDs []string
	go func() {
		defer close(exported)
		rng := rand.New(rand.NewPCG(seed, 0x7ace))
		for range n {
			traceIDs = append(traceIDs, emit(tracer, rng))
			time.Sleep(pace)
		}
		check(tp.ForceFlush(context.Background()))
		check(tp.Shutdown(context.Background()))
	}()
	rng := rand.New(rand.NewPCG(seed, 0x5b001))
	killed := 0
	for killed < kills {
		select {
		case <-exported:
			kills = killed
			continue
		case <-time.After(time.Duration(100+rng.IntN(400)) * time.Millisecond):
		}
		p.cmd.Process.Kill()
		p.cmd.Wait()
		killed++
		time.Sleep(time.Duration(rng.IntN(100)) * time.Millisecond)
		p.start()
	}
	<-exported
	p.cmd.Process.Signal(syscall.SIGTERM)
	check(p.cmd.Wait())
	lines, err := os.ReadFile(out)
	check(err)
	return result{lines: lines, state: state, acked: rec.acked, failed: rec.failed, retried: rec.retried, ackedBy: rec.ackedBy,
		traceIDs: traceIDs, kills: killed}
}

// emit makes one trace: an invoke_agent root and three execute_tool
// children (one in twenty lacks t2), with seeded times; it returns the
// trace id.
func emit(tracer trace.Tracer, rng *rand.Rand) string {
	t0 := time.Now()
	dur := time.Duration(20+rng.IntN(200)) * time.Millisecond
	ctx, root := tracer.Start(context.Background(), "invoke_agent agent", trace.WithTimestamp(t0),
		trace.WithAttributes(attribute.String("gen_ai.operation.name", "invoke_agent"), attribute.String("gen_ai.agent.name", "agent")))
	tools := []string{"t1", "t2", "t3"}
	if rng.IntN(20) == 0 {
		tools[1] = "t9"
	}
	for i, tool := range tools {
		s := t0.Add(time.Duration(i+1) * time.Millisecond)
		_, sp := tracer.Start(ctx, "execute_tool "+tool, trace.WithTimestamp(s),
			trace.WithAttributes(attribute.String("gen_ai.operation.name", "execute_tool"), attribute.String("gen_ai.tool.name", tool)))
		sp.End(trace.WithTimestamp(s.Add(time.Millisecond)))
	}
	root.End(trace.WithTimestamp(t0.Add(dur)))
	return root.SpanContext().TraceID().String()
}

// recording passes batches to the OTLP exporter and counts the spans it
// was answered 200 for (ExportSpans returned nil, after the SDK's own
// retries). The SDK retries 429, 502, 503 and 504 (after Retry-After), but
// gives up at once on a connection reset or refused, which is what a
// receiver killed mid-request gives: a batch it gives up on is exported
// again here, as a Collector's sending queue keeps a batch, so that every
// span is answered 200 in the end.
type recording struct {
	sdktrace.SpanExporter
	mu                     sync.Mutex
	acked, failed, retried int
	ackedBy                map[string]int
}

func (r *recording) ExportSpans(ctx context.Context, spans []sdktrace.ReadOnlySpan) error {
	deadline := time.Now().Add(2 * time.Minute)
	for {
		err := r.SpanExporter.ExportSpans(context.Background(), spans)
		r.mu.Lock()
		if err == nil {
			r.acked += len(spans)
			for _, s := range spans {
				r.ackedBy[s.SpanContext().TraceID().String()]++
			}
			r.mu.Unlock()
			return nil
		}
		if time.Now().After(deadline) {
			r.failed += len(spans)
			r.mu.Unlock()
			fmt.Fprintln(os.Stderr, "otelkill: an export failed for 2 minutes:", err)
			return err
		}
		r.retried++
		r.mu.Unlock()
		time.Sleep(100 * time.Millisecond)
	}
}

// redialClient is an HTTP client whose connections are dialled again for
// up to 10 s while nothing listens: the engine is being started again.
// The SDK retries 429, 502, 503, 504 and a reset connection, but gives up
// on a refused one at once and drops the batch, where a collector's
// sending queue would keep it: this keeps it too, below the SDK.
func redialClient() *http.Client {
	d := &net.Dialer{Timeout: time.Second}
	tr := http.DefaultTransport.(*http.Transport).Clone()
	tr.DialContext = func(ctx context.Context, network, addr string) (net.Conn, error) {
		deadline := time.Now().Add(10 * time.Second)
		for {
			c, err := d.DialContext(ctx, network, addr)
			if err == nil || !errors.Is(err, syscall.ECONNREFUSED) || time.Now().After(deadline) {
				return c, err
			}
			select {
			case <-ctx.Done():
				return nil, ctx.Err()
			case <-time.After(50 * time.Millisecond):
			}
		}
	}
	return &http.Client{Transport: tr}
}

// idGen numbers traces and spans from the seed, so that both runs export
// the same ids.
type idGen struct {
	mu          sync.Mutex
	seed, trace uint64
	span        uint64
}

func (g *idGen) NewIDs(context.Context) (trace.TraceID, trace.SpanID) {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.trace++
	var t trace.TraceID
	binary.BigEndian.PutUint64(t[:8], g.seed|1<<40)
	binary.BigEndian.PutUint64(t[8:], g.trace)
	return t, g.nextSpan()
}

func (g *idGen) NewSpanID(context.Context, trace.TraceID) trace.SpanID {
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.nextSpan()
}

func (g *idGen) nextSpan() trace.SpanID {
	g.span++
	var s trace.SpanID
	binary.BigEndian.PutUint64(s[:], g.span)
	return s
}

// finalVerdicts keeps, per (trace, assertion), the verdicts no other line
// supersedes, as "status score explanation".
func finalVerdicts(data []byte) map[string][]string {
	type line struct {
		TraceID     string  `json:"trace_id"`
		Assertion   string  `json:"assertion"`
		Status      string  `json:"status"`
		Score       float64 `json:"score"`
		Explanation string  `json:"explanation"`
		ResultID    string  `json:"result_id"`
		Supersedes  string  `json:"supersedes"`
	}
	var all []line
	superseded := map[string]bool{}
	for _, l := range strings.Split(strings.TrimSpace(string(data)), "\n") {
		var r line
		check(json.Unmarshal([]byte(l), &r))
		all = append(all, r)
		if r.Supersedes != "" {
			superseded[r.Supersedes] = true
		}
	}
	out := map[string][]string{}
	seen := map[string]bool{}
	for _, r := range all {
		if superseded[r.ResultID] || seen[r.ResultID] {
			continue
		}
		seen[r.ResultID] = true
		k := r.TraceID + " " + r.Assertion
		out[k] = append(out[k], fmt.Sprintf("%s %v %s", r.Status, r.Score, r.Explanation))
	}
	return out
}

// totals adds up a state dir's windows by assertion: passes, fails,
// errors, skipped.
func totals(dir string) map[string][4]uint64 {
	s, err := history.OpenReadOnly(dir)
	check(err)
	defer s.Close()
	out := map[string][4]uint64{}
	keys := s.Keys()
	sort.Strings(keys)
	for _, k := range keys {
		sr, _ := s.Series(k)
		var c [4]uint64
		for _, w := range sr.Windows {
			c[0], c[1], c[2], c[3] = c[0]+w.Passes, c[1]+w.Fails, c[2]+w.Errors, c[3]+w.Skipped
		}
		out[k] = c
	}
	return out
}
