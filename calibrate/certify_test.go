// certify_test.go: a judge's figures computed from hand-made verdicts and labels, and a budget that stops the judge.

package calibrate

import (
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"attest-engine/agreement"
	"attest-engine/assert"

	"github.com/google/go-cmp/cmp"
)

func num(x float64) *rating { return &rating{score: x, numeric: true} }
func yes(p bool) rating     { return rating{pass: p} }

// TestCertifyFigures: certify's figures are the agreement statistics of
// the vectors the labels and verdicts make by the rules of doc.go — the
// consensus label, else the majority of labels with a tie as fail;
// numeric labels pass at the threshold and sit on five ordinal levels (the
// mean of several people's); the people then the judge as α's raters —
// and items a judge has no verdict for are left out.
func TestCertifyFigures(t *testing.T) {
	nan := math.NaN()
	tests := []struct {
		name        string
		items       []item
		vs          []verdict
		truth, pred []int
		levels      [2][]int    // people and judge on five levels; nil: no quadratic κ
		units       [][]float64 // the people, then the judge
		humans      [][]float64 // nil: fewer than two people
	}{
		{"mixed labels, a tie counted as fail",
			[]item{
				{consensus: num(0.9)},
				{consensus: num(0.2)},
				{raters: []rating{yes(true), yes(false)}}, // a tie: fail
				{raters: []rating{{score: 0.8, numeric: true}, {score: 0.6, numeric: true}, {score: 0.1, numeric: true}}},
				{consensus: &rating{pass: true}},
				{consensus: num(0.9)}, // no verdict: not for this judge
			},
			[]verdict{{true, true, 0.8}, {true, false, 0.3}, {true, true, 0.75}, {true, false, 0.4}, {true, true, 0.9}, {}},
			[]int{1, 0, 0, 1, 1}, []int{1, 0, 1, 0, 1}, [2][]int{},
			[][]float64{{1, nan, nan, 1}, {0, nan, nan, 0}, {1, 0, nan, 1}, {1, 1, 0, 0}, {1, nan, nan, 1}},
			[][]float64{{1, nan, nan}, {0, nan, nan}, {1, 0, nan}, {1, 1, 0}, {1, nan, nan}}},
		{"numeric labels: quadratic κ on levels",
			[]item{{consensus: num(1)}, {consensus: num(0.3)}, {consensus: num(0.6)}, {raters: []rating{{score: 0.5, numeric: true}, {score: 0.9, numeric: true}}}},
			[]verdict{{true, true, 0.74}, {true, false, 0.1}, {true, false, 0.49}, {true, true, 0.9}},
			[]int{1, 0, 1, 1}, []int{1, 0, 0, 1}, [2][]int{{4, 1, 2, 3}, {3, 0, 2, 4}},
			[][]float64{{1, nan, 1}, {0, nan, 0}, {1, nan, 0}, {1, 1, 1}},
			[][]float64{{1, nan}, {0, nan}, {1, nan}, {1, 1}}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			c := &cmd{seed: 3, replicates: 500}
			j := &judge{a: assert.Assertion{ID: "j"}, threshold: 0.5}
			got, ok := c.certify(j, tc.items, tc.vs)
			if !ok {
				t.Fatal("no figures")
			}
			m := agreement.Confusion(tc.truth, tc.pred, 2)
			n := len(tc.truth)
			boot := func(stat func(a, b []int) float64, a, b []int) [2]float64 {
				return ci(agreement.Bootstrap(n, 500, 3, func(idx []int) float64 {
					x, y := make([]int, n), make([]int, n)
					for k, i := range idx {
						x[k], y[k] = a[i], b[i]
					}
					return stat(x, y)
				}))
			}
			want := assert.JudgeCert{Assertion: "j", Hash: got.Hash, N: n,
				Accuracy: agreement.Accuracy(m), CohenKappa: agreement.CohenKappa(m),
				Confusion: [2][2]int{{m[0][0], m[0][1]}, {m[1][0], m[1][1]}},
				Alpha:     agreement.Alpha(tc.units, agreement.Nominal), AlphaRaters: len(tc.units[0]),
				Majority: agreement.MajorityBaseline(tc.truth), BootstrapSeed: 3, BootstrapReps: 500,
				HumanRaters:  len(tc.units[0]) - 1,
				AccuracyCI:   boot(func(a, b []int) float64 { return agreement.Accuracy(agreement.Confusion(a, b, 2)) }, tc.truth, tc.pred),
				CohenKappaCI: boot(func(a, b []int) float64 { return agreement.CohenKappa(agreement.Confusion(a, b, 2)) }, tc.truth, tc.pred),
			}
			if tc.levels[0] != nil {
				q := agreement.WeightedKappa(agreement.Confusion(tc.levels[0], tc.levels[1], 5))
				qci := boot(func(a, b []int) float64 { return agreement.WeightedKappa(agreement.Confusion(a, b, 5)) }, tc.levels[0], tc.levels[1])
				want.QuadraticKappa, want.QuadraticCI = &q, &qci
			}
			if tc.humans != nil {
				a := agreement.Alpha(tc.humans, agreement.Nominal)
				want.HumansAlpha = &a
			}
			if d := cmp.Diff(want, got); d != "" {
				t.Errorf("figures (-want +got):\n%s", d)
			}
		})
	}
}

// TestCalibrateBudget: a judge that budget_usd stops answers for no item:
// it is not calibrated (exit 1, no certificate), never certified on the
// skipped results' soft_fail.
func TestCalibrateBudget(t *testing.T) {
	fx := newFixture(t, 20, 1, 0, 0, false)
	cfg, err := os.ReadFile(fx.config)
	if err != nil {
		t.Fatal(err)
	}
	tight := filepath.Join(fx.dir, "tight.json")
	write(t, tight, strings.Replace(string(cfg), "{", `{"budget_usd": 1e-9, `, 1))
	code, out, errs := run("--suite", fx.suite, "--labels", fx.labels, "--config", tight, "--out", fx.cert)
	if code != 1 || !strings.Contains(out, "not calibrated: the judge could not answer for 20 of its items") || !strings.Contains(out, "budget_usd") {
		t.Errorf("exit %d, output %q %q; want 1, not calibrated for the budget", code, out, errs)
	}
	if _, err := os.Stat(fx.cert); err == nil {
		t.Error("a certificate was written for a judge the budget stopped")
	}
	if fx.si.Calls() != 0 {
		t.Errorf("%d calls made past a budget no call fits", fx.si.Calls())
	}
}
