// consistency_test.go: repeated judge verdicts: when sampling stops, the median, split verdicts, errors, spec errors, and offline replay.

package assert

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"attest-engine/provider"
	"attest-engine/providertest"
)

func verdictOf(score float64) string {
	return fmt.Sprintf(`{"score": %v, "reason": "Verdict %v."}`, score, score)
}

func TestConsistency(t *testing.T) {
	seq5 := map[string]any{"mode": "sequential", "max": 5}
	tests := []struct {
		name     string
		reason   string
		cons     any
		soft     bool
		scores   []float64 // the judge's replies in turn (threshold 0.7)
		status   Status
		score    float64
		samples  int // 0: no judge fields
		agreeing int
		split    bool
		expl     string
	}{
		{"single", "no consistency: one call, no additive fields", nil, false, []float64{0.9}, Pass, 0.9, 0, 0, false, "Verdict 0.9. Score 0.9 exceeds threshold 0.7."},
		{"single_explicit", "mode single is the default: the same result", map[string]any{"mode": "single"}, false, []float64{0.5}, HardFail, 0.5, 0, 0, false, "Verdict 0.5. Score 0.5 is below threshold 0.7."},
		{"seq_agree_pass", "two samples that agree stop", seq5, false, []float64{0.9, 0.8}, Pass, 0.85, 2, 2, false, "2 of 2 samples agree (sequential max 5)."},
		{"seq_agree_fail", "two failing samples stop: hard_fail", seq5, false, []float64{0.2, 0.3}, HardFail, 0.25, 2, 2, false, "Median score 0.25 is below threshold 0.7."},
		{"seq_disagree_then_pass", "1-1, then passes until 3 of 5", seq5, false, []float64{0.9, 0.2, 0.8, 0.75}, Pass, 0.775, 4, 3, false, "3 of 4 samples agree"},
		{"seq_majority_fail", "a strict majority of max ends it as soon as it is reached", seq5, false, []float64{0.9, 0.2, 0.1, 0.3}, HardFail, 0.25, 4, 3, false, "3 of 4 samples agree"},
		{"seq_to_max", "2-2 goes to the fifth sample", seq5, false, []float64{0.9, 0.2, 0.8, 0.1, 0.95}, Pass, 0.8, 5, 3, false, "3 of 5 samples agree"},
		{"seq_split_even_max", "max 4 can end 2-2: a split verdict, not a pass",
			map[string]any{"mode": "sequential", "max": 4}, false, []float64{0.9, 0.2, 0.1, 0.95}, HardFail, 0.55, 4, 2, true, "Split verdict: 2 of 4 samples pass and 2 fail (sequential max 4), so this is not a pass."},
		{"seq_split_median_above", "a split's median may exceed the threshold: still not a pass",
			map[string]any{"mode": "sequential", "max": 2}, false, []float64{0.95, 0.6}, HardFail, 0.775, 2, 1, true, "Split verdict"},
		{"seq_split_soft", "a soft split is soft_fail",
			map[string]any{"mode": "sequential", "max": 2}, true, []float64{0.95, 0.6}, SoftFail, 0.775, 2, 1, true, "Split verdict"},
		{"cof_pass", "confirm_on_fail: a pass is one call", map[string]any{"mode": "confirm_on_fail"}, false, []float64{0.9}, Pass, 0.9, 1, 1, false, "1 of 1 samples agree (confirm_on_fail)."},
		{"cof_confirmed", "a failure confirmed by two more", map[string]any{"mode": "confirm_on_fail"}, false, []float64{0.3, 0.2, 0.4}, HardFail, 0.3, 3, 3, false, "3 of 3 samples agree"},
		{"cof_overturned", "a failure that two more contradict is a pass, 2 of 3", map[string]any{"mode": "confirm_on_fail"}, false, []float64{0.3, 0.9, 0.8}, Pass, 0.8, 3, 2, false, "2 of 3 samples agree"},
		{"cof_half_confirmed", "one of two confirms: a fail, 2 of 3", map[string]any{"mode": "confirm_on_fail"}, false, []float64{0.3, 0.9, 0.1}, HardFail, 0.3, 3, 2, false, "2 of 3 samples agree"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			f := newFake(t)
			rs := make([]string, len(tc.scores))
			for i, s := range tc.scores {
				rs[i] = verdictOf(s)
			}
			f.Reply = replies(rs...)
			e := fakeEngine(t, f, nil)
			spec := map[string]any{"rubric": "helpfulness", "soft": tc.soft}
			if tc.cons != nil {
				spec["consistency"] = tc.cons
			}
			got, err := e.Evaluate(context.Background(), refund56(t), []Assertion{{ID: "j", Type: "llm_judge", Spec: spec}})
			if err != nil {
				t.Fatal(err)
			}
			r := got[0]
			if n := len(f.Requests()); n != len(tc.scores) {
				t.Errorf("%s: %d calls, want %d", tc.reason, n, len(tc.scores))
			}
			if r.Status != tc.status || r.Score != tc.score || !strings.Contains(r.Explanation, tc.expl) {
				t.Errorf("%s: got %s %v %q, want %s %v with %q", tc.reason, r.Status, r.Score, r.Explanation, tc.status, tc.score, tc.expl)
			}
			var want *JudgeInfo
			if tc.samples > 0 {
				want = &JudgeInfo{Samples: tc.samples, Agreeing: tc.agreeing, Split: tc.split}
			}
			if diff := cmp.Diff(want, r.Judge); diff != "" {
				t.Errorf("%s: judge fields (-want +got):\n%s", tc.reason, diff)
			}
		})
	}
}

