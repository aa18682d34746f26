// keys_test.go: the session's results keyed by assertion key: history across random ids, query_drift by
// id or key, and the keys a report receives.

package rpc

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"sync"
	"testing"

	"attest-engine/assert"
	"attest-engine/resultkey"
)

// keyedBatch is one content assertion with a new random-looking id per batch (as the Python SDK draws
// them) over a trace of input; scenario, when set, makes the batch a run of it.
func keyedBatch(id int, input, scenario string) (string, string) {
	aid := fmt.Sprintf("assert_%08x", 0x9e3779b9*uint32(id))
	extra := ""
	if scenario != "" {
		extra = fmt.Sprintf(`,"scenario_id":%q,"repeat":%d`, scenario, id%3)
	}
	return fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"evaluate_batch","params":{"trace":{"schema_version":1,"trace_id":"trc_%d","agent_id":"a","input":%s,"output":{"message":"refund done"}},`+
		`"assertions":[{"assertion_id":%q,"type":"content","spec":{"value":"refund","check":"contains","target":"output.message"}}]%s}}`, id, id, input, aid, extra), aid
}

const keyedSpec = `{"target":"output.message","check":"contains","value":"refund"}`

func TestHistoryByAssertionKey(t *testing.T) {
	store := openStore(t)
	l := startLive(t, store, assert.Config{})
	defer l.close()
	l.call(initLine(""))
	var ids []string
	for i := 1; i <= 5; i++ {
		line, id := keyedBatch(i, `{"q":1}`, "")
		if i == 3 { // the same spec written otherwise: one key (the key cache is by text)
			line = strings.Replace(line, `{"value":"refund","check":"contains","target":"output.message"}`, `{ "target": "output.message", "check": "contains", "value": "refund" }`, 1)
		}
		l.call(line)
		ids = append(ids, id)
	}
	key, err := resultkey.Assertion("content", decodeSpec(t, keyedSpec), "", "")
	if err != nil {
		t.Fatal(err)
	}
	if got := store.Keys(); len(got) != 1 || got[0] != key {
		t.Fatalf("history keys %v, want [%s]: five random ids of one spec", got, key)
	}
	tests := []struct {
		name, asked, wantKey string
		total                string
	}{
		{"an id of this session", ids[0], key, "5"},
		{"another id of this session", ids[4], key, "5"},
		{"the key itself", key, "", "5"},
		{"an id never seen", "assert_deadbeef", "", "0"},
	}
	for _, tc := range tests {
		ans := l.call(fmt.Sprintf(`{"jsonrpc":"2.0","id":"q","method":"query_drift","params":{"assertion_id":%q}}`, tc.asked))
		rep := ans[0]["result"].(map[string]any)["report"].(map[string]any)
		gotKey, _ := rep["assertion_key"].(string)
		if rep["assertion_id"] != tc.asked || gotKey != tc.wantKey || fmt.Sprint(rep["total"]) != tc.total {
			t.Errorf("%s: report %v; want assertion_id %s, assertion_key %q, total %s", tc.name, rep, tc.asked, tc.wantKey, tc.total)
		}
		if tc.total != "0" && !strings.HasPrefix(fmt.Sprint(rep["label"]), "content {") {
			t.Errorf("%s: label %v, want the type and spec", tc.name, rep["label"])
		}
	}
}

// TestReportKeys: the records a report receives carry the batch's case key (the trace's agent_id and
// input, or its scenario's), each assertion's key, and the scenario run's repeat.
func TestReportKeys(t *testing.T) {
	eng, err := assert.New(assert.Config{})
	if err != nil {
		t.Fatal(err)
	}
	var (
		mu  sync.Mutex
		got []Record
	)
	s := New(Options{Engine: eng})
	s.RecordTo(func(r Record) { mu.Lock(); got = append(got, r); mu.Unlock() }, func() {})
	b1, _ := keyedBatch(1, `{"q":1,"r":[1.0]}`, "")
	b2, _ := keyedBatch(2, `{"r":[1],"q":1e0}`, "") // the same input, written otherwise
	b3, _ := keyedBatch(3, `{"q":2}`, "")
	b4, _ := keyedBatch(4, `{"q":1}`, "refund-flow")
	in := strings.Join([]string{reportInit, b1, b2, b3, b4, reportClose}, "\n") + "\n"
	if err := s.Serve(context.Background(), strings.NewReader(in), &lockedBuffer{}); err != nil {
		t.Fatal(err)
	}
	key, _ := resultkey.Assertion("content", decodeSpec(t, keyedSpec), "", "")
	c1, _ := resultkey.Case("a", decodeSpec(t, `{"q":1,"r":[1]}`), true)
	c3, _ := resultkey.Case("a", decodeSpec(t, `{"q":2}`), true)
	want := []struct {
		caseKey   string
		repeat    int64
		hasRepeat bool
	}{{c1, 0, false}, {c1, 0, false}, {c3, 0, false}, {resultkey.Scenario("refund-flow"), 1, true}}
	if len(got) != len(want) {
		t.Fatalf("%d records, want %d", len(got), len(want))
	}
	byTrace := map[string]Record{}
	for _, r := range got { // in the order batches finished
		byTrace[r.TraceID] = r
	}
	for i, w := range want {
		r := byTrace[fmt.Sprintf("trc_%d", i+1)]
		if r.AssertionKey != key || r.CaseKey != w.caseKey || r.Repeat != w.repeat || r.HasRepeat != w.hasRepeat {
			t.Errorf("record %d: keys %s %s repeat %d/%v; want %s %s %d/%v", i, r.AssertionKey, r.CaseKey, r.Repeat, r.HasRepeat, key, w.caseKey, w.repeat, w.hasRepeat)
		}
	}
}

func decodeSpec(t *testing.T, text string) any {
	t.Helper()
	d := json.NewDecoder(strings.NewReader(text))
	d.UseNumber()
	var v any
	if err := d.Decode(&v); err != nil {
		t.Fatal(err)
	}
	return v
}
