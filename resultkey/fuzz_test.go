// fuzz_test.go: keys of any JSON, and their invariance under re-encoding.

package resultkey

import (
	"encoding/json"
	"strings"
	"testing"
)

// FuzzKeys: any JSON text has keys or an error (never a panic), and the
// same value written by another encoder (members reordered, numbers
// re-spelled) has the same keys.
func FuzzKeys(f *testing.F) {
	for _, c := range goldenCases {
		f.Add(c.Spec + c.Input)
	}
	f.Add(`{"b":1e2,"a":[0.1,-0,"\u00e9"]}`)
	f.Fuzz(func(t *testing.T, text string) {
		d := json.NewDecoder(strings.NewReader(text))
		d.UseNumber()
		var v any
		if d.Decode(&v) != nil {
			return
		}
		a1, err1 := Assertion("t", v, "", "")
		c1, err2 := Case("a", v, true)
		if (err1 == nil) != (err2 == nil) {
			t.Fatalf("spec and input disagree on %q: %v / %v", text, err1, err2)
		}
		if err1 != nil {
			return
		}
		again, err := json.Marshal(v)
		if err != nil {
			return
		}
		var w any
		if json.Unmarshal(again, &w) != nil { // float64 numbers now
			t.Fatalf("re-encoded %q does not decode", again)
		}
		a2, err := Assertion("t", w, "", "")
		if err != nil || a2 != a1 {
			t.Fatalf("assertion key of %q: %s, re-encoded %s (%v)", text, a1, a2, err)
		}
		if c2, _ := Case("a", w, true); c2 != c1 {
			t.Fatalf("case key of %q changed on re-encoding", text)
		}
	})
}