func TestConsistencySpecErrors(t *testing.T) {
	tests := []struct {
		cons any
		want string
	}{
		{"sequential", "spec field 'consistency' must be an object, got string"},
		{map[string]any{}, "consistency: missing required spec field 'mode'"},
		{map[string]any{"mode": "majority"}, "consistency: unknown mode 'majority'"},
		{map[string]any{"mode": "sequential", "max": 1}, "'max' must be an integer from 2 to 15, got 1"},
		{map[string]any{"mode": "sequential", "max": 16}, "'max' must be an integer from 2 to 15, got 16"},
		{map[string]any{"mode": "sequential", "max": 2.5}, "'max' must be an integer from 2 to 15, got 2.5"},
		{map[string]any{"mode": "sequential", "max": "5"}, "spec field 'max' must be a number"},
		{map[string]any{"mode": "confirm_on_fail", "max": 3}, "'max' applies to mode 'sequential' only"},
	}
	f := newFake(t)
	e := fakeEngine(t, f, nil)
	for _, tc := range tests {
		_, err := e.Evaluate(context.Background(), refund56(t), []Assertion{{ID: "j", Type: "llm_judge", Spec: map[string]any{"rubric": "tone", "consistency": tc.cons}}})
		var ae *Error
		if !errors.As(err, &ae) || !strings.Contains(ae.Message, tc.want) {
			t.Errorf("consistency %v: error %v, want an assertion error with %q", tc.cons, err, tc.want)
		}
	}
	if n := len(f.Requests()); n != 0 {
		t.Errorf("%d calls for specs that do not compile", n)
	}
}

// TestConsistencyJudgeErrors: a judge that cannot answer at any sample is
// an error, never a verdict from the samples drawn so far.
func TestConsistencyJudgeErrors(t *testing.T) {
	f := newFake(t)
	f.Reply = replies(verdictOf(0.9), verdictOf(0.2), "no verdict here")
	e := fakeEngine(t, f, nil)
	spec := map[string]any{"rubric": "tone", "consistency": map[string]any{"mode": "sequential"}}
	_, err := e.Evaluate(context.Background(), refund56(t), []Assertion{{ID: "j", Type: "llm_judge", Spec: spec}})
	var pe *provider.Error
	if !errors.As(err, &pe) || !strings.Contains(pe.Message, "unusable reply twice") {
		t.Fatalf("error %v, want a provider error", err)
	}
	f = newFake(t)
	f.Reply = replies(verdictOf(0.3))
	f.Push(providertest.Canned{Status: 200, Body: `{"choices":[{"message":{"content":"{\"score\":0.3}"}}]}`},
		providertest.Canned{Status: 401, Body: `{"error":{"message":"bad key"}}`})
	e = fakeEngine(t, f, nil)
	spec = map[string]any{"rubric": "tone", "consistency": map[string]any{"mode": "confirm_on_fail"}}
	_, err = e.Evaluate(context.Background(), refund56(t), []Assertion{{ID: "j", Type: "llm_judge", Spec: spec}})
	if !errors.As(err, &pe) || !strings.Contains(pe.Message, "HTTP 401") {
		t.Fatalf("a failure confirmed against a provider that fails: error %v, want the provider's", err)
	}
}

