package watch

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"testing"
)

// BenchmarkRun: the whole command in process, per trace (read, validate,
// the suite's five assertions, result lines), Attest NDJSON, --jobs 2. The
// suite's bad-regex assertion is failed from memory after the first trace.
func BenchmarkRun(b *testing.B) { benchRun(b) }

// BenchmarkRunShard: as BenchmarkRun, one shard of eight: per input line,
// mostly the cost of reading and dropping another shard's trace.
func BenchmarkRunShard(b *testing.B) { benchRun(b, "--shard", "0/8") }

func benchRun(b *testing.B, flags ...string) {
	var in bytes.Buffer
	for i := range b.N {
		fmt.Fprintf(&in, `{"schema_version":1,"trace_id":"trc_%d","agent_id":"refund-agent","steps":[{"type":"tool_call","name":"lookup_order"},{"type":"tool_call","name":"process_refund"}],"output":{"message":"Your refund RFD-%d has been processed."},"metadata":{"latency_ms":%d}}`+"\n", i, i, 1000+i%5000)
	}
	b.ResetTimer()
	args := append([]string{"--suite", "../testdata/watch/suite.json", "--deterministic", "--jobs", "2", "--log-level", "error"}, flags...)
	if code := RunEnv(context.Background(), args, &in, io.Discard, io.Discard, testEnv(nil)); code != 0 {
		b.Fatalf("exit %d", code)
	}
}
