// spend_test.go: the spend goals against the stand-in: a dry run's paid calls equal the run's over seeded random suites and cache states; a budget is never passed.

package assert

import (
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"attest-engine/provider"
	"attest-engine/providertest"
	"attest-engine/tape"
)

// envInt is a test's count from the environment, def when unset.
func envInt(t *testing.T, name string, def int) int {
	if v := os.Getenv(name); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 1 {
			t.Fatalf("%s=%q: want a positive integer", name, v)
		}
		return n
	}
	return def
}

// randomSuite is a seeded random batch of costly and cheap assertions.
func randomSuite(rng *rand.Rand) []Assertion {
	var as []Assertion
	for i := range 1 + rng.IntN(4) {
		id := fmt.Sprintf("a%d", i)
		var spec map[string]any
		typ := "llm_judge"
		switch rng.IntN(7) {
		case 0:
			spec = map[string]any{"rubric": "helpfulness"}
		case 1:
			spec = map[string]any{"rubric": "tone", "consistency": map[string]any{"mode": "confirm_on_fail"}}
		case 2:
			spec = map[string]any{"rubric": "helpfulness", "consistency": map[string]any{"mode": "sequential", "max": 2 + rng.IntN(4)}}
		case 3:
			spec = map[string]any{"rubric": "helpfulness", "compare": "output.structured.baseline"}
		case 4:
			typ = "embedding"
			spec = map[string]any{"target": "output.message", "reference": fmt.Sprintf("Reference %d.", rng.IntN(3)), "threshold": 0.1}
		case 5:
			typ = "content"
			spec = map[string]any{"target": "output.message", "check": "contains", "value": "refund"}
		case 6:
			spec = map[string]any{"prompt": "Rate {{output}}", "model": "gpt-4.1-nano"}
		}
		as = append(as, Assertion{ID: id, Type: typ, Spec: spec})
	}
	return as
}

// spendEngine is an engine whose judge and embeddings are the stand-in,
// with a cache in dir.
func spendEngine(t *testing.T, si *providertest.StandIn, dir string, offline bool, budget float64) *Engine {
	t.Helper()
	ps := provider.Settings{Getenv: envOf("OPENAI_API_KEY", testKey, "OPENAI_BASE_URL", si.URL+"/v1"), RetryBase: time.Millisecond,
		CacheDir: dir, Offline: offline, BudgetUSD: budget}
	e, err := New(Config{Settings: ps})
	if err != nil {
		t.Fatal(err)
	}
	return e
}

func encoded(t *testing.T, tr map[string]any) tape.Value {
	t.Helper()
	v, err := encodeTrace(tr)
	if err != nil {
		t.Fatal(err)
	}
	return v
}

// TestDryRunPredictsCalls: over 1,000 seeded random suites (a few traces,
// random judges — single, confirm_on_fail, sequential, pairwise, custom —,
// embeddings and cheap checks), each with a random cache state recorded
// beforehand, the dry run's paid calls (judge calls and texts embedded) bound the run's: equal wherever the
// number of samples does not depend on verdicts (every suite without a
// consistency mode), and within [min, max] otherwise. Seed:
// ATTEST_SPEND_SEED; suites: ATTEST_DRYRUN_SUITES.
func TestDryRunPredictsCalls(t *testing.T) {
	suites := envInt(t, "ATTEST_DRYRUN_SUITES", 1000)
	if (testing.Short() || raceDetector) && os.Getenv("ATTEST_DRYRUN_SUITES") == "" {
		suites = 100
	}
	seed := providertest.Seed(t, "ATTEST_SPEND_SEED", 28)
	rng := rand.New(rand.NewPCG(seed, 6))
	si := providertest.NewStandIn(t, seed, 0.05)
	exact, ranged := 0, 0
	for s := range suites {
		dir := filepath.Join(t.TempDir(), "cache")
		as := randomSuite(rng)
		var traces []tape.Value
		for i := range 1 + rng.IntN(3) {
			tr := pairTrace(rng.IntN(6)) // repeated answers: later traces hit what earlier ones cached
			tr["trace_id"] = fmt.Sprintf("t%d", i)
			traces = append(traces, encoded(t, tr))
		}
		// A random cache state: some of the assertions over some traces, recorded.
		warm := spendEngine(t, si, dir, false, 0)
		for _, tr := range traces {
			if rng.IntN(2) == 0 {
				sub := as[:rng.IntN(len(as)+1)]
				if len(sub) > 0 {
					if _, err := warm.EvaluateValue(context.Background(), tr, sub); err != nil {
						t.Fatal(err)
					}
				}
			}
		}
		plan := spendEngine(t, si, dir, true, 0)
		seen := map[string]bool{}
		minCalls, maxCalls := 0, 0
		for _, tr := range traces {
			ests, err := plan.Plan(Batch{Trace: tr}, func(tape.Value) ([]Assertion, error) { return as, nil }, seen)
			if err != nil {
				t.Fatal(err)
			}
			for _, e := range ests {
				minCalls += e.MinCalls
				maxCalls += e.MaxCalls
			}
		}
		before := si.Calls() + si.Embeds()
		run := spendEngine(t, si, dir, false, 0)
		for _, tr := range traces {
			if _, err := run.EvaluateValue(context.Background(), tr, as); err != nil {
				t.Fatal(err)
			}
		}
		actual := int(si.Calls() + si.Embeds() - before)
		if actual < minCalls || actual > maxCalls {
			t.Fatalf("suite %d: %d paid calls, the dry run predicted %d–%d (%v)", s, actual, minCalls, maxCalls, as)
		}
		if minCalls == maxCalls {
			exact++
		} else {
			ranged++
		}
	}
	t.Logf("%d suites: %d predicted exactly (and equal), %d within a range (consistency modes)", suites, exact, ranged)
}

