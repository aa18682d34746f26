// evaluate_test.go: the tests' ways into the engine with a trace they hold decoded.

package assert

import (
	"context"

	"attest-engine/tape"
)

// Evaluate is EvaluateValue for a trace held decoded: it is encoded and read
// as a tape. Only tests hold traces so; the engine reads them in place.
func (e *Engine) Evaluate(ctx context.Context, tr map[string]any, as []Assertion) ([]Result, error) {
	v, err := encodeTrace(tr)
	if err != nil {
		return nil, err
	}
	return e.EvaluateValue(ctx, v, as)
}

// inputOf is the input for a trace held decoded: it is encoded and read as
// a tape.
func inputOf(tr map[string]any) (*input, error) {
	v, err := encodeTrace(tr)
	if err != nil {
		return nil, err
	}
	in := newInput(v)
	in.decodedOnce.Do(func() { in.decoded = tr })
	return in, nil
}

// encodeTrace encodes a decoded trace and reads the text as a tape (its
// Doc is not released: it lives as long as its Values are reachable).
func encodeTrace(tr map[string]any) (tape.Value, error) {
	doc, err := Encode(tr)
	if err != nil {
		return tape.Value{}, err
	}
	return doc.Root(), nil
}
