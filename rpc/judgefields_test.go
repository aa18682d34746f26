// judgefields_test.go: a judge result's additive fields on the wire.

package rpc

import (
	"encoding/json"
	"testing"

	"attest-engine/assert"
)

// TestJudgeFieldsAdditive: the judge's fields follow the spec §2.2 result
// fields, which keep their names, types and meaning; a result without them
// is byte for byte what it was.
func TestJudgeFieldsAdditive(t *testing.T) {
	no, yes := false, true
	tests := []struct {
		name string
		j    *assert.JudgeInfo
		want string
	}{
		{"none", nil, `{"assertion_id":"j","status":"hard_fail","score":0.55,"explanation":"e","cost":0.0,"duration_ms":3}`},
		{"consistency", &assert.JudgeInfo{Samples: 4, Agreeing: 2, Split: true},
			`{"assertion_id":"j","status":"hard_fail","score":0.55,"explanation":"e","cost":0.0,"duration_ms":3,"samples":4,"agreeing":2,"split":true}`},
		{"pairwise_uncalibrated", &assert.JudgeInfo{Samples: 1, Agreeing: 1, PositionConsistent: &no, Calibrated: &no},
			`{"assertion_id":"j","status":"hard_fail","score":0.55,"explanation":"e","cost":0.0,"duration_ms":3,"samples":1,"agreeing":1,"position_consistent":false,"calibrated":false}`},
		{"calibrated", &assert.JudgeInfo{Calibrated: &yes},
			`{"assertion_id":"j","status":"hard_fail","score":0.55,"explanation":"e","cost":0.0,"duration_ms":3,"calibrated":true}`},
	}
	for _, tc := range tests {
		got := string(appendResult(nil, assert.Result{AssertionID: "j", Status: assert.HardFail, Score: 0.55, Explanation: "e", DurationMS: 3, Judge: tc.j}))
		if got != tc.want {
			t.Errorf("%s:\n got %s\nwant %s", tc.name, got, tc.want)
		}
		if !json.Valid([]byte(got)) {
			t.Errorf("%s: not JSON", tc.name)
		}
	}
}
