// budget_test.go: soft-failure budgets: config parsing, sequential transcripts with a config, concurrent counting.

package rpc

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"attest-engine/assert"

	"github.com/google/go-cmp/cmp"
)

// budgetTranscripts run one request at a time, as an SDK does, so the
// order in which soft failures spend a budget is the order sent.
var budgetTranscripts = []struct {
	name, reason, config string
}{
	{name: "budget", reason: "max_count for one suite, max_fraction by default; plugin results count; escalation is appended to the explanation",
		config: `{"soft_failure_budget":{"default":{"max_fraction":0.5},"suites":{"checkout":{"max_count":1}}}}`},
	{name: "budget_none", reason: "without a budget nothing escalates, but shutdown still reports the counts", config: `{}`},
}

func TestBudgetTranscripts(t *testing.T) {
	for _, tc := range budgetTranscripts {
		t.Run(tc.name, func(t *testing.T) {
			cfg, err := assert.ParseConfig([]byte(tc.config))
			if err != nil {
				t.Fatal(err)
			}
			in, err := os.ReadFile(filepath.Join(transcriptDir, "budget.jsonl"))
			if err != nil {
				t.Fatal(err)
			}
			got := normalize(t, []byte(sequential(t, cfg, strings.SplitAfter(string(in), "\n"))))
			checkGolden(t, filepath.Join(transcriptDir, tc.name+".golden.jsonl"), got, tc.reason)
		})
	}
}

// sequential sends each line and waits for its one answer line before the
// next, and returns the answers.
func sequential(t *testing.T, cfg assert.Config, lines []string) string {
	t.Helper()
	eng, err := assert.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	s := New(Options{Engine: eng, Config: cfg})
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	done := make(chan error, 1)
	go func() {
		done <- s.Serve(context.Background(), inR, outW)
		outW.Close()
	}()
	answers := bufio.NewReader(outR)
	var b strings.Builder
	for _, l := range lines {
		if strings.TrimSpace(l) == "" {
			continue
		}
		if _, err := io.WriteString(inW, l); err != nil {
			t.Fatal(err)
		}
		a, err := answers.ReadString('\n')
		if err != nil {
			t.Fatalf("no answer to %.80s: %v", l, err)
		}
		b.WriteString(a)
	}
	inW.Close()
	if rest, _ := io.ReadAll(answers); len(rest) > 0 {
		t.Errorf("unsolicited output: %s", rest)
	}
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	return b.String()
}

func TestBudgetConfig(t *testing.T) {
	tests := []struct {
		name, reason, config, wantErr string
	}{
		{"count", "max_count alone is a budget", `{"soft_failure_budget":{"default":{"max_count":3}}}`, ""},
		{"fraction", "max_fraction alone is a budget", `{"soft_failure_budget":{"suites":{"a":{"max_fraction":0.25}}}}`, ""},
		{"null default", "null means no default budget", `{"soft_failure_budget":{"default":null}}`, ""},
		{"both", "one budget cannot set both", `{"soft_failure_budget":{"default":{"max_count":1,"max_fraction":0.5}}}`, "not both"},
		{"neither", "an empty budget says nothing", `{"soft_failure_budget":{"suites":{"a":{}}}}`, "needs max_count or max_fraction"},
		{"negative", "a count is 0 or more", `{"soft_failure_budget":{"default":{"max_count":-1}}}`, "must be 0 or more"},
		{"fraction above 1", "a fraction is at most 1", `{"soft_failure_budget":{"default":{"max_fraction":1.5}}}`, "between 0 and 1"},
		{"fractional count", "a count is whole", `{"soft_failure_budget":{"default":{"max_count":1.5}}}`, "config:"},
		{"unknown key", "keys are spelled exactly", `{"soft_failure_budget":{"default":{"Max_Count":1}}}`, `unknown key "soft_failure_budget.default.Max_Count"`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := assert.ParseConfig([]byte(tc.config))
			switch {
			case tc.wantErr == "" && err != nil:
				t.Errorf("%s: %v", tc.reason, err)
			case tc.wantErr != "" && (err == nil || !strings.Contains(err.Error(), tc.wantErr)):
				t.Errorf("%s: error %v, want one containing %q", tc.reason, err, tc.wantErr)
			}
		})
	}
}

// TestBudgetConcurrent: batches of one suite applied at once keep exact
// counts: max_count soft failures stay soft, every other one escalates.
func TestBudgetConcurrent(t *testing.T) {
	const batches, perBatch, limit = 50, 7, 40
	n := int64(limit)
	l := &ledger{cfg: assert.BudgetConfig{Suites: map[string]assert.Budget{"s": {MaxCount: &n}}}, counts: map[string]*suiteCounts{}, plugins: map[pluginKey]bool{}}
	var wg sync.WaitGroup
	var mu sync.Mutex
	statuses := map[assert.Status]int{}
	for i := range batches {
		wg.Add(1)
		go func() {
			defer wg.Done()
			rs := make([]assert.Result, perBatch)
			for j := range rs {
				rs[j] = assert.Result{AssertionID: fmt.Sprint(i, j), Status: assert.SoftFail, Explanation: "x."}
			}
			rs[0].Status = assert.Pass
			l.apply("s", rs)
			mu.Lock()
			for _, r := range rs {
				statuses[r.Status]++
			}
			mu.Unlock()
		}()
	}
	wg.Wait()
	want := map[assert.Status]int{assert.Pass: batches, assert.SoftFail: limit, assert.HardFail: batches*(perBatch-1) - limit}
	if diff := cmp.Diff(want, statuses); diff != "" {
		t.Errorf("statuses (-want +got):\n%s", diff)
	}
	c := l.counts["s"]
	if c.soft != limit || c.escalated != int64(batches*(perBatch-1)-limit) || c.evaluated != batches*perBatch {
		t.Errorf("counts %+v", *c)
	}
}

