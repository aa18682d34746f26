// report_server_test.go: --report in server mode: written whichever way serving ends, never changing answers.

package rpc

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"attest-engine/assert"
)

const (
	reportInit  = `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"sdk_name":"t","sdk_version":"0","protocol_version":1,"required_capabilities":[],"preferred_encoding":"json"}}`
	reportEval  = `{"jsonrpc":"2.0","id":2,"method":"evaluate_batch","params":{"trace":{"schema_version":1,"trace_id":"trc_wire","output":{"message":"refund done"}},"assertions":[{"assertion_id":"c1","type":"content","spec":{"target":"output.message","check":"contains","value":"refund"}}]}}`
	reportClose = `{"jsonrpc":"2.0","id":99,"method":"shutdown","params":{}}`
)

// serveWithReport serves input (ended as `ending` says) with a report asked
// for at path, after recording a native and a plugin result directly, and
// returns stdout and the log.
func serveWithReport(t *testing.T, path, ending string) (string, string) {
	t.Helper()
	eng, err := assert.New(assert.Config{})
	if err != nil {
		t.Fatal(err)
	}
	var logBuf bytes.Buffer
	s := New(Options{Engine: eng, ReportPath: path, Logger: slog.New(slog.NewJSONHandler(&logBuf, nil))})
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
	return out.String(), logBuf.String()
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
	tests := []struct {
		ending, file string
		reason       string
	}{
		{"shutdown", "report.json", "written after the shutdown answer, as JSON for .json"},
		{"eof", "report.xml", "written at end of input, as JUnit for .xml"},
		{"sigterm", "report.txt", "written at SIGTERM, as text for any other extension"},
	}
	for _, tc := range tests {
		t.Run(tc.ending, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), tc.file)
			serveWithReport(t, path, tc.ending)
			data, err := os.ReadFile(path)
			if err != nil {
				t.Fatalf("%s: %v", tc.reason, err)
			}
			switch FormatForPath(path) {
			case FormatJSON:
				var doc struct {
					Traces []struct {
						Name    string
						Results []struct{ AssertionID, Plugin string } `json:"results"`
					}
				}
				if err := json.Unmarshal(data, &doc); err != nil {
					t.Fatalf("%s: %v", tc.reason, err)
				}
				if len(doc.Traces) != 2 || doc.Traces[0].Name != "trc_seed" || len(doc.Traces[0].Results) != 2 || doc.Traces[1].Name != "trc_wire" {
					t.Errorf("%s: want trc_seed (native and plugin results) then trc_wire: %s", tc.reason, data)
				}
			case FormatJUnit:
				if doc := checkJUnit(t, data); len(doc.Suites) != 2 {
					t.Errorf("%s: %d testsuites, want 2", tc.reason, len(doc.Suites))
				}
			default:
				for _, want := range []string{"trace trc_seed: hard_fail", "plugin_1 (plugin safety)", "trace trc_wire", "FAIL\n"} {
					if !strings.Contains(string(data), want) {
						t.Errorf("%s: text report lacks %q:\n%s", tc.reason, want, data)
					}
				}
			}
			matches, _ := filepath.Glob(filepath.Join(filepath.Dir(path), ".*"))
			if len(matches) > 0 {
				t.Errorf("temporary files left behind: %v", matches)
			}
		})
	}
}

func TestServerReportFailureIsOnlyLogged(t *testing.T) {
	good := filepath.Join(t.TempDir(), "ok.json")
	bad := filepath.Join(t.TempDir(), "missing-dir", "report.json")
	want, _ := serveWithReport(t, good, "shutdown")
	got, log := serveWithReport(t, bad, "shutdown")
	if normalize(t, []byte(got)) != normalize(t, []byte(want)) {
		t.Errorf("a report that cannot be written changed the answers:\n%s\nvs\n%s", got, want)
	}
	if !strings.Contains(log, "writing report") {
		t.Errorf("the failed report write was not logged: %s", log)
	}
}

func TestNoReportNoRecord(t *testing.T) {
	s := New(Options{})
	s.record.add("trc", "", "", assert.Result{AssertionID: "a"})
	if len(s.record.snapshot()) != 0 {
		t.Errorf("results recorded without --report: memory grows for nothing")
	}
}
