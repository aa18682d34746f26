package history

import (
	"flag"
	"math"
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

// TestReference: the CUSUM's reference starts as the baseline, takes in
// each run of windows that ended with the CUSUM back at 0 without an alert,
// never a run that alerted, and stops growing at ReferenceN results; f0 is
// the upper end of its one-sigma Wilson interval.
func TestReference(t *testing.T) {
	cfg := DriftConfig{BaselineN: 100, ReferenceN: 300, MinN: 30}.withDefaults()
	step := func(d *detector, windows []string) {
		for _, w := range windows {
			var s Summary
			for _, c := range w {
				if c == 'x' {
					s.add(HardFail, 0)
				} else {
					s.add(Pass, 1)
				}
			}
			d.step(&s)
		}
	}
	tests := []struct {
		name          string
		windows       []string
		passes, fails uint64
		alerts        bool
	}{
		{"baseline only", rep(".........x", 10), 90, 10, false},
		{"in-control runs join", cat(rep(".........x", 10), rep("..........", 5)), 140, 10, false},
		{"up to ReferenceN, by whole runs", cat(rep(".........x", 10), rep("..........", 40)), 290, 10, false},
		{"a run that alerted stays out", cat(rep(".........x", 10), rep("xxxxx.....", 10), rep("..........", 3)), 90, 10, true},
	}
	for _, tc := range tests {
		d := newDetector("k", cfg)
		step(d, tc.windows)
		if d.ref.Passes != tc.passes || d.ref.Fails != tc.fails {
			t.Errorf("%s: reference %d passes, %d failures; want %d, %d", tc.name, d.ref.Passes, d.ref.Fails, tc.passes, tc.fails)
		}
		if want := wilsonUpper(tc.fails, tc.passes+tc.fails, 1); math.Abs(d.f0-want) > 1e-15 {
			t.Errorf("%s: f0 %v, want %v", tc.name, d.f0, want)
		}
		if d.runAlarmed != tc.alerts {
			t.Errorf("%s: run alarmed %v, want %v", tc.name, d.runAlarmed, tc.alerts)
		}
	}
	// Wilson's upper end at one sigma, by hand: 10 failures in 100,
	// (p + z²/2n + z·sqrt(p(1−p)/n + z²/4n²)) / (1 + z²/n)
	if got, want := wilsonUpper(10, 100, 1), (0.1+0.005+math.Sqrt(0.0009+0.000025))/1.01; math.Abs(got-want) > 1e-15 {
		t.Errorf("wilsonUpper(10, 100, 1) = %v, want %v", got, want)
	}
}

// TestCUSUMWorkedExample: doc.go's figures for a baseline of 950 passes in
// 1,000: f0 ≈ 0.0574 (the upper one-sigma Wilson end), f1 ≈ 0.1574, and in
// the standardized form k ≈ 0.100 failures per result and h ≈ 7.58
// failures, from the detector's own increments: k = −llrPass / (llrFail −
// llrPass), h = H / (llrFail − llrPass).
func TestCUSUMWorkedExample(t *testing.T) {
	d := newDetector("k", DriftConfig{}.withDefaults())
	d.step(&Summary{Passes: 950, Fails: 50})
	if !d.baseDone {
		t.Fatal("the baseline did not freeze at 1,000 results")
	}
	step := d.llrFail - d.llrPass
	got := []float64{d.f0, d.f1, -d.llrPass / step, d.cfg.H / step}
	want := []float64{0.0574, 0.1574, 0.100, 7.58}
	for i := range got {
		if math.Abs(got[i]-want[i]) > 0.0006*math.Max(1, want[i]) {
			t.Errorf("f0, f1, k, h = %.4f, want %.4f", got, want)
			break
		}
	}
}
