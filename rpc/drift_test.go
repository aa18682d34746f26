// drift_test.go: the session's history over a live server: drift_alert only
// to a client that opted in, query_drift's keys, threshold "dynamic".

package rpc

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"attest-engine/assert"
	"attest-engine/history"
	"attest-engine/provider"
)

// live is a server over pipes, driven one request at a time as the SDK
// fixtures do.
type live struct {
	t    *testing.T
	in   *io.PipeWriter
	out  *bufio.Reader
	done chan error
}

func startLive(t *testing.T, store *history.Store, cfg assert.Config) *live {
	t.Helper()
	eng, err := assert.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	if store != nil {
		eng.SetThresholds(Thresholds(store))
	}
	s := New(Options{Engine: eng, History: store})
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	l := &live{t: t, in: inW, out: bufio.NewReader(outR), done: make(chan error, 1)}
	go func() {
		err := s.Serve(context.Background(), inR, outW)
		outW.Close()
		l.done <- err
	}()
	return l
}

// call sends one request and returns every line up to and including its
// answer (decoded), the notifications before it first.
func (l *live) call(line string) []map[string]any {
	l.t.Helper()
	if _, err := io.WriteString(l.in, line+"\n"); err != nil {
		l.t.Fatal(err)
	}
	var got []map[string]any
	for {
		text, err := l.out.ReadString('\n')
		if err != nil {
			l.t.Fatalf("reading answer to %.80s: %v", line, err)
		}
		var m map[string]any
		if err := json.Unmarshal([]byte(text), &m); err != nil {
			l.t.Fatalf("line %q: %v", text, err)
		}
		got = append(got, m)
		if _, ok := m["id"]; ok {
			return got
		}
	}
}

func (l *live) close() {
	l.in.Close()
	io.Copy(io.Discard, l.out)
	if err := <-l.done; err != nil {
		l.t.Fatal(err)
	}
}

func initLine(extra string) string {
	return `{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"sdk_name":"t","sdk_version":"0","protocol_version":1,"required_capabilities":[],"preferred_encoding":"json"` + extra + `}}`
}

// batch is one content assertion "refund" over a new trace; pass decides
// whether the output contains the word.
func batch(id int, pass bool) string {
	msg := "no luck"
	if pass {
		msg = "refund done"
	}
	return fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"evaluate_batch","params":{"trace":{"schema_version":1,"trace_id":"t%d","output":{"message":%q}},"assertions":[{"assertion_id":"refund","type":"content","spec":{"target":"output.message","check":"contains","value":"refund"}}]}}`, id, id, msg)
}

func openStore(t *testing.T) *history.Store {
	t.Helper()
	s, err := history.Open(t.TempDir(), history.Options{Sync: history.SyncNever, NoAlertFile: true, Drift: history.DriftConfig{BaselineN: 100}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

// drive runs 100 passing batches (the baseline) then failing ones until
// 300, and returns, per batch id, the notifications written before its
// answer.
func drive(t *testing.T, extra string) (map[int][]map[string]any, *live) {
	l := startLive(t, openStore(t), assert.Config{})
	l.call(initLine(extra))
	notes := map[int][]map[string]any{}
	for i := 1; i <= 300; i++ {
		lines := l.call(batch(i, i <= 100 || i%2 == 0))
		if len(lines) > 1 {
			notes[i] = lines[:len(lines)-1]
		}
		if ans := lines[len(lines)-1]; ans["id"] != float64(i) || ans["result"] == nil {
			t.Fatalf("batch %d: answer %v", i, ans)
		}
	}
	return notes, l
}

func TestDriftAlertOnlyWhenAsked(t *testing.T) {
	for _, tc := range []struct {
		name, extra string
		want        bool
	}{
		{"not asked", ``, false},
		{"asked for something else", `,"notifications":["progress"]`, false},
		{"asked", `,"notifications":["drift_alert"]`, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			notes, l := drive(t, tc.extra)
			defer l.close()
			if !tc.want {
				if len(notes) != 0 {
					t.Fatalf("%d unsolicited notifications, first before batch %v", len(notes), notes)
				}
				return
			}
			if len(notes) != 1 {
				t.Fatalf("notifications before %d batches, want exactly one alert: %v", len(notes), notes)
			}
			for id, ns := range notes {
				n := ns[0]
				p, _ := n["params"].(map[string]any)
				if n["method"] != "drift_alert" || n["id"] != nil || p["reason"] != "drift" || id <= 100 {
					t.Errorf("before batch %d: %v", id, n)
				}
				for _, k := range []string{"assertion_id", "mean", "stddev", "count", "latest_score", "deviation", "status", "alert"} {
					if _, ok := p[k]; !ok {
						t.Errorf("drift_alert params lack %q: %v", k, p)
					}
				}
				if p["status"] != "drift_detected" {
					t.Errorf("status %v, want drift_detected", p["status"])
				}
			}
		})
	}
}

func TestQueryDrift(t *testing.T) {
	notes, l := drive(t, "")
	defer l.close()
	_ = notes
	tests := []struct {
		name, params string
		want         map[string]any // a subset of the answer's report, or of its error
	}{
		{"earlier engine's keys", `{"assertion_id":"refund","window_size":20}`,
			map[string]any{"assertion_id": "refund", "count": 20.0, "mean": 0.5, "latest_score": 1.0, "status": "drift_detected", "phase": "monitoring", "total": 300.0}},
		{"default window 50", `{"assertion_id":"refund"}`, map[string]any{"count": 60.0}},
		{"no history", `{"assertion_id":"other"}`, map[string]any{"assertion_id": "other", "count": 0.0, "status": "ok", "phase": "baseline"}},
		{"window_size null is the default", `{"assertion_id":"refund","window_size":null}`, map[string]any{"count": 60.0}},
		{"window_size 0", `{"assertion_id":"refund","window_size":0}`, map[string]any{"code": -32602.0, "message": "invalid params: field 'window_size' must be between 1 and 1000000"}},
		{"no assertion_id", `{}`, map[string]any{"code": -32602.0, "message": "invalid params: missing required field 'assertion_id'"}},
	}
	for i, tc := range tests {
		lines := l.call(fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"query_drift","params":%s}`, 1000+i, tc.params))
		ans := lines[len(lines)-1]
		got, ok := ans["error"].(map[string]any)
		if !ok {
			got = ans["result"].(map[string]any)["report"].(map[string]any)
		}
		sub := map[string]any{}
		for k := range tc.want {
			sub[k] = got[k]
		}
		if d := cmp.Diff(tc.want, sub); d != "" {
			t.Errorf("%s (-want +got):\n%s", tc.name, d)
		}
	}
}

