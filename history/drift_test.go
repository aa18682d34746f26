package history

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"
)

var update = flag.Bool("update", false, "rewrite the golden files under testdata/history")

// feed steps a detector over windows of 10 results built from a pattern:
// each string is one window, '.' a pass, 'x' a failure; a digit d a pass
// with score d/10.
func feed(cfg DriftConfig, windows []string) []Alert {
	d := newDetector("k", cfg.withDefaults())
	var out []Alert
	for i, w := range windows {
		s := Summary{Window: int64(i)}
		for _, c := range w {
			switch {
			case c == '.':
				s.add(Pass, 1)
			case c == 'x':
				s.add(HardFail, 0)
			case c >= '0' && c <= '9':
				s.add(Pass, float64(c-'0')/10)
			case c == 'e':
				s.add(Error, 0)
			}
		}
		out = append(out, d.step(&s)...)
	}
	return out
}

func rep(s string, n int) []string {
	out := make([]string, n)
	for i := range out {
		out[i] = s
	}
	return out
}

func cat(parts ...[]string) []string {
	var out []string
	for _, p := range parts {
		out = append(out, p...)
	}
	return out
}

func TestDetector(t *testing.T) {
	small := DriftConfig{BaselineN: 100, MinN: 30}
	base := rep(".........x", 10) // 100 results, pass rate 0.9
	bad := rep("xxxxx.....", 1)   // pass rate 0.5
	tests := []struct {
		name    string
		cfg     DriftConfig
		windows []string
		want    []string // kinds of the alerts, in order
	}{
		{"steady: nothing", small, cat(base, rep(".........x", 200)), nil},
		{"drop: one alert, not one per window", small, cat(base, rep("xxxxx.....", 30)), []string{KindPassRate}},
		{"drop, recovery, drop: two alerts", small, cat(base, rep("xxxxx.....", 10), rep("..........", 20), rep("xxxxx.....", 10)), []string{KindPassRate, KindPassRate}},
		{"drop, no recovery in between: one alert", small, cat(base, rep("xxxxx.....", 10), rep(".........x", 2), rep("xxxxx.....", 10)), []string{KindPassRate}},
		{"failures during the baseline: no alert", DriftConfig{BaselineN: 400, MinN: 30}, cat(base, rep("xxxxxxxxxx", 10)), nil},
		{"below min n: the alert waits", DriftConfig{BaselineN: 100, MinN: 60, H: 1}, cat(base, rep(bad[0], 8)), []string{KindPassRate}},
		{"errors are not failures", small, cat(base, rep("eeeee.....", 40)), nil},
		{"scores fall: mean shift", small, cat(rep("8989898989", 10), rep("5656565656", 10)), []string{KindScoreMean}},
		{"scores fall less than the floor: nothing", DriftConfig{BaselineN: 100, MinShift: 0.2}, cat(rep("8989898989", 10), rep("7878787878", 30)), nil},
		{"binary scores: no mean-shift test", small, cat(base, rep("xxxxx.....", 30)), []string{KindPassRate}},
	}
	for _, tc := range tests {
		var got []string
		for _, a := range feed(tc.cfg, tc.windows) {
			got = append(got, a.Kind)
			if a.N < uint64(tc.cfg.withDefaults().MinN) {
				t.Errorf("%s: alert with n=%d below min n", tc.name, a.N)
			}
		}
		if d := cmp.Diff(tc.want, got); d != "" {
			t.Errorf("%s: alerts (-want +got):\n%s", tc.name, d)
		}
	}
}

// TestDriftBaselines: the pass/fail detector's false-alarm spacing at other
// baselines than the 0.95 (figures in doc.go, "Drift").
func TestDriftBaselines(t *testing.T) {
	if testing.Short() {
		t.Skip("simulation")
	}
	for _, p0 := range []float64{0.99, 0.9, 0.8} {
		r := newPRNG(fmt.Sprint("history/drift-baselines/v1/", p0))
		const assertions, per = 20, 400_000
		alarms := 0
		for range assertions {
			alarms += len(simulate(r, per, func(int) float64 { return p0 }))
		}
		between := float64(assertions*per) / float64(max(1, alarms))
		t.Logf("baseline %.2f: %.0f traces between false alarms", p0, between)
		if between < 50_000 {
			t.Errorf("baseline %.2f: %.0f traces between false alarms, want at least 50,000", p0, between)
		}
	}
}

// TestAlertFileGolden pins the alert file written for the seeded drift
// stream (the alerts are a pure function of the input).
func TestAlertFileGolden(t *testing.T) {
	dir := t.TempDir()
	s, err := Open(dir, Options{Sync: SyncNever})
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range driftStream(newPRNG("history/merge-drift/v1"), 3000, 1800) {
		if _, err := s.Add(r); err != nil {
			t.Fatal(err)
		}
	}
	s.Close()
	got, err := os.ReadFile(filepath.Join(dir, "alerts.ndjson"))
	if err != nil {
		t.Fatal(err)
	}
	golden := filepath.Join("..", "testdata", "history", "alerts.golden.ndjson")
	if *update {
		os.MkdirAll(filepath.Dir(golden), 0o755)
		if err := os.WriteFile(golden, got, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(golden)
	if err != nil {
		t.Fatalf("%v (run go test ./history/ -update)", err)
	}
	if d := cmp.Diff(string(want), string(got)); d != "" {
		t.Errorf("alerts.ndjson (-golden +got):\n%s", d)
	}
}
