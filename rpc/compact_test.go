// compact_test.go: the compact layout's method sniffing agrees with the general one.

package rpc

import (
	"testing"
)

// compactLines are request-line beginnings of every shape: the compact
// layout SDKs write, and near misses that must be left to sniffMethod.
var compactLines = []string{
	`{"jsonrpc":"2.0","id":7,"method":"evaluate_batch","params":{}}`,
	`{"jsonrpc":"2.0","id":-7,"method":"validate_trace_tree","params":{}}`,
	`{"jsonrpc":"2.0","id":"a-1","method":"evaluate_batch"}`,
	`{"jsonrpc":"2.0","id":"a\"b","method":"evaluate_batch"}`,
	`{"jsonrpc":"2.0","id":1.5,"method":"evaluate_batch"}`,
	`{"jsonrpc":"2.0","id":,"method":"evaluate_batch"}`,
	`{"jsonrpc":"2.0","id":-,"method":"evaluate_batch"}`,
	`{"jsonrpc":"2.0","id":7,"method":"evaluate\u005fbatch"}`,
	`{"jsonrpc":"2.0","id":7, "method":"evaluate_batch"}`,
	`{"jsonrpc":"2.0","id":7,"method":"evaluate_batch`,
	`{"jsonrpc":"2.0","id":"7`,
	`{"jsonrpc":"2.0","id":`,
	`{"id":7,"jsonrpc":"2.0","method":"evaluate_batch"}`,
}

// TestCompactMethod: where compactMethod finds a method, sniffMethod finds
// the same one; SDK lines take the compact path.
func TestCompactMethod(t *testing.T) {
	for _, l := range compactLines {
		checkCompact(t, []byte(l))
	}
	for _, l := range sdkWorkloadLines(t, 4) {
		if m, ok := compactMethod(l); !ok || string(m) != "evaluate_batch" {
			t.Errorf("SDK line %.80s: compact method %q, %v; want evaluate_batch", l, m, ok)
		}
	}
}

func checkCompact(t *testing.T, line []byte) {
	t.Helper()
	m, ok := compactMethod(line)
	if !ok {
		return
	}
	want, wantOK := sniffMethod(line)
	if !wantOK || string(m) != string(want) {
		t.Errorf("%q: compact method %q; sniffMethod %q, %v", line, m, want, wantOK)
	}
}

// FuzzCompactMethod: on any line, compactMethod finds nothing or what
// sniffMethod finds.
func FuzzCompactMethod(f *testing.F) {
	for _, l := range compactLines {
		f.Add([]byte(l))
	}
	f.Fuzz(func(t *testing.T, line []byte) { checkCompact(t, line) })
}
