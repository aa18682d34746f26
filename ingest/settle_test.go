package ingest

import (
	"fmt"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// TestLateSpans: the rule of settle.go's decide, case by case, and that
// every span's input item is settled exactly once, only after the verdict
// that judged it is recorded (Hold.Done) and its spans are no longer kept.
func TestLateSpans(t *testing.T) {
	sec := int64(time.Second)
	at := func(seq uint64, id, parent string) Span {
		return Span{TraceID: "t", SpanID: id, ParentID: parent, Size: 1, Seq: seq}
	}
	logAt := func(seq uint64, span, key string) Span { // a log carrier joined to span
		return Span{TraceID: "t", SpanID: span, LogKey: key, Size: 1, Seq: seq}
	}
	type step struct {
		add  []Span
		tick bool
		at   int64
	}
	tests := []struct {
		name  string
		known *Prior // the verdict recorded before a restart
		steps []step
		want  []string // the groups given to evaluate, "spans[/prior through:spans][/too late n]"
	}{
		{"a child after the grace reopens the trace: a verdict over all spans, superseding the first", nil,
			[]step{{add: []Span{at(1, "r", "")}}, {tick: true, at: 2 * sec}, {add: []Span{at(2, "c", "r")}, at: 3 * sec}},
			[]string{"1", "2/prior 1:1"}},
		{"a child after the spans were let go (--idle) is too late", nil,
			[]step{{add: []Span{at(1, "r", "")}}, {tick: true, at: 2 * sec}, {tick: true, at: 20 * sec}, {add: []Span{at(2, "c", "r")}, at: 20 * sec}},
			[]string{"1", "1/prior 1:1/too late 1"}},
		{"a span sent again after the trace closed is a duplicate", nil,
			[]step{{add: []Span{at(1, "r", "")}}, {tick: true, at: 2 * sec}, {add: []Span{at(2, "r", "")}, at: 3 * sec}},
			[]string{"1"}},
		{"a trace sent again whole after its spans were let go: duplicates, nothing evaluated", nil,
			[]step{{add: []Span{at(1, "r", ""), at(1, "c", "r")}}, {tick: true, at: 2 * sec}, {tick: true, at: 20 * sec},
				{add: []Span{at(2, "r", ""), at(2, "c", "r")}, at: 20 * sec}, {tick: true, at: 40 * sec}},
			[]string{"2"}},
		{"sent again after they were let go, with a new span: that one alone is too late", nil,
			[]step{{add: []Span{at(1, "r", ""), at(1, "c", "r")}}, {tick: true, at: 2 * sec}, {tick: true, at: 20 * sec},
				{add: []Span{at(2, "r", ""), at(2, "c", "r"), at(2, "d", "r")}, at: 20 * sec}, {tick: true, at: 40 * sec},
				{add: []Span{at(3, "d", "r"), at(3, "c", "r")}, at: 40 * sec}, {tick: true, at: 60 * sec}},
			[]string{"2", "1/prior 1:2/too late 1"}},
		{"new log records of a judged span after the spans were let go: too late, not duplicates", nil,
			[]step{{add: []Span{at(1, "r", "")}}, {tick: true, at: 2 * sec}, {tick: true, at: 20 * sec}, {add: []Span{logAt(2, "r", "log:r:a")}, at: 20 * sec}},
			[]string{"1", "1/prior 1:1/too late 1"}},
		{"log records sent again after the spans were let go: duplicates", nil,
			[]step{{add: []Span{at(1, "r", ""), logAt(1, "r", "log:r:a")}}, {tick: true, at: 2 * sec}, {tick: true, at: 20 * sec},
				{add: []Span{logAt(2, "r", "log:r:a")}, at: 20 * sec}, {tick: true, at: 40 * sec}},
			[]string{"2"}},
		{"after a restart, all the spans a verdict judged: nothing to evaluate", &Prior{Through: 2, Spans: 2},
			[]step{{add: []Span{at(1, "r", ""), at(2, "c", "r")}}, {tick: true, at: 2 * sec}},
			nil},
		{"after a restart, all of them and a later one: a new verdict", &Prior{Through: 2, Spans: 2},
			[]step{{add: []Span{at(1, "r", ""), at(2, "c", "r"), at(3, "d", "r")}}, {tick: true, at: 2 * sec}},
			[]string{"3/prior 2:2"}},
		{"after a restart, a part of a trace judged whole: dropped", &Prior{Through: 2, Spans: 2},
			[]step{{add: []Span{at(2, "c", "r")}}, {tick: true, at: 80 * sec}},
			nil},
		{"after a restart, a part and a later span: too late", &Prior{Through: 2, Spans: 2},
			[]step{{add: []Span{at(2, "c", "r"), at(3, "d", "r")}}, {tick: true, at: 80 * sec}},
			[]string{"2/prior 2:2/too late 1"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			a := NewAssembler(Limits{Grace: time.Second, Idle: 10 * time.Second})
			settled := map[uint64]int{}
			a.Settle = func(sc []SeqCount) {
				for _, s := range sc {
					settled[s.Seq] += s.N
				}
			}
			if tt.known != nil {
				a.Known = func(string) (Prior, bool) { return *tt.known, true }
			}
			var got []string
			var holds []*Hold
			take := func(gs []Group) {
				for _, g := range gs {
					s := fmt.Sprint(len(g.Spans))
					if g.Prior != nil {
						s += fmt.Sprintf("/prior %d:%d", g.Prior.Through, g.Prior.Spans)
					}
					if g.TooLate {
						s += fmt.Sprintf("/too late %d", g.Late)
					}
					got = append(got, s)
					holds = append(holds, g.Hold)
				}
			}
			sent := map[uint64]int{}
			for _, s := range tt.steps {
				if s.tick {
					take(a.Tick(s.at))
					continue
				}
				for _, sp := range s.add {
					sent[sp.Seq]++
				}
				take(a.Add(s.add, s.at))
			}
			take(a.Flush())
			if d := cmp.Diff(tt.want, got); d != "" {
				t.Errorf("groups (-want +got):\n%s", d)
			}
			for _, h := range holds {
				if h == nil {
					t.Fatal("a group without a hold")
				}
			}
			// Nothing judged is settled before its verdict is recorded.
			for seq, n := range settled {
				if n > sent[seq] {
					t.Errorf("item %d: %d spans settled of %d sent", seq, n, sent[seq])
				}
			}
			for _, h := range holds {
				h.Done()
			}
			if d := cmp.Diff(sent, settled); d != "" {
				t.Errorf("settled spans by item, once every verdict is recorded (-sent +settled):\n%s", d)
			}
		})
	}
}

// TestRecentBounded: the span ids remembered with closed traces' verdicts
// stay within maxIDs, the oldest traces' going first, and the bookkeeping
// within the traces remembered, however many traces close and however
// often one is judged again.
func TestRecentBounded(t *testing.T) {
	r := newRecent(1000)
	r.maxIDs = 5000
	spans := func(k, n int) []Span {
		var out []Span
		for j := range n {
			out = append(out, Span{SpanID: fmt.Sprintf("%016x", k*16+j)})
		}
		return out
	}
	for k := range 200_000 {
		id := fmt.Sprint(k)
		r.add(id, Prior{})
		r.judge(id, spans(k, 1+k%8), false)
		if k%3 == 0 {
			r.judge(id, spans(k, 2), true) // judged again: the same ids
		}
		if r.held > r.maxIDs {
			t.Fatalf("after %d traces: %d ids held, more than %d", k+1, r.held, r.maxIDs)
		}
	}
	if n := len(r.order) - r.head; n > 2*len(r.ids)+1024 {
		t.Errorf("%d refs in order for %d traces holding ids", n, len(r.ids))
	}
	if len(r.ids) > 1000 || len(r.set) > 1000 {
		t.Errorf("%d traces with ids, %d verdicts; want at most the 1000 remembered", len(r.ids), len(r.set))
	}
	last := fmt.Sprint(199_999)
	if !r.judged(last, fmt.Sprintf("%016x", 199_999*16)) || r.judged(last, fmt.Sprintf("%016x", 199_999*16+15)) {
		t.Error("the latest trace's judged spans are not told from others")
	}
}
