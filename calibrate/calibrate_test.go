// calibrate_test.go: the calibrate command against the seeded stand-in judge: figures, the certificate, offline replay, bad input, and the gate it feeds.

package calibrate

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"attest-engine/assert"
	"attest-engine/providertest"
)

// fixture writes a suite, a config and n labelled items: the people label
// an item pass when the stand-in's latent quality is good, with errors at
// rate humanNoise; three people label every tenth item.
type fixture struct {
	dir, suite, labels, config, cert string
	si                               *providertest.StandIn
}

func newFixture(t testing.TB, n int, seed uint64, flip, humanNoise float64, offline bool) *fixture {
	t.Helper()
	dir := t.TempDir()
	fx := &fixture{dir: dir, suite: filepath.Join(dir, "suite.json"), labels: filepath.Join(dir, "labels.jsonl"),
		config: filepath.Join(dir, "config.json"), cert: filepath.Join(dir, "cert.json")}
	fx.si = providertest.NewStandIn(t, seed, flip)
	write(t, fx.suite, `{"assertions": [
	  {"name": "helpful", "type": "llm_judge", "spec": {"rubric": "helpfulness", "threshold": 0.7, "consistency": {"mode": "confirm_on_fail"}}},
	  {"name": "short", "type": "content", "spec": {"target": "output.message", "check": "contains", "value": "refund"}}]}`)
	cfg := map[string]any{"judge": map[string]any{"provider": "openai", "base_url": fx.si.URL + "/v1", "model": "gpt-4.1-mini"},
		"cache_dir": filepath.Join(dir, "cache"), "offline": offline}
	b, _ := json.Marshal(cfg)
	write(t, fx.config, string(b))
	rng := rand.New(rand.NewPCG(seed, 99))
	var lb strings.Builder
	for i := range n {
		msg := fmt.Sprintf("Answer %d: your refund RFD-%04d is on its way.", i, i)
		good := fx.si.IsGood(msg)
		label := func() bool {
			if rng.Float64() < humanNoise {
				return !good
			}
			return good
		}
		line := map[string]any{"trace": map[string]any{"schema_version": 1, "trace_id": fmt.Sprintf("trc_%d", i),
			"input": map[string]any{"user_message": "Where is my refund?"}, "output": map[string]any{"message": msg}}}
		if i%10 == 0 {
			line["labels"] = []any{label(), label(), label()}
		} else {
			line["label"] = label()
		}
		b, _ := json.Marshal(line)
		lb.Write(b)
		lb.WriteByte('\n')
	}
	write(t, fx.labels, lb.String())
	return fx
}

func write(t testing.TB, path, text string) {
	t.Helper()
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
}

func run(args ...string) (int, string, string) {
	var out, errb bytes.Buffer
	code := Run(context.Background(), args, strings.NewReader(""), &out, &errb)
	return code, out.String(), errb.String()
}

// TestCalibrateOffline: a certificate recorded against the stand-in, then
// recomputed with --offline from the cache: no call, the same bytes.
// Seed: ATTEST_JUDGE_SEED.
func TestCalibrateOffline(t *testing.T) {
	n := 1000
	if testing.Short() {
		n = 200
	}
	seed := providertest.Seed(t, "ATTEST_JUDGE_SEED", 28)
	fx := newFixture(t, n, seed, 0.03, 0.05, false)
	code, out, errs := run("--suite", fx.suite, "--labels", fx.labels, "--config", fx.config, "--out", fx.cert, "--seed", "5")
	if code != 0 {
		t.Fatalf("exit %d\n%s\n%s", code, out, errs)
	}
	t.Logf("\n%s", out)
	recorded, err := os.ReadFile(fx.cert)
	if err != nil {
		t.Fatal(err)
	}
	calls := fx.si.Calls()
	cert, err := assert.ReadCertificate(fx.cert)
	if err != nil {
		t.Fatal(err)
	}
	if len(cert.Judges) != 1 || cert.Judges[0].Assertion != "helpful" || cert.Judges[0].N != n {
		t.Fatalf("certificate judges %+v", cert.Judges)
	}
	j := cert.Judges[0]
	if j.CohenKappa < 0.6 || j.Accuracy <= j.Majority || j.HumanRaters != 3 || j.HumansAlpha == nil || j.QuadraticKappa != nil {
		t.Errorf("figures %+v", j)
	}
	if !(j.CohenKappaCI[0] <= j.CohenKappa && j.CohenKappa <= j.CohenKappaCI[1]) {
		t.Errorf("κ %v outside its interval %v", j.CohenKappa, j.CohenKappaCI)
	}

	os.Remove(fx.cert)
	code, out2, errs := run("--suite", fx.suite, "--labels", fx.labels, "--config", fx.config, "--out", fx.cert, "--seed", "5", "--offline")
	if code != 0 {
		t.Fatalf("offline: exit %d\n%s\n%s", code, out2, errs)
	}
	if fx.si.Calls() != calls {
		t.Errorf("the offline run made %d calls", fx.si.Calls()-calls)
	}
	replayed, _ := os.ReadFile(fx.cert)
	if !bytes.Equal(recorded, replayed) || out != out2 {
		t.Error("the offline certificate differs from the recorded one")
	}
}

