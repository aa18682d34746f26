// main_judges_test.go: the built binary as a user drives it against the seeded stand-in judge: calibrate, eval --dry-run, then an SDK session gated by the certificate, under a budget and a rate limit.

package main

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"attest-engine/providertest"
)

func TestBinaryJudges(t *testing.T) {
	bin := buildEngine(t)
	seed := providertest.Seed(t, "ATTEST_JUDGE_SEED", 28)
	si := providertest.NewStandIn(t, seed, 0.03)
	dir := t.TempDir()
	file := func(name, text string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	spec := `{"rubric": "helpfulness", "threshold": 0.7, "consistency": {"mode": "sequential", "max": 3}}`
	suite := file("suite.json", `{"assertions": [{"name": "helpful", "type": "llm_judge", "spec": `+spec+`}]}`)
	var labels, traces strings.Builder
	for i := range 60 {
		msg := fmt.Sprintf("Answer %d: your refund RFD-%04d is on its way.", i, i)
		tr := fmt.Sprintf(`{"schema_version":1,"trace_id":"trc_%d","input":{"user_message":"Where is my refund?"},"output":{"message":%q}}`, i, msg)
		fmt.Fprintf(&labels, `{"trace":%s,"label":%v}`+"\n", tr, si.IsGood(msg))
		traces.WriteString(tr + "\n")
	}
	labelsPath, tracesPath := file("labels.jsonl", labels.String()), file("traces.ndjson", traces.String())
	cache := filepath.Join(dir, "cache")
	cfg := map[string]any{"judge": map[string]any{"provider": "openai", "base_url": si.URL + "/v1", "model": "gpt-4.1-mini"}, "cache_dir": cache}
	b, _ := json.Marshal(cfg)
	config := file("config.json", string(b))
	cert := filepath.Join(dir, "judges.cert.json")

	run := func(args ...string) (int, string, string) {
		cmd := exec.Command(bin, args...)
		var out, errb strings.Builder
		cmd.Stdout, cmd.Stderr = &out, &errb
		err := cmd.Run()
		code := 0
		if ee, ok := err.(*exec.ExitError); ok {
			code = ee.ExitCode()
		} else if err != nil {
			t.Fatal(err)
		}
		return code, out.String(), errb.String()
	}
	code, out, errs := run("calibrate", "--suite", suite, "--labels", labelsPath, "--config", config, "--out", cert)
	if code != 0 || !strings.Contains(out, "judge helpful") || !strings.Contains(out, "Cohen's κ") {
		t.Fatalf("calibrate: exit %d\n%s\n%s", code, out, errs)
	}
	calls := si.Calls()

	// Everything the session will ask is cached: the dry run says so, and makes no call.
	assertions := file("assertions.json", `[{"assertion_id": "helpful", "type": "llm_judge", "spec": `+spec+`}]`)
	code, out, errs = run("eval", "--trace", tracesPath, "--assertions", assertions, "--config", config, "--dry-run")
	if code != 0 || !strings.Contains(out, "dry run: 60 traces") || !strings.Contains(out, "gpt-4.1-mini") || si.Calls() != calls {
		t.Fatalf("dry run: exit %d, %d calls\n%s\n%s", code, si.Calls()-calls, out, errs)
	}
	if !strings.Contains(out, " 0–") && !strings.Contains(out, "  0 ") {
		t.Errorf("dry run after calibration: want no certain paid call\n%s", out)
	}

	// An SDK session, started as the SDKs start it, with the earlier engine's variables set.
	t.Setenv("OPENAI_BASE_URL", si.URL+"/v1")
	t.Setenv("OPENAI_API_KEY", providertest.Key)
	t.Setenv("ATTEST_CACHE_DIR", cache)
	t.Setenv("ATTEST_JUDGE_RPM", "6000")
	t.Setenv("ATTEST_JUDGE_BURST", "10")
	t.Setenv("ATTEST_BUDGET_MAX_COST", "5")
	e := start(t, bin, "--log-level=warn")
	e.send(t, init56)
	if hello := e.answer(t); hello["result"] == nil {
		t.Fatalf("initialize: %v", hello)
	}
	gated := fmt.Sprintf(`{"assertion_id":"assert_%s","type":"llm_judge","spec":{"rubric":"helpfulness","threshold":0.7,"consistency":{"mode":"sequential","max":3},"require_calibration":{"certificate":%q,"min_kappa":0.5}}}`, "1a2b3c4d", cert)
	stale := fmt.Sprintf(`{"assertion_id":"assert_%s","type":"llm_judge","spec":{"rubric":"helpfulness","threshold":0.75,"require_calibration":{"certificate":%q}}}`, "5e6f7a8b", cert)
	msg := "Answer 3: your refund RFD-0003 is on its way."
	e.send(t, batch56("b1", msg, gated+","+stale))
	ans := e.answer(t)
	res, ok := ans["result"].(map[string]any)
	if !ok {
		t.Fatalf("batch: %v", ans)
	}
	rs := res["results"].([]any)
	first, second := rs[0].(map[string]any), rs[1].(map[string]any)
	if first["calibrated"] != true || first["samples"] == nil || first["agreeing"] == nil {
		t.Errorf("a calibrated judge: %v", first)
	}
	if second["calibrated"] != false || second["status"] != "soft_fail" || !strings.Contains(second["explanation"].(string), "is stale") {
		t.Errorf("a judge whose threshold changed since calibration: %v", second)
	}
	for _, r := range rs {
		m := r.(map[string]any)
		for _, k := range []string{"assertion_id", "status", "score", "explanation", "cost", "duration_ms"} {
			if _, ok := m[k]; !ok {
				t.Errorf("result %v lacks spec §2.2 field %q", m, k)
			}
		}
	}
	e.stdin.Close()
	e.wait(t)
}
