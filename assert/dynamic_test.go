// dynamic_test.go: "threshold": "dynamic" against a learned threshold.

package assert

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"

	"attest-engine/provider"
	"attest-engine/resultkey"
)

func TestDynamicThreshold(t *testing.T) {
	const ref = "The refund has been processed and will appear within 3 business days."
	tests := []struct {
		name    string
		learned float64
		err     error
		soft    bool
		status  Status
		expl    string // in the explanation, or in the error
	}{
		{"below the learned threshold", 0.95, nil, false, HardFail, "is below threshold 0.95 (learned from 40 results)"},
		{"soft below", 0.95, nil, true, SoftFail, "is below threshold 0.95 (learned from 40 results)"},
		{"above", 0.5, nil, false, Pass, "exceeds threshold 0.5 (learned from 40 results)"},
		{"too few results: the default threshold while it learns", 0, fmt.Errorf("%w: 3 of 30", ErrTooFewResults), false, Pass, "exceeds threshold 0.8 (the default while 'dynamic' learns: too few earlier results to learn a threshold: 3 of 30)"},
		{"history unreadable", 0, errors.New("state dir gone"), false, "", "assertion 'a1' failed: threshold 'dynamic': state dir gone"},
	}
	tr := refund56(t)
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			f := newFake(t)
			f.Vectors[refundMessage] = []float64{1, 0}
			f.Vectors[ref] = unit2(0.91)
			e := fakeEngine(t, f, func(*provider.Settings) {})
			var asked []string
			e.SetThresholds(func(id string) (float64, string, error) {
				asked = append(asked, id)
				return tc.learned, "learned from 40 results", tc.err
			})
			spec := map[string]any{"target": "output.message", "reference": ref, "threshold": "dynamic", "soft": tc.soft}
			rs, err := e.Evaluate(context.Background(), tr, []Assertion{{ID: "a1", Type: "embedding", Spec: spec}})
			if tc.status == "" {
				var ae *Error
				if !errors.As(err, &ae) || ae.AssertionID != "a1" || !strings.Contains(ae.Error(), tc.expl) {
					t.Fatalf("err = %v, want an assertion error with %q", err, tc.expl)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if rs[0].Status != tc.status || !strings.Contains(rs[0].Explanation, tc.expl) {
				t.Errorf("result %+v, want %s with %q", rs[0], tc.status, tc.expl)
			}
			// Asked by the assertion key, never by the (random) id.
			key, _ := resultkey.Assertion("embedding", spec, "", "")
			if len(asked) != 1 || asked[0] != key {
				t.Errorf("thresholds asked for %q, want [%s]", asked, key)
			}
		})
	}
}
