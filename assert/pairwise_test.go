// pairwise_test.go: the pairwise judge against the seeded stand-in: both orders always, a position-biased judge never makes a win.

package assert

import (
	"context"
	"fmt"
	"testing"
	"time"

	"attest-engine/provider"
	"attest-engine/providertest"
)

// pairTrace is item i with an answer and a baseline to compare it with.
func pairTrace(i int) map[string]any {
	tr := goalTrace(i)
	tr["output"].(map[string]any)["structured"] = map[string]any{"baseline": fmt.Sprintf("Baseline %d: the refund is being processed.", i)}
	return tr
}

// TestPairwiseGoals: every pairwise verdict is computed in both orders (two
// calls per sample); a stand-in that always prefers the first answer never
// makes the target win, and each of its verdicts is reported position
// inconsistent; an unbiased, noiseless stand-in's verdicts follow the
// items' quality and are position consistent. Seed: ATTEST_JUDGE_SEED.
func TestPairwiseGoals(t *testing.T) {
	n := min(goalItems(t), 300)
	seed := providertest.Seed(t, "ATTEST_JUDGE_SEED", 28)
	spec := map[string]any{"rubric": "helpfulness", "compare": "output.structured.baseline"}
	tests := []struct {
		name       string
		bias, flip float64
		cons       any
	}{
		{"first_position_bias", 1, 0, nil},
		{"half_bias", 0.5, 0, nil},
		{"half_bias_sequential", 0.5, 0, map[string]any{"mode": "sequential", "max": 5}},
		{"unbiased", 0, 0, nil},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			si := providertest.NewStandIn(t, seed, tc.flip)
			si.FirstBias = tc.bias
			ps := provider.Settings{Getenv: envOf("OPENAI_API_KEY", testKey, "OPENAI_BASE_URL", si.URL+"/v1"), RetryBase: time.Millisecond}
			e, err := New(Config{Settings: ps})
			if err != nil {
				t.Fatal(err)
			}
			sp := map[string]any{}
			for k, v := range spec {
				sp[k] = v
			}
			if tc.cons != nil {
				sp["consistency"] = tc.cons
			}
			samples, wins, inconsistent := 0, 0, 0
			for i := range n {
				tr := pairTrace(i)
				rs, err := e.Evaluate(context.Background(), tr, []Assertion{{ID: "p", Type: "llm_judge", Spec: sp}})
				if err != nil {
					t.Fatal(err)
				}
				r := rs[0]
				if r.Judge == nil || r.Judge.PositionConsistent == nil {
					t.Fatalf("item %d: no pairwise fields: %+v", i, r)
				}
				samples += r.Judge.Samples
				if !*r.Judge.PositionConsistent {
					inconsistent++
				}
				if r.Status == Pass {
					wins++
				}
				out := tr["output"].(map[string]any)
				better := si.Quality(out["message"].(string)) > si.Quality(out["structured"].(map[string]any)["baseline"].(string))
				switch {
				case tc.bias == 1 && (r.Status == Pass || r.Score != pairTie || *r.Judge.PositionConsistent):
					t.Errorf("item %d: a judge that always prefers the first answer gave %s %v, consistent %v", i, r.Status, r.Score, *r.Judge.PositionConsistent)
				case tc.flip == 0 && r.Status == Pass && !better:
					t.Errorf("item %d: a win for an answer that is not better (bias %v)", i, tc.bias)
				case tc.bias == 0 && (r.Status == Pass) != better:
					t.Errorf("item %d: unbiased verdict %s, target better %v", i, r.Status, better)
				}
			}
			if calls := si.Calls(); calls != int64(2*samples) {
				t.Errorf("%d calls for %d samples: every sample is judged in both orders", calls, samples)
			}
			t.Logf("%d items: %d wins, %d position inconsistent, %d calls", n, wins, inconsistent, si.Calls())
		})
	}
}

func TestPairwiseCompareMissing(t *testing.T) {
	f := newFake(t)
	e := fakeEngine(t, f, nil)
	rs, err := e.Evaluate(context.Background(), refund56(t), []Assertion{{ID: "p", Type: "llm_judge", Spec: map[string]any{"rubric": "tone", "compare": "output.baseline"}}})
	if err != nil {
		t.Fatal(err)
	}
	if rs[0].Status != HardFail || rs[0].Explanation != "compare: output.baseline not found in trace: the path matches nothing." || len(f.Requests()) != 0 {
		t.Errorf("a compare path that selects nothing: %+v, %d calls", rs[0], len(f.Requests()))
	}
}
