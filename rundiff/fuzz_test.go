// fuzz_test.go: the input reader on arbitrary bytes.

package rundiff

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"testing"
)

// FuzzScanResults: any input is read to its end or refused with an *InputError naming the line; no
// panic, and every result read has a known status and non-empty keys.
func FuzzScanResults(f *testing.F) {
	for _, name := range []string{"base.jsonl", "head.jsonl"} {
		if b, err := os.ReadFile(filepath.Join(dir, name)); err == nil {
			f.Add(b[:min(len(b), 2000)])
		}
	}
	f.Add([]byte(`{"format_version":1,"traces":[` + "\n" + `{"name":"t","trace_id":"t","case_key":"c","status":"pass","results":[{"assertion_id":"a","assertion_key":"k","type":"schema","status":"pass","score":1,"repeat":2}]}` + "\n" + `],"totals":{}}`))
	f.Add([]byte(`{"trace_id":"t","assertion":"a","status":"pass","score":1e400}`))
	f.Add([]byte(`{"trace_id":"t","assertion":"a","status":"pass","repeat":-1}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		err := scanResults("in", bytes.NewReader(data), func(r *result) error {
			if r.caseKey == "" || r.assertion == "" || !(r.comparable() || r.status == "skipped" || r.status == "error") {
				t.Fatalf("a result read with keys %q, %q and status %q", r.caseKey, r.assertion, r.status)
			}
			return nil
		})
		var ie *InputError
		if err != nil && !errors.As(err, &ie) {
			t.Fatalf("%T %v: want an *InputError", err, err)
		}
	})
}