func TestCalibrateBadInput(t *testing.T) {
	fx := newFixture(t, 20, 1, 0, 0, false)
	bad := filepath.Join(fx.dir, "bad.jsonl")
	tests := []struct {
		name   string
		args   []string
		labels string
		code   int
		want   string
	}{
		{"no suite", []string{"--labels", fx.labels}, "", 2, "--suite is required"},
		{"not json", []string{"--suite", fx.suite, "--labels", bad, "--config", fx.config}, "{\n", 2, "bad.jsonl: line 1: not JSON"},
		{"no label", []string{"--suite", fx.suite, "--labels", bad, "--config", fx.config}, `{"trace": {}}` + "\n", 2, `line 1: no "label" or "labels"`},
		{"bad label", []string{"--suite", fx.suite, "--labels", bad, "--config", fx.config}, `{"trace": {}, "label": 2}` + "\n", 2, "label: want true, false"},
		{"repeated key", []string{"--suite", fx.suite, "--labels", bad, "--config", fx.config}, `{"trace": {}, "label": true, "label": false}` + "\n", 2, "line 1: not JSON: duplicate object key"},
		{"invalid trace", []string{"--suite", fx.suite, "--labels", bad, "--config", fx.config}, `{"trace": {"schema_version": 1}, "label": true}` + "\n", 2, "line 1: trace missing required field"},
		{"unknown judge", []string{"--suite", fx.suite, "--labels", bad, "--config", fx.config},
			`{"trace": {"schema_version": 1, "trace_id": "t", "output": {"message": "m"}}, "label": true, "assertion": "helpfull"}` + "\n", 2,
			`line 1: "assertion": "helpfull" is not an llm_judge assertion of the suite ("helpful")`},
		{"offline miss", []string{"--suite", fx.suite, "--labels", fx.labels, "--config", fx.config, "--offline", "--out", fx.cert}, "", 1, "not calibrated: the judge could not answer for 20 of its items"},
	}
	for _, tc := range tests {
		if tc.labels != "" {
			write(t, bad, tc.labels)
		}
		code, out, errs := run(tc.args...)
		if code != tc.code || !strings.Contains(out+errs, tc.want) {
			t.Errorf("%s: exit %d, output %q %q; want %d with %q", tc.name, code, out, errs, tc.code, tc.want)
		}
	}
	if _, err := os.Stat(fx.cert); err == nil {
		t.Error("a certificate was written for a judge that could not answer")
	}
}

// TestLabelsBound: a labels file larger than the bound on a whole file is
// bad input naming the line that passed it, however short its lines.
func TestLabelsBound(t *testing.T) {
	defer func(n int) { maxLabelsBytes = n }(maxLabelsBytes)
	fx := newFixture(t, 20, 1, 0, 0, false)
	b, err := os.ReadFile(fx.labels)
	if err != nil {
		t.Fatal(err)
	}
	maxLabelsBytes = len(b) - 1
	code, out, errs := run("--suite", fx.suite, "--labels", fx.labels, "--config", fx.config)
	if code != 2 || !strings.Contains(errs, "line 20: the file is larger than") {
		t.Errorf("exit %d, output %q %q; want 2 naming line 20", code, out, errs)
	}
	maxLabelsBytes = len(b)
	if code, out, errs := run("--suite", fx.suite, "--labels", fx.labels, "--config", fx.config); code != 0 {
		t.Errorf("a file at the bound: exit %d, output %q %q", code, out, errs)
	}
}

