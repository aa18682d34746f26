package history

import (
	"fmt"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestVerdicts: a result id already held is refused, and a new verdict for
// a (trace, assertion) replaces the old one in its window; the same holds
// after a restart (the index rebuilt from the log, before and after the
// checkpoint) and for a reader of the dir. Each case records its steps
// into a fresh dir and compares the summaries with those of the verdicts
// that should count, recorded once into another.
func TestVerdicts(t *testing.T) {
	r := func(trace, id string, st Status, seq uint64) Result {
		return Result{TraceID: trace, Assertion: "a", Type: "trace", Status: st, Score: map[Status]float64{Pass: 1}[st],
			Seq: seq, ResultID: fmt.Sprintf("%032s", id), Through: seq, Spans: uint32(len(id))} // a revision judged more spans
	}
	cases := []struct {
		name  string
		steps [][]Result // each step: a process that records these and is killed (no Close)
		want  []Result   // the verdicts that count
		dups  uint64     // refused in the last step
	}{
		{"a repeat is refused",
			[][]Result{{r("t1", "1", Pass, 1), r("t2", "2", HardFail, 2), r("t1", "1", Pass, 1)}},
			[]Result{r("t1", "1", Pass, 1), r("t2", "2", HardFail, 2)}, 1},
		{"a repeat after a restart is refused",
			[][]Result{{r("t1", "1", Pass, 1), r("t2", "2", HardFail, 2)}, {r("t1", "1", Pass, 1), r("t2", "2", HardFail, 2), r("t3", "3", Pass, 3)}},
			[]Result{r("t1", "1", Pass, 1), r("t2", "2", HardFail, 2), r("t3", "3", Pass, 3)}, 2},
		{"a new verdict replaces the old in the old one's window",
			[][]Result{{r("t1", "1", HardFail, 1), r("t2", "2", Pass, 2), r("t1", "11", Pass, 45)}},
			[]Result{r("t1", "11", Pass, 1), r("t2", "2", Pass, 2)}, 0},
		{"a replacement after a restart; the old verdict again is refused",
			[][]Result{{r("t1", "1", HardFail, 1)}, {r("t1", "11", Pass, 45), r("t1", "1", HardFail, 1)}},
			[]Result{r("t1", "11", Pass, 1)}, 1},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			var s *Store
			for _, step := range tc.steps {
				var err error
				if s, err = Open(dir, Options{NoAlertFile: true}); err != nil {
					t.Fatal(err)
				}
				for _, res := range step {
					if _, err := s.Add(res); err != nil {
						t.Fatal(err)
					}
				}
				s.log.close() // killed: no summaries written
				s.unlock()
			}
			if got := s.Duplicates(); got != tc.dups {
				t.Errorf("duplicates %d, want %d", got, tc.dups)
			}
			want := t.TempDir()
			ws, err := Open(want, Options{NoAlertFile: true})
			if err != nil {
				t.Fatal(err)
			}
			for _, res := range tc.want {
				ws.Add(res)
			}
			wantSeries, _ := ws.Series("a")
			ws.Close()
			for _, open := range []struct {
				name string
				f    func() (*Store, error)
			}{{"reopened", func() (*Store, error) { return Open(dir, Options{NoAlertFile: true}) }}, {"read-only", func() (*Store, error) { return OpenReadOnly(dir) }}} {
				got, err := open.f()
				if err != nil {
					t.Fatal(err)
				}
				gotSeries, _ := got.Series("a")
				got.Close()
				if d := cmp.Diff(wantSeries.Windows, gotSeries.Windows); d != "" {
					t.Errorf("%s: windows differ from the verdicts that count (-want +got):\n%s", open.name, d)
				}
			}
		})
	}
}

// TestVerdictsBound: the index holds the last Verdicts results; older ones
// are forgotten, oldest first.
func TestVerdictsBound(t *testing.T) {
	v := newVerdicts(3)
	for i := range 5 {
		rs := Result{TraceID: fmt.Sprint(i), Assertion: "a", ResultID: fmt.Sprintf("%032x", i)}
		v.put(verdict{key: v.keyOf(&rs), rid: v.ridOf(rs.ResultID)})
	}
	for i := range 5 {
		rs := Result{TraceID: fmt.Sprint(i), Assertion: "a", ResultID: fmt.Sprintf("%032x", i)}
		adm, _ := v.admit(&rs)
		if want := map[bool]admission{true: admitDuplicate, false: admitNew}[i >= 2]; adm != want {
			t.Errorf("result %d: admission %d, want %d", i, adm, want)
		}
	}
	if len(v.at) != 3 || len(v.ring) != 3 {
		t.Errorf("index holds %d keys in %d slots, want 3", len(v.at), len(v.ring))
	}
}

// BenchmarkVerdicts is what the verdict index adds to recording a result:
// one admission and one put of a new (trace, assertion), the index at its
// default bound once b.N passes it.
func BenchmarkVerdicts(b *testing.B) {
	v := newVerdicts(DefaultVerdicts)
	rs := make([]Result, 1<<16)
	for i := range rs {
		rs[i] = Result{TraceID: fmt.Sprintf("%032x", i), Assertion: "a", ResultID: fmt.Sprintf("%032x", i*7)}
	}
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		r := &rs[i%len(rs)]
		if adm, _ := v.admit(r); adm == admitNew || i >= len(rs) {
			v.put(verdict{key: v.keyOf(r), rid: v.ridOf(r.ResultID), through: uint64(i)})
		}
	}
}
