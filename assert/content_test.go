// content_test.go: golden cases and the fuzz target of the content layer.

package assert

import "testing"

// TestContentGolden runs testdata/content/cases.json; see runGolden.
func TestContentGolden(t *testing.T) { runGolden(t, "content", "content") }

// FuzzContent decodes any spec and evaluates it: never a panic or a hang.
func FuzzContent(f *testing.F) { fuzzLayer(f, "content", "content") }