// TestCalibrationGate: require_calibration against certificates: a judge
// with an entry at or above the floor is calibrated; a missing
// certificate, a floor above its κ, and a judge whose rubric changed by one
// byte are not: soft_fail, calibrated false, whatever the judge said.
func TestCalibrationGate(t *testing.T) {
	seed := providertest.Seed(t, "ATTEST_JUDGE_SEED", 28)
	fx := newFixture(t, 200, seed, 0.03, 0.05, false)
	if code, out, errs := run("--suite", fx.suite, "--labels", fx.labels, "--config", fx.config, "--out", fx.cert); code != 0 {
		t.Fatalf("exit %d\n%s\n%s", code, out, errs)
	}
	cert, _ := assert.ReadCertificate(fx.cert)
	kappa := cert.Judges[0].CohenKappa
	cfg, err := assert.LoadConfig(fx.config)
	if err != nil {
		t.Fatal(err)
	}
	e, err := assert.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	good := "" // an item the stand-in passes
	for i := 0; good == ""; i++ {
		if m := fmt.Sprintf("Answer %d: your refund RFD-%04d is on its way.", i, i); fx.si.IsGood(m) {
			good = m
		}
	}
	base := map[string]any{"rubric": "helpfulness", "threshold": 0.7, "consistency": map[string]any{"mode": "confirm_on_fail"}}
	tests := []struct {
		name       string
		spec       map[string]any
		req        map[string]any
		calibrated bool
		status     assert.Status
		expl       string
	}{
		{"calibrated", base, map[string]any{"certificate": fx.cert, "min_kappa": 0.6}, true, assert.Pass, ""},
		{"floor at kappa", base, map[string]any{"certificate": fx.cert, "min_kappa": kappa}, true, assert.Pass, ""},
		{"below floor", base, map[string]any{"certificate": fx.cert, "min_kappa": 0.99}, false, assert.SoftFail, "below the floor 0.99"},
		{"missing", base, map[string]any{"certificate": filepath.Join(fx.dir, "none.json")}, false, assert.SoftFail, "is missing"},
		{"stale rubric", map[string]any{"rubric": "helpfulness", "threshold": 0.7, "consistency": map[string]any{"mode": "confirm_on_fail"}, "criteria": "x"},
			map[string]any{"certificate": fx.cert}, false, assert.SoftFail, "is stale"},
		{"stale mode", map[string]any{"rubric": "helpfulness", "threshold": 0.7},
			map[string]any{"certificate": fx.cert}, false, assert.SoftFail, "is stale"},
	}
	tr, _ := assert.Encode(map[string]any{"schema_version": 1, "trace_id": "t", "output": map[string]any{"message": good}})
	for _, tc := range tests {
		sp := map[string]any{"require_calibration": tc.req}
		for k, v := range tc.spec {
			sp[k] = v
		}
		rs, err := e.EvaluateValue(context.Background(), tr.Root(), []assert.Assertion{{ID: "helpful", Type: "llm_judge", Spec: sp}})
		if err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		r := rs[0]
		if r.Judge == nil || r.Judge.Calibrated == nil || *r.Judge.Calibrated != tc.calibrated || r.Status != tc.status || !strings.Contains(r.Explanation, tc.expl) {
			t.Errorf("%s: %s %q, judge %+v; want calibrated %v, %s with %q", tc.name, r.Status, r.Explanation, r.Judge, tc.calibrated, tc.status, tc.expl)
		}
	}
}

// BenchmarkCalibrateOffline1000: a certificate over 1,000 items recomputed
// from a recorded cache with --offline (the goal: at most 1 s).
func BenchmarkCalibrateOffline1000(b *testing.B) {
	fx := newFixture(b, 1000, 28, 0.03, 0.05, false)
	if code, out, errs := run("--suite", fx.suite, "--labels", fx.labels, "--config", fx.config); code != 0 {
		b.Fatalf("exit %d\n%s\n%s", code, out, errs)
	}
	calls := fx.si.Calls()
	for b.Loop() {
		if code, _, errs := run("--suite", fx.suite, "--labels", fx.labels, "--config", fx.config, "--offline", "--out", fx.cert); code != 0 {
			b.Fatal(errs)
		}
	}
	if fx.si.Calls() != calls {
		b.Fatal("offline runs made calls")
	}
}
