// schema_test.go: golden cases and the fuzz target of the schema layer.

package assert

import "testing"

// TestSchemaGolden runs testdata/schema/cases.json; see runGolden.
func TestSchemaGolden(t *testing.T) { runGolden(t, "schema", "schema") }

// FuzzSchema decodes any spec and evaluates it: never a panic or a hang.
func FuzzSchema(f *testing.F) { fuzzLayer(f, "schema", "schema") }
