// main_trajectory_test.go: the trajectory checks through the built binary, as an SDK session drives it.

package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"testing"
)

// TestTrajectoryBinary: a client that requires the capability "trajectory"
// is compatible; on the upstream examples with their failure planted, sent
// as an SDK sends a batch (random assertion ids, one line per request), the
// spec's checks pass and the trajectory checks meant to catch the failure
// answer hard_fail with failed_step naming the planted agent, step and tool.
func TestTrajectoryBinary(t *testing.T) {
	bin := buildEngine(t)
	e := start(t, bin, "--log-level=warn")
	s := &sdkSession{e: e}
	hello := s.call(t, "initialize", `{"sdk_name":"attest-python","sdk_version":"0.1.0","protocol_version":1,"required_capabilities":["layers_1_4","trajectory"],"preferred_encoding":"json"}`)
	res, _ := hello["result"].(map[string]any)
	if res == nil || res["compatible"] != true {
		t.Fatalf("initialize requiring trajectory: %v", hello)
	}
	var caps []string
	for _, c := range res["capabilities"].([]any) {
		caps = append(caps, c.(string))
	}
	if !slices.Contains(caps, "trajectory") {
		t.Fatalf("capabilities %v lack trajectory", caps)
	}
	files, err := filepath.Glob(filepath.Join("testdata", "trajectory", "examples", "*.json"))
	if err != nil || len(files) == 0 {
		t.Fatalf("examples: %v %v", files, err)
	}
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		var ex struct {
			Planted struct {
				Trace    json.RawMessage `json:"trace"`
				At       map[string]any  `json:"at"`
				CaughtBy []string        `json:"caught_by"`
			} `json:"planted"`
			SpecChecks       []map[string]any `json:"spec_checks"`
			TrajectoryChecks []map[string]any `json:"trajectory_checks"`
		}
		if err := json.Unmarshal(b, &ex); err != nil {
			t.Fatal(err)
		}
		name := map[string]string{} // random id → the example's id
		var as []map[string]any
		for _, a := range append(ex.SpecChecks, ex.TrajectoryChecks...) {
			id := sdkAssertionID()
			name[id] = a["assertion_id"].(string)
			a["assertion_id"] = id
			as = append(as, a)
		}
		asJSON, _ := json.Marshal(as)
		ans := s.call(t, "evaluate_batch", `{"trace":`+string(ex.Planted.Trace)+`,"assertions":`+string(asJSON)+`}`)
		results, _ := ans["result"].(map[string]any)["results"].([]any)
		if len(results) != len(as) {
			t.Fatalf("%s: %v", f, ans)
		}
		for _, r := range results {
			r := r.(map[string]any)
			id := name[r["assertion_id"].(string)]
			fs, _ := r["failed_step"].(map[string]any)
			if !slices.Contains(ex.Planted.CaughtBy, id) {
				if r["status"] != "pass" || fs != nil {
					t.Errorf("%s %s: %v, want pass", f, id, r)
				}
				continue
			}
			if r["status"] != "hard_fail" || fs == nil || fs["agent_id"] != ex.Planted.At["agent_id"] ||
				fmt.Sprint(fs["step"]) != fmt.Sprint(ex.Planted.At["step"]) || fs["tool"] != ex.Planted.At["tool"] {
				t.Errorf("%s %s: %v, want hard_fail at %v", f, id, r, ex.Planted.At)
			}
		}
	}
}
