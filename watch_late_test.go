// watch_late_test.go: children that come after their root's grace period,
// in a file and live: the rule of docs/watch.md ("Late spans").

package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// lateRequest is an OTLP/JSON request of spans of trace id: its root when
// root, and the tools named, at event time t (ms).
func lateRequest(id string, root bool, t int64, tools ...string) string {
	base := int64(1_764_000_000_000_000_000) + t*int64(time.Millisecond)
	var spans []string
	if root {
		spans = append(spans, otlpSpan(id, "0000000000000001", "", "invoke_agent agent", "invoke_agent", "", base, base+int64(50*time.Millisecond)))
	}
	for i, tool := range tools {
		s := base + int64(i+1)*int64(time.Millisecond)
		spans = append(spans, otlpSpan(id, fmt.Sprintf("00000000000000%s", map[string]string{"t1": "a1", "t2": "a2", "t3": "a3"}[tool]),
			"0000000000000001", "execute_tool "+tool, "execute_tool", tool, s, s+int64(time.Millisecond)))
	}
	return `{"resourceSpans":[{"scopeSpans":[{"spans":[` + strings.Join(spans, ",") + `]}]}]}`
}

// lateLine is what the test reads of a result line.
type lateLine struct {
	Trace      string `json:"trace_id"`
	Assertion  string `json:"assertion"`
	Status     string `json:"status"`
	ResultID   string `json:"result_id"`
	Supersedes string `json:"supersedes"`
	LateSpans  int    `json:"late_spans"`
	Incomplete bool   `json:"incomplete"`
}

// checkLate checks the all-tools lines of traces a (its t2 and t3 after
// --grace, within --idle: a new verdict supersedes the first) and c (after
// --idle: too late), and the history's count of all (passes, fails,
// errors, skipped).
func checkLate(t *testing.T, out []byte, state string, history [4]uint64) {
	t.Helper()
	var got []string
	ids := map[string]string{}
	for _, l := range lines(string(out)) {
		var r lateLine
		if err := json.Unmarshal([]byte(l), &r); err != nil {
			t.Fatal(err)
		}
		if r.Assertion != "all-tools" || strings.HasSuffix(r.Trace, "b") {
			continue
		}
		trace := r.Trace[len(r.Trace)-1:]
		sup := ""
		if r.Supersedes != "" {
			sup = " supersedes " + ids[r.Supersedes]
		}
		name := fmt.Sprintf("%s#%d", trace, len(ids)+1)
		ids[r.ResultID] = name
		got = append(got, fmt.Sprintf("%s %s%s late=%d incomplete=%v", name, r.Status, sup, r.LateSpans, r.Incomplete))
	}
	want := []string{
		"a#1 hard_fail late=0 incomplete=false",
		"a#2 pass supersedes a#1 late=0 incomplete=false",
		"c#3 hard_fail late=0 incomplete=false",
		"c#4 skipped supersedes c#3 late=2 incomplete=true",
	}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("all-tools lines (-want +got):\n%s", d)
	}
	if d := cmp.Diff(map[string][4]uint64{"all-tools": history}, map[string][4]uint64{"all-tools": totals(t, state)["all-tools"]}); d != "" {
		t.Errorf("the history counts one verdict per trace, the latest (passes, fails, errors, skipped) (-want +got):\n%s", d)
	}
}

