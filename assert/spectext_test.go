// spectext_test.go: KnownSpec finds a remembered spec by its whole text only.

package assert

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"
)

// TestKnownSpec: a remembered text is found, as the very value
// remembered; a prefix, an extension, other white space and a text past
// specTextMax are not.
func TestKnownSpec(t *testing.T) {
	eng, err := New(Config{})
	if err != nil {
		t.Fatal(err)
	}
	const text = `{"field":"metadata.cost_usd","operator":"lte","value":0.01}`
	v := map[string]any{"field": "metadata.cost_usd", "operator": "lte", "value": json.Number("0.01")}
	eng.RememberSpec([]byte(text), v)
	long := `{"x":"` + strings.Repeat("y", specTextMax) + `"}`
	eng.RememberSpec([]byte(long), map[string]any{"x": strings.Repeat("y", specTextMax)})
	got, ok := eng.KnownSpec([]byte(text))
	if !ok || identity(got) != identity(v) {
		t.Fatalf("KnownSpec(%s): %v, %v; want the remembered value", text, got, ok)
	}
	for _, other := range []string{text[:len(text)-1], text + " ", strings.Replace(text, ",", ", ", 1), `{}`, long} {
		if _, ok := eng.KnownSpec([]byte(other)); ok {
			t.Errorf("KnownSpec(%.80s) found", other)
		}
	}
}

// TestKnownSpecEviction: the set holds specTextEntries texts; a text found
// since the eviction hand last passed outlives texts that were not (second
// chance), and goes in its turn once no longer found: within two turns of
// the hand.
func TestKnownSpecEviction(t *testing.T) {
	eng, err := New(Config{})
	if err != nil {
		t.Fatal(err)
	}
	text := func(i int) []byte { return fmt.Appendf(nil, `{"value":%d}`, i) }
	remember := func(i int) { eng.RememberSpec(text(i), map[string]any{"value": i}) }
	known := func(i int) bool { _, ok := eng.KnownSpec(text(i)); return ok }
	for i := range specTextEntries {
		remember(i)
	}
	if n := eng.KnownSpecs(); n != specTextEntries {
		t.Fatalf("KnownSpecs() = %d after %d texts", n, specTextEntries)
	}
	if !known(0) || !known(2) {
		t.Fatal("a remembered text is not found")
	}
	remember(specTextEntries) // evicts 1: 0 was found since, 1 was not
	remember(specTextEntries + 1)
	switch {
	case eng.KnownSpecs() != specTextEntries:
		t.Errorf("KnownSpecs() = %d, want the bound %d", eng.KnownSpecs(), specTextEntries)
	case !known(0) || !known(2):
		t.Error("a text found since the hand passed was evicted before ones that were not")
	case known(1) || known(3):
		t.Error("texts never found outlived the bound")
	case !known(specTextEntries) || !known(specTextEntries+1):
		t.Error("the new texts are not found")
	}
	for i := range 2 * specTextEntries {
		remember(2*specTextEntries + i) // no lookups: two turns of the hand
	}
	if known(0) || known(2) {
		t.Error("texts no longer found were kept past two turns of the hand")
	}
}
