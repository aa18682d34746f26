// report_server_test.go: --report in server mode: every result handed over whichever way serving ends (main.go writes the file).

package rpc

import (
	"bytes"
	"context"
	"io"
	"strings"
	"sync"
	"testing"
	"time"

	"attest-engine/assert"

	"github.com/google/go-cmp/cmp"
)

const (
	reportInit  = `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"sdk_name":"t","sdk_version":"0","protocol_version":1,"required_capabilities":[],"preferred_encoding":"json"}}`
	reportEval  = `{"jsonrpc":"2.0","id":2,"method":"evaluate_batch","params":{"trace":{"schema_version":1,"trace_id":"trc_wire","output":{"message":"refund done"}},"assertions":[{"assertion_id":"c1","type":"content","spec":{"target":"output.message","check":"contains","value":"refund"}}]}}`
	reportClose = `{"jsonrpc":"2.0","id":99,"method":"shutdown","params":{}}`
)

// serveWithReport serves input (ended as `ending` says) with a report asked
// for, after recording a native and a plugin result directly, and returns
// stdout and the results RecordTo handed on, one list per call of done.
func serveWithReport(t *testing.T, ending string) (string, [][]Record) {
	t.Helper()
	return serveWithReportSpec(t, ending, nil)
}

// serveWithReportSpec is serveWithReport with Options.ReportSpec set to spec.
func serveWithReportSpec(t *testing.T, ending string, spec func(map[string]any) string) (string, [][]Record) {
	t.Helper()
	eng, err := assert.New(assert.Config{})
	if err != nil {
		t.Fatal(err)
	}
	var (
		mu    sync.Mutex
		recs  []Record
		calls [][]Record
	)
	s := New(Options{Engine: eng, ReportSpec: spec})
	s.RecordTo(func(r Record) {
		mu.Lock()
		defer mu.Unlock()
		recs = append(recs, r)
	}, func() {
		mu.Lock()
		defer mu.Unlock()
		calls, recs = append(calls, recs), nil
	})
	s.record.add("trc_seed", "", "", assert.Result{AssertionID: "native_1", Status: assert.HardFail, Explanation: "seeded"})
	s.record.add("trc_seed", "", "safety", assert.Result{AssertionID: "plugin_1", Status: assert.Pass, Score: 0.9, Explanation: "seeded plugin"})
	lines := reportInit + "\n" + reportEval + "\n"
	var out lockedBuffer
	switch ending {
	case "shutdown":
		err = s.Serve(context.Background(), strings.NewReader(lines+reportClose+"\n"), &out)
	case "eof":
		err = s.Serve(context.Background(), strings.NewReader(lines), &out)
	case "sigterm":
		pr, pw := io.Pipe()
		defer pw.Close()
		go func() { _, _ = io.WriteString(pw, lines) }()
		ctx, cancel := context.WithCancel(context.Background())
		go func() {
			for !strings.Contains(out.String(), `"id":2`) {
				time.Sleep(time.Millisecond)
			}
			cancel() // SIGTERM once the batch is answered
		}()
		err = s.Serve(ctx, pr, &out)
	}
	if err != nil {
		t.Fatal(err)
	}
	mu.Lock()
	defer mu.Unlock()
	return out.String(), calls
}

// lockedBuffer is a bytes.Buffer safe to read while the server writes.
type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

func TestServerReport(t *testing.T) {
	type rec struct{ TraceID, Plugin, AssertionID, Type, Spec string }
	want := []rec{{"trc_seed", "", "native_1", "", ""}, {"trc_seed", "safety", "plugin_1", "", ""}, {"trc_wire", "", "c1", "content", ""}}
	tests := []struct {
		ending, reason string
	}{
		{"shutdown", "handed over after the shutdown answer"},
		{"eof", "handed over at end of input"},
		{"sigterm", "handed over at SIGTERM"},
	}
	for _, tc := range tests {
		t.Run(tc.ending, func(t *testing.T) {
			_, calls := serveWithReport(t, tc.ending)
			if len(calls) != 1 {
				t.Fatalf("%s: Report called %d times, want once", tc.reason, len(calls))
			}
			var got []rec
			for _, r := range calls[0] {
				got = append(got, rec{r.TraceID, r.Plugin, r.Result.AssertionID, r.Type, r.Spec})
			}
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("%s: native and plugin results in the order recorded, a batch's with its assertion type, no spec without ReportSpec (-want +got):\n%s", tc.reason, diff)
			}
		})
	}
}

// TestServerReportSpec: with Options.ReportSpec (an HTML report), each
// batch result carries its assertion's spec as ReportSpec makes it.
func TestServerReportSpec(t *testing.T) {
	_, calls := serveWithReportSpec(t, "shutdown", func(spec map[string]any) string { return "check=" + spec["check"].(string) })
	if len(calls) != 1 || len(calls[0]) != 3 {
		t.Fatalf("Report calls %v, want one with three records", calls)
	}
	if r := calls[0][2]; r.Spec != "check=contains" || r.Type != "content" {
		t.Errorf("batch result recorded with type %q, spec %q; want content and ReportSpec's text", r.Type, r.Spec)
	}
	if r := calls[0][1]; r.Spec != "" {
		t.Errorf("a plugin result has no assertion spec; got %q", r.Spec)
	}
}

func TestServerReportDoesNotChangeAnswers(t *testing.T) {
	eng, err := assert.New(assert.Config{})
	if err != nil {
		t.Fatal(err)
	}
	var plain lockedBuffer
	input := reportInit + "\n" + reportEval + "\n" + reportClose + "\n"
	if err := New(Options{Engine: eng}).Serve(context.Background(), strings.NewReader(input), &plain); err != nil {
		t.Fatal(err)
	}
	got, _ := serveWithReport(t, "shutdown")
	if normalize(t, []byte(got)) != normalize(t, []byte(plain.String())) {
		t.Errorf("asking for a report changed the answers:\n%s\nvs\n%s", got, plain.String())
	}
}

// TestNoReportNoRecord: without RecordTo the recorder is off: a result is
// neither kept nor handed on (with no sink, handing it on would panic).
func TestNoReportNoRecord(t *testing.T) {
	s := New(Options{ReportSpec: func(map[string]any) string { return "spec" }})
	if s.record.on {
		t.Fatal("the recorder is on without RecordTo")
	}
	s.record.add("trc", "", "", assert.Result{AssertionID: "a"})
	s.record.addBatch("trc", "", nil, []assert.Result{{AssertionID: "a"}}, &batchKeys{})
}
