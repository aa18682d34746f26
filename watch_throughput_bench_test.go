// watch_throughput_bench_test.go: watch's throughput per trace, OTLP/protobuf through --listen beside Attest NDJSON through a pipe, the same traces.
//
//	go test -run '^$' -bench WatchThroughput -benchtime 20000x -count 6 . | tee bench.txt
//	go run golang.org/x/perf/cmd/benchstat@latest -col /path bench.txt

package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

// BenchmarkWatchThroughput: b.N refund traces of three spans, five
// assertions each, --jobs 2, from the first byte sent to the last result
// line read, per trace; engine-cpu-µs/trace is the engine's own CPU
// (user and system) per trace, steadier than the wall clock on a shared
// machine; BENCH_ENGINE and BENCH_ENGINE_ENV apply (main_bench_test.go).
// path=attest-ndjson pipes the traces as Attest NDJSON lines (the
// eval path); path=otlp-protobuf-listen posts the same traces' spans as
// binary protobuf export requests of 512 spans (the SDKs' default batch)
// from two exporters to --listen, retried on 503 as Retry-After says.
func BenchmarkWatchThroughput(b *testing.B) {
	bin := benchEngine(b)
	suite := watchSuite
	run := func(b *testing.B, args []string, feed func(cmd *exec.Cmd, stdin io.WriteCloser, errs *bufio.Reader)) {
		cmd := exec.Command(bin, append([]string{"watch", "--suite", suite, "--jobs", "2", "--log-level", "info"}, args...)...)
		cmd.Env = append(os.Environ(), strings.Fields(os.Getenv("BENCH_ENGINE_ENV"))...)
		stdin, _ := cmd.StdinPipe()
		out, _ := cmd.StdoutPipe()
		errp, _ := cmd.StderrPipe()
		if err := cmd.Start(); err != nil {
			b.Fatal(err)
		}
		errs := bufio.NewReader(errp)
		b.ResetTimer()
		lines := 0
		var read sync.WaitGroup
		read.Go(func() {
			sc := bufio.NewScanner(out)
			sc.Buffer(nil, 1<<20)
			for sc.Scan() {
				lines++
			}
		})
		feed(cmd, stdin, errs)
		read.Wait()
		b.StopTimer()
		go io.Copy(io.Discard, errs)
		if err := cmd.Wait(); err != nil {
			b.Fatal(err)
		}
		if lines != 5*b.N {
			b.Fatalf("%d result lines for %d traces, want %d", lines, b.N, 5*b.N)
		}
		cpu := cmd.ProcessState.UserTime() + cmd.ProcessState.SystemTime()
		b.ReportMetric(float64(cpu.Microseconds())/float64(b.N), "engine-cpu-µs/trace")
	}
	b.Run("path=attest-ndjson", func(b *testing.B) {
		run(b, []string{"--deterministic"}, func(_ *exec.Cmd, stdin io.WriteCloser, _ *bufio.Reader) {
			w := bufio.NewWriterSize(stdin, 1<<20)
			for i := range b.N {
				writeTrace(w, "attest", i)
			}
			w.Flush()
			stdin.Close()
		})
	})
	b.Run("path=otlp-protobuf-listen", func(b *testing.B) {
		// The requests are made before the clock starts.
		const perRequest = 512 / 3
		var bodies [][]byte
		for first := 0; first < b.N; first += perRequest {
			var spans []genSpan
			for i := first; i < min(first+perRequest, b.N); i++ {
				spans = append(spans, refundSpans(i)...)
			}
			bodies = append(bodies, protoRequest(spans))
		}
		b.StopTimer()
		run(b, []string{"--listen", "127.0.0.1:0", "--grace", "100ms"}, func(cmd *exec.Cmd, stdin io.WriteCloser, errs *bufio.Reader) {
			var addr string
			for addr == "" {
				l, err := errs.ReadBytes('\n')
				if err != nil {
					b.Fatal("no listening log line")
				}
				var m map[string]any
				if json.Unmarshal(l, &m) == nil && m["msg"] == "listening for OTLP/HTTP" {
					addr = m["address"].(string)
				}
			}
			b.StartTimer()
			url := "http://" + addr + "/v1/traces"
			next := make(chan []byte)
			var clients sync.WaitGroup
			for range 2 {
				clients.Go(func() {
					for body := range next {
						for {
							req, _ := http.NewRequest("POST", url, bytes.NewReader(body))
							req.Header.Set("Content-Type", "application/x-protobuf")
							resp, err := http.DefaultClient.Do(req)
							if err != nil {
								b.Error(err)
								return
							}
							io.Copy(io.Discard, resp.Body)
							resp.Body.Close()
							if resp.StatusCode == http.StatusOK {
								break
							}
							after, _ := strconv.Atoi(resp.Header.Get("Retry-After"))
							if resp.StatusCode != http.StatusServiceUnavailable || after < 1 {
								b.Errorf("HTTP %d", resp.StatusCode)
								return
							}
							time.Sleep(time.Duration(after) * time.Second)
						}
					}
				})
			}
			for _, body := range bodies {
				next <- body
			}
			close(next)
			clients.Wait()
			stdin.Close()
			// Every span is taken: the traces still open are closed and
			// evaluated at the signal.
			cmd.Process.Signal(syscall.SIGTERM)
		})
	})
}