// TestWatchLateSpans: a trace's t2 and t3 after --grace (within --idle)
// make a new verdict over all its spans that supersedes the first; after
// --idle, a too-late line: in a file (event time) and live (--listen).
func TestWatchLateSpans(t *testing.T) {
	bin := buildEngine(t)
	dir := t.TempDir()
	suite := filepath.Join(dir, "suite.json")
	os.WriteFile(suite, []byte(durableSuite), 0o644)
	a, b, c := strings.Repeat("a", 32), strings.Repeat("b", 32), strings.Repeat("c", 32)

	t.Run("file", func(t *testing.T) {
		in := strings.Join([]string{
			lateRequest(a, true, 0, "t1"),
			lateRequest(b, true, 2000), // the watermark passes a's grace: a closes with t1 only
			lateRequest(a, false, 10, "t2", "t3"),
			lateRequest(c, true, 3000, "t1"),
			lateRequest(b, false, 5000, "t1"),  // past c's grace: c closes with t1 only
			lateRequest(b, false, 20000, "t2"), // past --idle after c closed: its spans are let go
			lateRequest(c, false, 3010, "t2", "t3"),
		}, "\n") + "\n"
		path, state := filepath.Join(dir, "late.jsonl"), filepath.Join(dir, "file-state")
		os.WriteFile(path, []byte(in), 0o644)
		out, code := runWatch(t, bin, nil, nil, "--suite", suite, "--in", path, "--deterministic", "--grace", "1s", "--idle", "10s", "--state-dir", state)
		if code != 0 {
			t.Fatalf("exit %d", code)
		}
		checkLate(t, []byte(out), state, [4]uint64{1, 1, 0, 1}) // and b's, which never had its tools
	})

	t.Run("live", func(t *testing.T) {
		state := filepath.Join(dir, "live-state")
		w := startWatch(t, bin, "--suite", suite, "--listen", "127.0.0.1:0", "--grace", "300ms", "--idle", "4s", "--state-dir", state)
		url := "http://" + w.logged(t, "listening for OTLP/HTTP")["address"].(string) + "/v1/traces"
		var out bytes.Buffer
		post := func(body string) {
			resp, err := http.Post(url, "application/json", strings.NewReader(body))
			if err != nil || resp.StatusCode != 200 {
				t.Fatalf("POST: %v %v", resp, err)
			}
			resp.Body.Close()
		}
		take := func(n int) {
			for range n {
				r := w.next(t, 10*time.Second)
				b, _ := json.Marshal(r)
				out.Write(append(b, '\n'))
			}
		}
		post(lateRequest(a, true, 0, "t1"))
		take(3) // a closed after the grace, t1 only
		post(lateRequest(a, false, 10, "t2", "t3"))
		take(3) // a again, all its spans
		post(lateRequest(c, true, 3000, "t1"))
		take(3)
		time.Sleep(4500 * time.Millisecond) // past --idle: c's spans are let go
		post(lateRequest(c, false, 3010, "t2", "t3"))
		take(3) // the too-late lines, once the part closes (--idle: it has no root)
		w.cmd.Process.Signal(os.Interrupt)
		w.cmd.Wait()
		checkLate(t, out.Bytes(), state, [4]uint64{1, 0, 0, 1})
	})
}

// TestWatchResentAfterIdle: a request sent again whole after its trace's
// spans were let go (past --idle: an exporter's retry whose first 200 was
// lost) changes no verdict: its spans are re-deliveries, not late ones.
func TestWatchResentAfterIdle(t *testing.T) {
	bin := buildEngine(t)
	dir := t.TempDir()
	suite, path, state := filepath.Join(dir, "suite.json"), filepath.Join(dir, "in.jsonl"), filepath.Join(dir, "state")
	os.WriteFile(suite, []byte(durableSuite), 0o644)
	x, y, z := strings.Repeat("d", 32), strings.Repeat("e", 32), strings.Repeat("f", 32)
	whole := lateRequest(x, true, 0, "t1", "t2", "t3")
	// y's time closes x (past its grace), z's lets x's spans go (past
	// --idle after x closed); then x's request again.
	in := strings.Join([]string{whole, lateRequest(y, true, 30000, "t1", "t2", "t3"), lateRequest(z, true, 60000, "t1", "t2", "t3"), whole}, "\n") + "\n"
	os.WriteFile(path, []byte(in), 0o644)
	out, code := runWatch(t, bin, nil, nil, "--suite", suite, "--in", path, "--deterministic", "--grace", "1s", "--idle", "10s", "--state-dir", state)
	if code != 0 {
		t.Fatalf("exit %d", code)
	}
	var got []string
	for _, l := range lines(out) {
		var r lateLine
		if err := json.Unmarshal([]byte(l), &r); err != nil {
			t.Fatal(err)
		}
		if r.Assertion == "all-tools" {
			got = append(got, fmt.Sprintf("%s %s late=%d supersedes=%v", r.Trace[:1], r.Status, r.LateSpans, r.Supersedes != ""))
		}
	}
	if d := cmp.Diff([]string{"d pass late=0 supersedes=false", "e pass late=0 supersedes=false", "f pass late=0 supersedes=false"}, got); d != "" {
		t.Errorf("all-tools lines (-want +got):\n%s", d)
	}
	if d := cmp.Diff([4]uint64{3, 0, 0, 0}, totals(t, state)["all-tools"]); d != "" {
		t.Errorf("the history's all-tools (passes, fails, errors, skipped) (-want +got):\n%s", d)
	}
}
