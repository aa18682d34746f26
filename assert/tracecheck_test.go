// tracecheck_test.go: golden cases and the fuzz target of the trace layer.

package assert

import "testing"

// TestTraceGolden runs testdata/tracecheck/cases.json; see runGolden.
func TestTraceGolden(t *testing.T) { runGolden(t, "tracecheck", "trace") }

// FuzzTrace decodes any spec and evaluates it: never a panic or a hang.
func FuzzTrace(f *testing.F) { fuzzLayer(f, "tracecheck", "trace") }
