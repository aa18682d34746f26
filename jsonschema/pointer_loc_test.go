// pointer_loc_test.go: error locations are JSON Pointers, with "~" and "/" in member names escaped.

package jsonschema

import (
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestLocationsEscaped: a member name holding "~" or "/" appears in
// keywordLocation and instanceLocation as RFC 6901 §3 escapes it ("~0",
// "~1"), so that each location is a JSON Pointer that resolves: with "~"
// left as it is, "/properties/a~b/type" is not one.
func TestLocationsEscaped(t *testing.T) {
	schema := map[string]any{
		"properties": map[string]any{
			"a~b": map[string]any{"type": "string"},
			"c/d": map[string]any{"type": "string"},
			"~1":  map[string]any{"type": "string"},
		},
		"dependentRequired": map[string]any{"x~y": []any{"z"}},
	}
	s, err := Compile(schema, nil)
	if err != nil {
		t.Fatal(err)
	}
	verr := s.Validate(map[string]any{"a~b": 1.0, "c/d": 2.0, "~1": 3.0, "x~y": true})
	if verr == nil {
		t.Fatal("want errors")
	}
	var got [][2]string
	for _, u := range verr.Units {
		got = append(got, [2]string{u.KeywordLocation, u.InstanceLocation})
	}
	slices.SortFunc(got, func(a, b [2]string) int { return strings.Compare(a[0], b[0]) })
	want := [][2]string{
		{"/dependentRequired/x~0y", ""},
		{"/properties/a~0b/type", "/a~0b"},
		{"/properties/c~1d/type", "/c~1d"},
		{"/properties/~01/type", "/~01"},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("locations (-want +got):\n%s", diff)
	}
	for _, loc := range got {
		if _, ok := lookupPointer(schema, loc[0]); !ok {
			t.Errorf("keywordLocation %q does not resolve in the schema", loc[0])
		}
	}
}
