// fuzz_test.go: the input reader on arbitrary bytes.

package rundiff

import (
	"bytes"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
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
			if len(r.caseKey) == 0 || len(r.assertion) == 0 || !(r.comparable() || r.status == statusSkipped || r.status == statusError) {
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

// FuzzCompare: any two inputs are compared or refused with an *InputError; no panic, every figure
// encodes as JSON (no NaN or infinity), each run's results are all accounted for (paired, not compared
// or unpaired), and the unpaired ones are all named.
func FuzzCompare(f *testing.F) {
	l := func(trace, status, score, id, sup string) string {
		return `{"trace_id":"` + trace + `","assertion":"a","status":"` + status + `","score":` + score + `,"result_id":"` + id + `","supersedes":"` + sup + `"}` + "\n"
	}
	f.Add([]byte(l("t", "pass", "1", "x", "")+l("t", "hard_fail", "0", "y", "x")+l("u", "pass", "0.5", "z", "")),
		[]byte(l("t", "pass", "1", "x", "")+l("u", "soft_fail", "0.25", "z", "")+l("u", "pass", "1", "z", "")))
	f.Add([]byte(l("t", "pass", "0.3", "", "")+l("t", "pass", "0.7", "", "")), []byte(l("t", "error", "0", "", "")+l("v", "skipped", "1", "", "")))
	f.Fuzz(func(t *testing.T, base, head []byte) {
		tmp := t.TempDir()
		bp, hp := filepath.Join(tmp, "b"), filepath.Join(tmp, "h")
		if err := os.WriteFile(bp, base, 0o644); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(hp, head, 0o644); err != nil {
			t.Fatal(err)
		}
		r, err := Compare(bp, hp, Options{Alpha: 0.05, Detectable: 0.1, Seed: 1})
		if err != nil {
			var ie *InputError
			if !errors.As(err, &ie) && !strings.Contains(err.Error(), "assertion keys") {
				t.Fatalf("%T %v: want an *InputError", err, err)
			}
			return
		}
		if err := writeJSON(io.Discard, r); err != nil {
			t.Fatalf("the comparison does not encode: %v", err)
		}
		count := func(path string) (n int) {
			scanResults(path, bytes.NewReader(map[string][]byte{bp: base, hp: head}[path]), func(*result) error { n++; return nil })
			return n
		}
		var inBase, inHead int
		for _, k := range r.Keys {
			inBase += k.Pairs + k.NotComparable + k.OnlyBase
			inHead += k.Pairs + k.NotComparable + k.OnlyHead
		}
		if inBase+r.ReplacedBase != count(bp) || inHead+r.ReplacedHead != count(hp) {
			t.Fatalf("results accounted for: base %d+%d of %d, head %d+%d of %d", inBase, r.ReplacedBase, count(bp), inHead, r.ReplacedHead, count(hp))
		}
		if len(r.OnlyBase) != inBase-sumPairs(r) || len(r.OnlyHead) != inHead-sumPairs(r) {
			t.Fatalf("unpaired named: %d and %d, counted %d and %d", len(r.OnlyBase), len(r.OnlyHead), inBase-sumPairs(r), inHead-sumPairs(r))
		}
	})
}

func sumPairs(r *Report) (n int) {
	for _, k := range r.Keys {
		n += k.Pairs + k.NotComparable
	}
	return n
}
