// watch_history_bench_test.go: the watch pipeline's throughput with the result history off and on.
//
//	go test -run '^$' -bench BenchmarkWatchHistory -benchtime 20000x -count 3 .
//
// Issue 17: throughput with history on stays at least 50% of history off.
// Measured on the 2-core CI machine (shared with other jobs, so ±30% from
// run to run), per trace of five results:
//
//	off       ~15–27 µs  (37,000–65,000 traces/s)
//	never     ~24–32 µs  (31,000–41,000 traces/s: 65–80% of off; the default)
//	interval  ~30–51 µs  (20,000–33,000 traces/s: ~50–60%; fsync stalls the appends)
//	always    ~1.0–1.8 ms (550–980 traces/s: an fsync per result, ~2%)
//
// --fsync always buys power-loss durability at that price; the -bench
// pattern 'BenchmarkWatchHistory/(off|never|interval)' leaves it out.

package main

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"path/filepath"
	"testing"

	"attest-engine/watch"
)

// BenchmarkWatchHistory runs the whole watch command in process, per trace
// (read, validate, the suite's five assertions, five result lines), with
// --jobs 2 and the state dir through main's real Recorder (watch_env.go):
// off, and on under each --fsync policy.
func BenchmarkWatchHistory(b *testing.B) {
	for _, tc := range []struct{ name, fsync string }{
		{"off", ""}, {"never", "never"}, {"interval", "interval"}, {"always", "always"},
	} {
		b.Run(tc.name, func(b *testing.B) {
			var in bytes.Buffer
			for i := range b.N {
				fmt.Fprintf(&in, `{"schema_version":1,"trace_id":"trc_%d","agent_id":"refund-agent","steps":[{"type":"tool_call","name":"lookup_order"},{"type":"tool_call","name":"process_refund"}],"output":{"message":"Your refund RFD-%d has been processed."},"metadata":{"latency_ms":%d}}`+"\n", i, i, 1000+i%5000)
			}
			args := []string{"--suite", watchSuite, "--deterministic", "--jobs", "2", "--log-level", "error"}
			if tc.fsync != "" {
				args = append(args, "--state-dir", filepath.Join(b.TempDir(), "state"), "--fsync", tc.fsync)
			}
			b.ResetTimer()
			if code := watch.Run(context.Background(), args, &in, io.Discard, io.Discard, watchEnv()); code != 0 {
				b.Fatalf("exit %d", code)
			}
			b.StopTimer()
			b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "traces/s")
		})
	}
}
