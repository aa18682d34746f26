// repeats.go: runs of scenarios across batches, summarised per scenario with pass^k and Wilson.

package simulate

import (
	"fmt"
	"slices"
	"sync"
)

// Bounds of the repeats a session tracks.
const (
	MaxRepeatScenarios = 1024   // scenarios
	MaxRepeats         = 10_000 // runs per scenario
)

// Repeats records, per scenario, whether each run passed. A run is identified by its repeat number; every
// batch of one (scenario, repeat) must pass for the run to pass. It is safe for concurrent use.
type Repeats struct {
	mu   sync.Mutex
	runs map[string]map[int64]bool // scenario → repeat → passed
	auto map[string]int64          // scenario → batches without a repeat number so far
}

// NewRepeats returns an empty record.
func NewRepeats() *Repeats {
	return &Repeats{runs: map[string]map[int64]bool{}, auto: map[string]int64{}}
}

// Record notes a batch of scenario's run repeat (hasRepeat false: the batch is a run of its own) and
// whether it passed.
func (r *Repeats) Record(scenario string, repeat int64, hasRepeat, passed bool) error {
	if scenario == "" || len(scenario) > MaxIDText {
		return &CallError{"scenario_id", fmt.Sprintf("must be a string of 1 to %d bytes", MaxIDText)}
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	runs := r.runs[scenario]
	if runs == nil {
		if len(r.runs) >= MaxRepeatScenarios {
			return &LimitError{fmt.Sprintf("at most %d scenarios with repeats per session", MaxRepeatScenarios)}
		}
		runs = map[int64]bool{}
		r.runs[scenario] = runs
	}
	if !hasRepeat {
		// Numbered below zero so they never meet an SDK's repeat numbers.
		r.auto[scenario]++
		repeat = -r.auto[scenario]
	}
	prev, seen := runs[repeat]
	if !seen && len(runs) >= MaxRepeats {
		return &LimitError{fmt.Sprintf("scenario %q has %d runs, the most one scenario keeps", scenario, MaxRepeats)}
	}
	runs[repeat] = passed && (!seen || prev)
	return nil
}

// ScenarioSummary is the summary of one scenario's runs.
type ScenarioSummary struct {
	ScenarioID string
	Summary
}

// Summaries returns every scenario's summary, sorted by scenario id.
func (r *Repeats) Summaries() []ScenarioSummary {
	r.mu.Lock()
	defer r.mu.Unlock()
	out := make([]ScenarioSummary, 0, len(r.runs))
	for id, runs := range r.runs {
		c := 0
		for _, ok := range runs {
			if ok {
				c++
			}
		}
		out = append(out, ScenarioSummary{id, Summarize(len(runs), c)})
	}
	slices.SortFunc(out, func(a, b ScenarioSummary) int {
		if a.ScenarioID < b.ScenarioID {
			return -1
		}
		if a.ScenarioID > b.ScenarioID {
			return 1
		}
		return 0
	})
	return out
}

// Wire is the summary as the shutdown answer and the reports show it: {n, passes, pass_hat_k: [pass^1,
// …, pass^n], wilson_95: [lo, hi]}.
func (s *Summary) Wire() map[string]any {
	ks := make([]any, len(s.PassHatK))
	for i, p := range s.PassHatK {
		ks[i] = p
	}
	return map[string]any{"n": s.N, "passes": s.Passes, "pass_hat_k": ks, "wilson_95": []any{s.WilsonLo, s.WilsonHi}}
}
