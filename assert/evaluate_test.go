// evaluate_test.go: Evaluate, the tests' way into the engine with a trace they hold decoded.

package assert

import "context"

// Evaluate is EvaluateValue for a trace held decoded: it is encoded and read
// as a tape. Only tests hold traces so; the engine reads them in place.
func (e *Engine) Evaluate(ctx context.Context, tr map[string]any, as []Assertion) ([]Result, error) {
	v, err := encodeTrace(tr)
	if err != nil {
		return nil, err
	}
	return e.EvaluateValue(ctx, v, as)
}
