// spectext_test.go: KnownSpec finds a remembered spec by its whole text only.

package assert

import (
	"encoding/json"
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