func TestBudgetSkippedNotCounted(t *testing.T) {
	zero := int64(0)
	l := &ledger{cfg: assert.BudgetConfig{Default: &assert.Budget{MaxCount: &zero}}, counts: map[string]*suiteCounts{}}
	rs := []assert.Result{{Status: assert.SoftFail, Skipped: true, Explanation: "Skipped."}, {Status: assert.SoftFail, Explanation: "soft."}}
	l.apply("", rs)
	if rs[0].Status != assert.SoftFail || rs[1].Status != assert.HardFail {
		t.Errorf("a skipped result is never escalated, a real one is: %+v", rs)
	}
	if c := l.counts[""]; c.evaluated != 1 || c.escalated != 1 || c.soft != 0 {
		t.Errorf("skipped results are not counted: %+v", *c)
	}
}

// TestLedgerBounds: the suites a session counts and the plugin results it
// remembers for duplicate detection are bounded, whatever the SDK sends.
func TestLedgerBounds(t *testing.T) {
	l := newLedger(assert.BudgetConfig{})
	for i := range maxSuites {
		if err := l.admit(fmt.Sprint("s", i)); err != nil {
			t.Fatalf("suite %d of %d refused: %v", i, maxSuites, err)
		}
		l.apply(fmt.Sprint("s", i), []assert.Result{{Status: assert.Pass}})
	}
	if err := l.admit("one more"); err == nil || !strings.Contains(err.Error(), "too many suites") {
		t.Errorf("suite %d: error %v, want too many suites", maxSuites+1, err)
	}
	if err := l.admit("s7"); err != nil {
		t.Errorf("a suite already counted: %v", err)
	}

	key := func(i int) pluginKey { return pluginKey{traceID: fmt.Sprint("t", i), plugin: "p", assertionID: "a"} }
	for i := range maxPluginKeys + 1 {
		if dup := l.addPlugin(key(i), &assert.Result{Status: assert.Pass}); dup {
			t.Fatalf("plugin result %d reported a duplicate", i)
		}
	}
	if len(l.plugins) != maxPluginKeys || len(l.pluginRing) != maxPluginKeys {
		t.Errorf("%d keys remembered (%d in the ring), want %d", len(l.plugins), len(l.pluginRing), maxPluginKeys)
	}
	if !l.addPlugin(key(maxPluginKeys), &assert.Result{Status: assert.Pass}) {
		t.Error("the latest plugin result sent again: not a duplicate")
	}
	if l.addPlugin(key(0), &assert.Result{Status: assert.Pass}) {
		t.Error("the oldest plugin result, forgotten, sent again: still a duplicate")
	}
}

// TestBatchSoftFailureCap: ATTEST_BUDGET_MAX_COST as the earlier engine
// read it: a batch's soft failures beyond the cap are reported hard_fail,
// saying why; other statuses and skipped results are untouched.
func TestBatchSoftFailureCap(t *testing.T) {
	one := int64(1)
	l := newLedger(assert.BudgetConfig{})
	l.batchCap = &one
	rs := []assert.Result{
		{AssertionID: "a", Status: assert.SoftFail, Explanation: "x."},
		{AssertionID: "b", Status: assert.Pass},
		{AssertionID: "c", Status: assert.SoftFail, Skipped: true},
		{AssertionID: "d", Status: assert.SoftFail, Explanation: "y."},
		{AssertionID: "e", Status: assert.SoftFail, Explanation: "z."},
	}
	l.apply("", rs)
	want := []assert.Status{assert.SoftFail, assert.Pass, assert.SoftFail, assert.HardFail, assert.HardFail}
	for i, r := range rs {
		if r.Status != want[i] {
			t.Errorf("result %s: %s, want %s", r.AssertionID, r.Status, want[i])
		}
	}
	if !strings.Contains(rs[3].Explanation, "y. [ATTEST_BUDGET_MAX_COST=1: at most 1 soft failures per batch") {
		t.Errorf("explanation %q", rs[3].Explanation)
	}
	if c := l.counts[""]; c.soft != 1 || c.escalated != 2 {
		t.Errorf("counts %+v, want 1 soft and 2 escalated", *c)
	}
	// The next batch has its own allowance.
	rs = []assert.Result{{AssertionID: "f", Status: assert.SoftFail}}
	l.apply("", rs)
	if rs[0].Status != assert.SoftFail {
		t.Errorf("a new batch: %s", rs[0].Status)
	}
}
