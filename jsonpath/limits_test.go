// limits_test.go: hostile inputs stay bounded, and a Path is safe to share between goroutines.

package jsonpath

import (
	"encoding/json"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"attest-engine/tape"
)

// TestHostileInputsStayCheap: each hostile path over 20,000 elements of 50
// numbers ends within a watchdog of 30 s. It takes milliseconds; a filter
// comparing the whole document per element (quadratic) takes minutes, so
// the watchdog tells the two apart however loaded the machine is, where a
// tight time limit failed under load.
func TestHostileInputsStayCheap(t *testing.T) {
	rows := make([]any, 20000)
	for i := range rows {
		row := make([]any, 50)
		for j := range row {
			row[j] = j
		}
		rows[i] = row
	}
	doc := map[string]any{"rows": rows}
	text, err := json.Marshal(doc)
	if err != nil {
		t.Fatal(err)
	}
	tdoc, err := tape.Parse(text)
	if err != nil {
		t.Fatal(err)
	}
	defer tdoc.Release()
	tests := []struct{ why, expr string }{
		{"constant comparison of the whole document", "rows[?$==$].length"},
		{"constant existence through wildcards", "rows[?$.rows[*][*].x].length"},
		{"self comparison per element", "rows[?@==@].length"},
		{"wildcards as deep as the document", "rows[*][*][*][*].length"},
		{"longest expression", "rows" + strings.Repeat("[0]", (maxExprLen-4)/3)},
	}
	for _, tc := range tests {
		p, err := Parse(tc.expr)
		if err != nil {
			if _, ok := err.(*SyntaxError); !ok {
				t.Errorf("%s: %v", tc.why, err)
			}
			continue
		}
		done := make(chan struct{})
		go func() {
			defer close(done)
			p.Select(doc)
			p.SelectValue(tdoc.Root())
		}()
		select {
		case <-done:
		case <-time.After(30 * time.Second):
			t.Fatalf("%s: Select and SelectValue(%q) still running after 30 s: work grows faster than the document", tc.why, tc.expr)
		}
	}
}

// TestBoundExpressions: the fuzz seeds reach every limit of an expression:
// each pair's first expression is accepted, its second refused.
func TestBoundExpressions(t *testing.T) {
	for _, pair := range boundExpressions() {
		if _, err := Parse(pair[0]); err != nil {
			t.Errorf("%.40q… (%d bytes): %v, want it accepted at the limit", pair[0], len(pair[0]), err)
		}
		if _, err := Parse(pair[1]); err == nil {
			t.Errorf("%.40q… (%d bytes) accepted, want a syntax error past the limit", pair[1], len(pair[1]))
		}
	}
}

func TestCyclicDocumentDoesNotHang(t *testing.T) {
	m := map[string]any{}
	m["self"] = m
	doc := []any{m}
	if got := MustParse("$[?@==$[0]].length").Select(doc); len(got) != 1 {
		t.Errorf("got %d matches, want 1 count", len(got))
	}
}

func TestConcurrentSelect(t *testing.T) {
	doc := loadDoc(t, multi)
	p := MustParse("steps[?name=='search'].args.query")
	want := p.Select(doc)
	var wg sync.WaitGroup
	for range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for range 100 {
				if diff := cmp.Diff(want, p.Select(doc)); diff != "" {
					t.Errorf("concurrent Select differs:\n%s", diff)
					return
				}
			}
		}()
	}
	wg.Wait()
}
