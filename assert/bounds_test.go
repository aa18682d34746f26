// bounds_test.go: docs/security.md's bounds in the engine: caches filled past their size, batches checked whole first.

package assert

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"testing"
)

// TestEngineCachesBounded: docs/security.md "every cache is a bounded LRU (compiled
// assertions, parsed paths, idempotency results, ..., assertion specs known
// by their text: 1,024 texts of ≤ 4 KB each)". Each cache is driven
// past its size by distinct inputs and must stay at it. (The provider result
// cache's bounds are tested in package provider.)
func TestEngineCachesBounded(t *testing.T) {
	eng, err := New(Config{})
	if err != nil {
		t.Fatal(err)
	}
	refund := loadTrace(t, "refund")
	ctx := context.Background()

	// Compiled assertions: one distinct spec per batch, a few past the bound.
	for i := range compiledCacheSize + 8 {
		a := Assertion{ID: "c", Type: "constraint", Spec: map[string]any{"field": "metadata.cost_usd", "operator": "lte", "value": json.Number(fmt.Sprint(i))}}
		if _, err := eng.Evaluate(ctx, refund, []Assertion{a}); err != nil {
			t.Fatal(err)
		}
	}
	if n := eng.compiled.Len(); n != compiledCacheSize {
		t.Errorf("compiled-assertion cache: %d entries after %d distinct specs, want %d", n, compiledCacheSize+8, compiledCacheSize)
	}

	// Idempotency results: one request_id per assertion (spec §2.2), in one
	// batch (a batch each would take seconds under the race detector).
	cost := map[string]any{"field": "metadata.cost_usd", "operator": "lte", "value": json.Number("0.01")}
	var as []Assertion
	for i := range resultCacheSize + 8 {
		as = append(as, Assertion{ID: fmt.Sprint("r", i), Type: "constraint", Spec: cost, RequestID: fmt.Sprint("req_", i)})
	}
	if _, err := eng.Evaluate(ctx, refund, as); err != nil {
		t.Fatal(err)
	}
	if n := eng.results.Len(); n != resultCacheSize {
		t.Errorf("idempotency record: %d entries after %d request_ids, want %d", n, resultCacheSize+8, resultCacheSize)
	}

	// Assertion specs known by their text: 1,024 texts of at most 4 KB.
	for i := range specTextEntries + 8 {
		text := fmt.Sprintf(`{"field":"metadata.cost_usd","operator":"lte","value":%d}`, i)
		eng.RememberSpec([]byte(text), map[string]any{"field": "metadata.cost_usd", "operator": "lte", "value": json.Number(fmt.Sprint(i))})
	}
	if n := eng.KnownSpecs(); n != specTextEntries {
		t.Errorf("spec texts: %d kept after %d distinct ones, want %d", n, specTextEntries+8, specTextEntries)
	}
	fresh, err := New(Config{})
	if err != nil {
		t.Fatal(err)
	}
	long := `{"target":"output.message","check":"contains","value":"` + strings.Repeat("x", specTextMax) + `"}`
	fresh.RememberSpec([]byte(long), map[string]any{"target": "output.message", "check": "contains", "value": strings.Repeat("x", specTextMax)})
	if n := fresh.KnownSpecs(); n != 0 {
		t.Errorf("a spec text of %d bytes is kept (%d known); the bound is %d", len(long), n, specTextMax)
	}

	// Parsed paths: shared by every engine of the process, so only the
	// bound is checked, not the count.
	for i := range pathCacheSize + 8 {
		if _, err := parseTarget(spec{"target": fmt.Sprintf("output.structured.field_%d", i)}, "target"); err != nil {
			t.Fatal(err)
		}
	}
	if n := parsedPaths.Len(); n != pathCacheSize {
		t.Errorf("parsed-path cache: %d entries after %d distinct paths, want %d", n, pathCacheSize+8, pathCacheSize)
	}
}

// TestBatchRefusedBeforeEvaluation: docs/security.md "unknown types, bad regexes,
// schemas and paths are 1002 before anything is evaluated": a batch with a
// valid judge assertion and a bad one beside it is refused without a single
// provider call.
func TestBatchRefusedBeforeEvaluation(t *testing.T) {
	f := newFake(t)
	eng := fakeEngine(t, f, nil)
	judge := Assertion{ID: "judge", Type: "llm_judge", Spec: map[string]any{"target": "output.message", "criteria": "Confirms the refund"}}
	for _, bad := range []Assertion{
		{ID: "type", Type: "vibes", Spec: map[string]any{}},
		{ID: "regex", Type: "content", Spec: map[string]any{"target": "output.message", "check": "regex_match", "value": "("}},
		{ID: "schema", Type: "schema", Spec: map[string]any{"target": "output.structured", "schema": map[string]any{"type": 5}}},
		{ID: "path", Type: "embedding", Spec: map[string]any{"target": "output..message", "reference": "refund"}},
	} {
		_, err := eng.Evaluate(context.Background(), refund56(t), []Assertion{judge, bad})
		var ae *Error
		if !errors.As(err, &ae) || ae.AssertionID != bad.ID {
			t.Errorf("%s: got %v, want the ASSERTION_ERROR of %s", bad.ID, err, bad.ID)
		}
		if n := len(f.Requests()); n != 0 {
			t.Fatalf("%s: %d provider calls before the batch was refused, want none", bad.ID, n)
		}
	}
}