// TestConsistencyOfflineReplay: each sample has its own index in the cache
// key, so an offline replay of a recorded run draws the same samples and
// reaches the same results, byte for byte; a sample never recorded is an
// offline miss, never a verdict from fewer samples.
func TestConsistencyOfflineReplay(t *testing.T) {
	dir := t.TempDir()
	f := newFake(t)
	f.Reply = replies(verdictOf(0.9), verdictOf(0.2), verdictOf(0.1), verdictOf(0.8), verdictOf(0.75))
	spec := map[string]any{"rubric": "helpfulness", "consistency": map[string]any{"mode": "sequential", "max": 5}}
	as := []Assertion{{ID: "j", Type: "llm_judge", Spec: spec}}
	rec := fakeEngine(t, f, func(ps *provider.Settings) { ps.CacheDir = dir })
	want, err := rec.Evaluate(context.Background(), refund56(t), as)
	if err != nil {
		t.Fatal(err)
	}
	calls := len(f.Requests())
	replay := fakeEngine(t, f, func(ps *provider.Settings) { ps.CacheDir = dir; ps.Offline = true })
	got, err := replay.Evaluate(context.Background(), refund56(t), as)
	if err != nil {
		t.Fatal(err)
	}
	if len(f.Requests()) != calls {
		t.Error("the offline replay made a call")
	}
	want[0].Cost, want[0].DurationMS, got[0].DurationMS = 0, 0, 0 // a cache hit costs nothing
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("replay differs (-recorded +replayed):\n%s", diff)
	}
	if got[0].Judge.Samples != 5 {
		t.Errorf("%d samples, want the 5 recorded", got[0].Judge.Samples)
	}
	// Asking for more samples than were recorded: a miss, not a verdict.
	spec = map[string]any{"rubric": "helpfulness", "consistency": map[string]any{"mode": "sequential", "max": 7}}
	f.Reply = replies(verdictOf(0.9), verdictOf(0.2), verdictOf(0.1), verdictOf(0.8), verdictOf(0.2))
	dir2 := t.TempDir()
	rec = fakeEngine(t, f, func(ps *provider.Settings) { ps.CacheDir = dir2 })
	if _, err := rec.Evaluate(context.Background(), refund56(t), []Assertion{{ID: "j", Type: "llm_judge", Spec: map[string]any{"rubric": "helpfulness"}}}); err != nil {
		t.Fatal(err)
	}
	replay = fakeEngine(t, f, func(ps *provider.Settings) { ps.CacheDir = dir2; ps.Offline = true })
	_, err = replay.Evaluate(context.Background(), refund56(t), []Assertion{{ID: "j", Type: "llm_judge", Spec: spec}})
	var pe *provider.Error
	if !errors.As(err, &pe) || !pe.Offline {
		t.Errorf("replaying samples never recorded: error %v, want an offline miss", err)
	}
}

// TestMedianKeepsItsSide: the median printed to 15 significant digits
// never lands on the other side of the threshold from the verdict: two
// passing samples equal to a threshold of 16 significant digits give a
// pass whose score meets the threshold, not one "below threshold".
func TestMedianKeepsItsSide(t *testing.T) {
	for _, thr := range []float64{0.1234567890123454, 0.7000000000000001, 0.6274415180425912} {
		c := &judgeCheck{threshold: thr, cons: consistency{mode: modeSequential, max: 5}}
		tl := tally{samples: []sample{{score: thr, pass: true}, {score: thr, pass: true}}, passes: 2, pass: true}
		o := c.outcome(&tl, 0)
		if !o.pass || o.score < thr || strings.Contains(o.explanation, "below") {
			t.Errorf("threshold %v: pass %v, score %v, %q", thr, o.pass, o.score, o.explanation)
		}
	}
}