// TestBudgetNeverPassed: in seeded runs of random suites, with a random
// budget_usd against the stand-in's honest usage, what the stand-in
// served never costs more than the budget, and every assertion the budget
// stopped is reported skipped. Runs: ATTEST_BUDGET_RUNS (the goal: 10,000).
func TestBudgetNeverPassed(t *testing.T) {
	runs := envInt(t, "ATTEST_BUDGET_RUNS", 1000)
	if (testing.Short() || raceDetector) && os.Getenv("ATTEST_BUDGET_RUNS") == "" {
		runs = 100
	}
	seed := providertest.Seed(t, "ATTEST_SPEND_SEED", 28)
	rng := rand.New(rand.NewPCG(seed, 7))
	si := providertest.NewStandIn(t, seed, 0.05)
	price := map[string]provider.Price{"gpt-4.1-mini": {Input: 0.4, Output: 1.6}, "gpt-4.1-nano": {Input: 0.1, Output: 0.4},
		"text-embedding-3-small": {Input: 0.02}}
	skipped, evaluated, maxShare := 0, 0, 0.0
	for r := range runs {
		budget := rng.Float64() * 0.003
		ps := provider.Settings{Getenv: envOf("OPENAI_API_KEY", testKey, "OPENAI_BASE_URL", si.URL+"/v1"), RetryBase: time.Millisecond,
			BudgetUSD: budget, Prices: price}
		e, err := New(Config{Settings: ps})
		if err != nil {
			t.Fatal(err)
		}
		t0 := si.TokensByModel()
		as := randomSuite(rng)
		for i := range 1 + rng.IntN(3) {
			tr := pairTrace(r*10 + i)
			rs, err := e.EvaluateValue(context.Background(), encoded(t, tr), as)
			if err != nil {
				t.Fatal(err)
			}
			for _, x := range rs {
				if x.Skipped {
					skipped++
				} else {
					evaluated++
				}
			}
		}
		// What the stand-in served in this run, at the run's prices: the
		// spend as the provider would bill it.
		served := 0.0
		for model, tok := range si.TokensByModel() {
			pr, ok := price[model]
			if !ok {
				t.Fatalf("run %d: the stand-in served model %q, which has no price", r, model)
			}
			served += (float64(tok[0]-t0[model][0])*pr.Input + float64(tok[1]-t0[model][1])*pr.Output) / 1e6
		}
		if served > budget+1e-12 {
			t.Fatalf("run %d: the provider served $%v of a $%v budget", r, served, budget)
		}
		if spent := e.Provider().Spent(); spent > served+1e-12 || spent < served-1e-12 {
			t.Fatalf("run %d: the engine counts $%v spent, the provider served $%v", r, spent, served)
		}
		if budget > 0 {
			maxShare = max(maxShare, served/budget)
		}
	}
	t.Logf("%d runs: %d results evaluated, %d not evaluated for the budget; the fullest run spent %.1f%% of its budget", runs, evaluated, skipped, 100*maxShare)
	if skipped == 0 || evaluated == 0 {
		t.Errorf("budgets neither stopped nor allowed anything: %d skipped, %d evaluated", skipped, evaluated)
	}
}

// TestFailureOfBudget: a call the budget refused outside an assertion (a
// simulated user's turn) is a 2001 that no retry can fix.
func TestFailureOfBudget(t *testing.T) {
	f := FailureOf(fmt.Errorf("turn: %w", &provider.BudgetError{Limit: 1, Spent: 0.9, Need: 0.2, Model: "m"}), time.Second)
	if f.Code != CodeProviderError || f.Retryable || !strings.Contains(f.Message, "could cost up to $0.2") {
		t.Errorf("failure %+v", f)
	}
}