func TestQueryDriftWithoutHistory(t *testing.T) {
	l := startLive(t, nil, assert.Config{})
	defer l.close()
	l.call(initLine(`,"notifications":["drift_alert"]`))
	lines := l.call(`{"jsonrpc":"2.0","id":1,"method":"query_drift","params":{"assertion_id":"a"}}`)
	e, _ := lines[0]["error"].(map[string]any)
	if e["code"] != -32601.0 || !strings.Contains(e["message"].(string), "no --state-dir") {
		t.Errorf("answer %v, want -32601 naming --state-dir", lines)
	}
}

// TestDynamicThresholdSession: "threshold": "dynamic" is judged against the
// default threshold, saying so, until the assertion (its key: the ids
// change every batch, as an SDK draws them) has history, then against the
// learned threshold; a failure notifies an opted-in client before the
// answer.
func TestDynamicThresholdSession(t *testing.T) {
	cfg := assert.Config{Settings: provider.Settings{Embedding: provider.Config{Provider: "lexical"}, Getenv: func(string) string { return "" }}}
	l := startLive(t, openStore(t), cfg)
	defer l.close()
	l.call(initLine(`,"notifications":["drift_alert"]`))
	emb := func(id int, msg string) string {
		return fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"evaluate_batch","params":{"trace":{"schema_version":1,"trace_id":"t%d","output":{"message":%q}},"assertions":[{"assertion_id":"assert_%08x","type":"embedding","spec":{"target":"output.message","reference":"your refund was processed","threshold":"dynamic","model":"lexical"}}]}}`, id, id, msg, id)
	}
	result := func(lines []map[string]any) map[string]any {
		return lines[len(lines)-1]["result"].(map[string]any)["results"].([]any)[0].(map[string]any)
	}
	r := result(l.call(emb(1, "your refund was processed today")))
	if r["status"] != "pass" || !strings.Contains(r["explanation"].(string), "(the default while 'dynamic' learns: too few earlier results to learn a threshold: assertion \"ak_") {
		t.Fatalf("no history: %v, want judged against the default, saying so", r)
	}
	for i := 2; i < 40; i++ {
		l.call(emb(i, "your refund was processed today"))
	}
	r = result(l.call(emb(40, "your refund was processed today")))
	if r["status"] != "pass" || !strings.Contains(r["explanation"].(string), "(dynamic threshold ") {
		t.Errorf("same text: %v, want pass against the learned threshold", r)
	}
	lines := l.call(emb(41, "the weather is fine"))
	r = result(lines)
	if r["status"] != "hard_fail" || len(lines) != 2 || lines[0]["method"] != "drift_alert" || lines[0]["params"].(map[string]any)["reason"] != "dynamic_threshold_failed" {
		t.Errorf("other text: %v, want hard_fail after a drift_alert", lines)
	}
}

// BenchmarkHistory: the spec batch over 64 distinct traces (stable
// assertion ids, nothing answered from the idempotency record), with no
// history, with a report, and with --state-dir (fsync never and interval):
// what recording five results per batch, with their keys, costs against
// evaluating them.
func BenchmarkHistory(b *testing.B) {
	line := []byte(specBatchLine(b))
	var lines [][]byte
	for i := range 64 {
		lines = append(lines, []byte(strings.Replace(string(line), `"trace_id":"trc_abc123"`, fmt.Sprintf(`"trace_id":"trc_%03d"`, i), 1)))
	}
	for _, tc := range []struct {
		name   string
		sync   history.SyncPolicy
		report bool
	}{{"off", 0, false}, {"report", 0, true}, {"sync=never", history.SyncNever, false}, {"sync=interval", history.SyncInterval, false}} {
		b.Run(tc.name, func(b *testing.B) {
			s := newReadyServer(b)
			if tc.sync != 0 {
				st, err := history.Open(b.TempDir(), history.Options{Sync: tc.sync, NoAlertFile: true})
				if err != nil {
					b.Fatal(err)
				}
				defer st.Close()
				s.history, s.ids = st, newSessionIDs() // as New sets them
			}
			if tc.report { // --report: every result handed over, its keys computed
				s.RecordTo(func(Record) {}, func() {})
			}
			ctx := context.Background()
			b.ReportAllocs()
			i := 0
			for b.Loop() {
				req, perr := s.parseBatch(lines[i%len(lines)])
				i++
				if perr != nil {
					b.Fatal(perr)
				}
				if _, err := s.evaluate(ctx, req); err != nil {
					b.Fatal(err)
				}
				req.release()
			}
			b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "batches/s")
		})
	}
}

// FuzzHistorySession: any input to a server with a history and a client
// that opted in to drift_alert gets only well-formed lines: answers, and
// drift_alert notifications without an id.
func FuzzHistorySession(f *testing.F) {
	f.Add([]byte(`{"jsonrpc":"2.0","id":1,"method":"query_drift","params":{"assertion_id":"refund","window_size":3}}` + "\n"))
	f.Add([]byte(`{"jsonrpc":"2.0","id":1,"method":"query_drift","params":{"assertion_id":7,"window_size":1e300}}` + "\n"))
	f.Add([]byte(`{"jsonrpc":"2.0","id":1,"method":"query_drift","params":{"assertion_id":"","window_size":-1}}` + "\n"))
	f.Add([]byte(batch(1, false) + "\n" + batch(2, true) + "\n"))
	f.Add([]byte(strings.Replace(batch(3, false), `"check":"contains"`, `"check":"contains","threshold":"dynamic"`, 1) + "\n"))
	eng, err := assert.New(assert.Config{})
	if err != nil {
		f.Fatal(err)
	}
	store, err := history.Open(f.TempDir(), history.Options{NoAlertFile: true, MaxKeys: 64, Drift: history.DriftConfig{BaselineN: 40, MinN: 10}})
	if err != nil {
		f.Fatal(err)
	}
	defer store.Close()
	eng.SetThresholds(Thresholds(store))
	init := initLine(`,"notifications":["drift_alert"]`) + "\n"
	f.Fuzz(func(t *testing.T, input []byte) {
		s := New(Options{Engine: eng, History: store})
		var out bytes.Buffer
		if err := s.Serve(context.Background(), bytes.NewReader(append([]byte(init), input...)), &out); err != nil {
			t.Fatal(err)
		}
		for _, line := range bytes.SplitAfter(out.Bytes(), []byte("\n")) {
			if len(line) == 0 {
				continue
			}
			var msg struct {
				JSONRPC string          `json:"jsonrpc"`
				ID      json.RawMessage `json:"id"`
				Method  string          `json:"method"`
				Params  json.RawMessage `json:"params"`
				Result  json.RawMessage `json:"result"`
				Error   json.RawMessage `json:"error"`
			}
			if err := json.Unmarshal(line, &msg); err != nil || msg.JSONRPC != "2.0" {
				t.Fatalf("bad line %q (%v)", line, err)
			}
			note := msg.Method == "drift_alert" && msg.ID == nil && msg.Params != nil && msg.Result == nil && msg.Error == nil
			answer := msg.Method == "" && (msg.Result == nil) != (msg.Error == nil)
			if !note && !answer {
				t.Fatalf("neither an answer nor a drift_alert: %q", line)
			}
		}
	})
}

// TestRetryNotCountedTwice: a batch re-sent with the same request_id is
// answered from the record (spec §2.2) and not recorded in history again.
func TestRetryNotCountedTwice(t *testing.T) {
	l := startLive(t, openStore(t), assert.Config{})
	defer l.close()
	l.call(initLine(""))
	retry := strings.Replace(batch(1, true), `"assertion_id":"refund"`, `"assertion_id":"refund","request_id":"req_1"`, 1)
	l.call(retry)
	l.call(strings.Replace(retry, `"id":1,`, `"id":2,`, 1))
	l.call(batch(3, false))
	lines := l.call(`{"jsonrpc":"2.0","id":4,"method":"query_drift","params":{"assertion_id":"refund"}}`)
	rep := lines[0]["result"].(map[string]any)["report"].(map[string]any)
	if rep["total"] != 2.0 || rep["count"] != 2.0 {
		t.Errorf("total %v, count %v: want 2 (the retry not counted)", rep["total"], rep["count"])
	}
}
