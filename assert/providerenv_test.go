// providerenv_test.go: the ATTEST_* variables of the earlier engine seen from an assertion: a feature turned off says why, the judge timeout bounds each attempt.

package assert

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"attest-engine/provider"
	"attest-engine/providertest"
)

// An unusable variable is also the answer's detail: SDKs never read stderr.
func TestProviderEnvironmentOffSaysWhy(t *testing.T) {
	tests := []struct {
		name, typ, envVar, value string
		spec                     map[string]any
	}{
		{"judge", "llm_judge", "ATTEST_JUDGE_PROVIDER", "gemini", map[string]any{"rubric": "helpfulness"}},
		{"embedding", "embedding", "ATTEST_EMBEDDING_PROVIDER", "local", map[string]any{"target": "output.message", "reference": "refund processed"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			f := newFake(t)
			e := fakeEngine(t, f, func(ps *provider.Settings) {
				ps.Getenv = envOf("OPENAI_API_KEY", testKey, "OPENAI_BASE_URL", f.URL+"/v1", tc.envVar, tc.value)
			})
			if got := e.Warnings(); len(got) != 1 || !strings.Contains(got[0], tc.envVar) {
				t.Errorf("Warnings() = %q, want one naming %s", got, tc.envVar)
			}
			_, err := e.Evaluate(context.Background(), refund56(t), []Assertion{{ID: "a", Type: tc.typ, Spec: tc.spec}})
			var ae *Error
			if !errors.As(err, &ae) || !strings.Contains(ae.Detail, tc.envVar+` "`+tc.value+`"`) {
				t.Errorf("error %v (detail %q): want a 1002 whose detail names %s", err, detailOf(ae), tc.envVar)
			}
			if n := len(f.Requests()); n != 0 {
				t.Errorf("%d provider calls with the feature off", n)
			}
		})
	}
}

func detailOf(e *Error) string {
	if e == nil {
		return ""
	}
	return e.Detail
}

// ATTEST_JUDGE_TIMEOUT_S bounds each attempt: a stalled attempt is retried,
// and three stalled attempts are a 2001 naming the variable. The timeout
// is 300 ms: an answered attempt must fit in it under the race detector on
// a loaded machine (50 ms did not, and a third call was made).
func TestJudgeTimeoutFromEnvironment(t *testing.T) {
	tests := []struct {
		name, reason string
		stalls       int // attempts that take longer than the timeout
		wantErr      string
		wantCalls    int
	}{
		{"retried", "one stalled attempt, then an answer", 1, "", 2},
		{"gives up", "every attempt stalls: PROVIDER_ERROR after 3", 3, "judge provider did not answer within 300ms (ATTEST_JUDGE_TIMEOUT_S)", 3},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			f := newFake(t)
			for range tc.stalls {
				f.Push(providertest.Canned{Status: 200, Body: `{}`, Delay: 5 * time.Second})
			}
			e := fakeEngine(t, f, func(ps *provider.Settings) {
				ps.Getenv = envOf("OPENAI_API_KEY", testKey, "OPENAI_BASE_URL", f.URL+"/v1", "ATTEST_JUDGE_TIMEOUT_S", "0.3")
			})
			start := time.Now()
			rs, err := e.Evaluate(context.Background(), refund56(t), []Assertion{{ID: "j", Type: "llm_judge", Spec: map[string]any{"rubric": "helpfulness"}}})
			if d := time.Since(start); d > 3*time.Second {
				t.Errorf("took %v: the timeout did not cut the stalled attempts", d)
			}
			var pe *provider.Error
			switch {
			case tc.wantErr == "" && (err != nil || rs[0].Status != "pass"):
				t.Errorf("%s: %v, %+v", tc.reason, err, rs)
			case tc.wantErr != "" && (!errors.As(err, &pe) || pe.Message != tc.wantErr):
				t.Errorf("%s: error %v, want %q", tc.reason, err, tc.wantErr)
			}
			if n := len(f.Requests()); n != tc.wantCalls {
				t.Errorf("%s: %d calls, want %d", tc.reason, n, tc.wantCalls)
			}
		})
	}
}
