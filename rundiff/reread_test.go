// reread_test.go: naming the results with no pair by reading the run again from the marks before them.

package rundiff

import (
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// TestUnpairedFromMarks: with a mark every few lines, the results with no pair are named exactly as a
// read of the whole run names them, wherever they fall: first, last, at a mark, several between two
// marks, in JSON reports (several results a line) and in result lines; and a run changed between the
// reads is an error, not other results named.
func TestUnpairedFromMarks(t *testing.T) {
	defer func(m int64) { markEvery = m }(markEvery)
	seed := simSeed(t)
	tmp := t.TempDir()
	for _, every := range []int64{1, 300, 5000, 1 << 20} {
		markEvery = every
		for _, report := range []bool{false, true} {
			rng := rand.New(rand.NewPCG(seed, uint64(every)))
			var base, head strings.Builder
			if report {
				base.WriteString(`{"format_version":1,"traces":[` + "\n")
				head.WriteString(`{"format_version":1,"traces":[` + "\n")
			}
			var want []Unpaired
			const cases = 400
			for c := range cases {
				// Every case in both but those drawn (and the first and last) only in base; an unpaired
				// result's assertion is "a" or "b".
				only := c == 0 || c == cases-1 || rng.IntN(8) == 0
				for _, w := range []*strings.Builder{&base, &head} {
					if w == &head && only {
						continue
					}
					if report {
						sep := ","
						if c == cases-1 {
							sep = ""
						}
						fmt.Fprintf(w, `{"name":"case %d","trace_id":"t%d","results":[{"assertion_id":"a","status":"pass"},{"assertion_id":"b","label":"B \"%d\"","status":"hard_fail"}]}%s`+"\n", c, c, c, sep)
					} else {
						fmt.Fprintf(w, `{"trace_id":"t%d","assertion":"a","status":"pass"}`+"\n"+`{"trace_id":"t%d","assertion":"b","status":"hard_fail"}`+"\n", c, c)
					}
				}
				if only {
					if report {
						want = append(want, Unpaired{fmt.Sprintf("trace:case %d", c), "assertion_id:a/", "a"}, Unpaired{fmt.Sprintf("trace:case %d", c), "assertion_id:b/", fmt.Sprintf(`B "%d"`, c)})
					} else {
						want = append(want, Unpaired{fmt.Sprintf("trace:t%d", c), "assertion:a", "a"}, Unpaired{fmt.Sprintf("trace:t%d", c), "assertion:b", "b"})
					}
				}
			}
			if report {
				base.WriteString(`],"totals":{}}` + "\n")
				head.WriteString(`],"totals":{}}` + "\n")
			}
			bp, hp := filepath.Join(tmp, "base"), filepath.Join(tmp, "head")
			for p, s := range map[string]string{bp: base.String(), hp: head.String()} {
				if err := os.WriteFile(p, []byte(s), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			r, err := Compare(bp, hp, Options{Alpha: 0.05, Detectable: 0.1, Seed: 1})
			if err != nil {
				t.Fatalf("marks every %d bytes, report %v: %v", every, report, err)
			}
			if d := cmp.Diff(want, r.OnlyBase); d != "" {
				t.Errorf("marks every %d bytes, report %v: results with no pair (-want +got):\n%s", every, report, d)
			}

			// The same run read once, then changed in place before it is read again.
			b, err := load(bp)
			if err != nil {
				t.Fatal(err)
			}
			changed := []byte(strings.Replace(base.String(), "hard_fail", "pass", -1))
			changed = append(changed, ' ')
			if err := os.WriteFile(bp, changed, 0o644); err != nil {
				t.Fatal(err)
			}
			os.Chtimes(bp, time.Time{}, b.src.modTime.Add(time.Second))
			if _, err := unpaired(b.src, []int32{0}); err == nil || !strings.Contains(err.Error(), "changed while diff read it") {
				t.Errorf("marks every %d bytes, report %v: a run changed between its reads: %v", every, report, err)
			}
		}
	}
}
