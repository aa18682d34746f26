// resultid_test.go: result_id, pinned: its value for a known input, and what changes it.

package watch

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"os"
	"strings"
	"testing"

	"attest-engine/suite"
)

// TestResultID: result_id is content-addressed over (trace id, assertion
// name, suite hash, engine version), each ended by a zero byte, the first
// 16 bytes of SHA-256 in hex. Consumers de-duplicate on it across runs and
// releases, so its value is pinned here, not only in a root golden file.
func TestResultID(t *testing.T) {
	// The first 16 bytes of SHA-256("trc_1\x00has-output\x00suitehash\x000.1.0\x00"),
	// computed outside Go (Python's hashlib).
	const want = "a52d31738c140d18f365a64051bbf9a3"
	if got := resultID("trc_1", "has-output", "suitehash", "0.1.0"); got != want {
		t.Errorf("resultID = %s, want %s: the ids consumers stored would all change", got, want)
	}
	seen := map[string]string{}
	for _, in := range [][4]string{
		{"trc_1", "has-output", "suitehash", "0.1.0"},
		{"trc_2", "has-output", "suitehash", "0.1.0"}, // another trace
		{"trc_1", "mentions", "suitehash", "0.1.0"},   // another assertion
		{"trc_1", "has-output", "otherhash", "0.1.0"}, // another suite
		{"trc_1", "has-output", "suitehash", "0.2.0"}, // another engine
		{"trc_1h", "as-output", "suitehash", "0.1.0"}, // the same bytes, split elsewhere
		{"trc_1", "has-outputsuite", "hash", "0.1.0"}, // likewise
	} {
		id := resultID(in[0], in[1], in[2], in[3])
		if prev, dup := seen[id]; dup {
			t.Errorf("%q and %s share result_id %s", in, prev, id)
		}
		seen[id] = strings.Join(in[:], "|")
	}
}

// TestResultIDInLines: the lines of a run carry the ids of their trace,
// assertion, suite and version: the first trace of the committed input
// under the committed suite, pinned.
func TestResultIDInLines(t *testing.T) {
	in, err := os.Open("../testdata/watch/traces.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	defer in.Close()
	var out, errb bytes.Buffer
	if code := RunEnv(context.Background(), []string{"--suite", "../testdata/watch/suite.json", "--deterministic", "--jobs", "1"}, in, &out, &errb, testEnv(nil)); code != 0 {
		t.Fatalf("exit %d: %s", code, errb.String())
	}
	sf, err := os.Open("../testdata/watch/suite.json")
	if err != nil {
		t.Fatal(err)
	}
	defer sf.Close()
	s, err := suite.Read(sf, "suite.json")
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]string{ // first trace, by assertion
		"has-output":       "",
		"mentions-refund":  "",
		"latency-under-5s": "",
	}
	sc := bufio.NewScanner(&out)
	for sc.Scan() {
		var r Result
		if err := json.Unmarshal(sc.Bytes(), &r); err != nil {
			t.Fatal(err)
		}
		if r.TraceID == "" {
			continue // a line that is not a trace: keyed by its digest
		}
		if r.ResultID != resultID(r.TraceID, r.Assertion, s.Hash, "test") {
			t.Errorf("%s/%s: result_id %s is not that of its trace, assertion, suite and version", r.TraceID, r.Assertion, r.ResultID)
		}
		if _, ok := want[r.Assertion]; ok && r.TraceID == "trc_abc123" {
			want[r.Assertion] = r.ResultID
		}
	}
	pinned := map[string]string{
		"has-output":       "6765783bb9a13aac1d74dc971a965115",
		"mentions-refund":  "f98a3756da458b57fe2fc17b5f8d3fb8",
		"latency-under-5s": "d961bc6ed378576b35929d95138c418d",
	}
	for k, v := range pinned {
		if want[k] != v {
			t.Errorf("trc_abc123/%s: result_id %s, pinned %s", k, want[k], v)
		}
	}
}
