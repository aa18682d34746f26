package ingest

import (
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

func sp(trace, id, parent string, size int) Span {
	return Span{TraceID: trace, SpanID: id, ParentID: parent, Size: size}
}

// closed summarizes groups as "trace:reason:spans[:incomplete]".
func closed(gs []Group) []string {
	var out []string
	for _, g := range gs {
		s := g.TraceID + ":" + g.Reason + ":" + string(rune('0'+len(g.Spans)))
		if g.Incomplete {
			s += ":incomplete"
		}
		out = append(out, s)
	}
	return out
}

func TestAssembler(t *testing.T) {
	sec := int64(time.Second)
	type step struct {
		add  []Span
		tick bool
		at   int64
		want []string
	}
	tests := []struct {
		name  string
		lim   Limits
		steps []step
		flush []string
	}{
		{"root end closes after the grace period, not before",
			Limits{Grace: 2 * time.Second},
			[]step{
				{add: []Span{sp("a", "2", "1", 1), sp("a", "1", "", 1)}, at: 10 * sec},
				{tick: true, at: 11 * sec},
				{add: []Span{sp("a", "3", "1", 1)}, at: 11 * sec}, // a late child within grace joins
				{tick: true, at: 12 * sec, want: []string{"a:root_ended:3"}},
			}, nil},
		{"a trace without root closes on idle, incomplete",
			Limits{Idle: 5 * time.Second},
			[]step{
				{add: []Span{sp("a", "2", "1", 1)}, at: 0},
				{add: []Span{sp("b", "1", "", 1)}, at: 3 * sec},
				{tick: true, at: 5 * sec, want: []string{"a:idle:1:incomplete"}},
			}, []string{"b:end_of_input:1"}},
		{"the open-trace bound evicts the least recently touched",
			Limits{OpenTraces: 2},
			[]step{
				{add: []Span{sp("a", "1", "", 1), sp("b", "1", "", 1), sp("a", "2", "1", 1)}},
				{add: []Span{sp("c", "1", "", 1)}, want: []string{"b:evicted:1:incomplete"}},
			}, []string{"a:end_of_input:2", "c:end_of_input:1"}},
		{"the byte bound evicts",
			Limits{Bytes: heldTrace + heldSpanID + 100}, // one trace of one 60-byte span fits, two do not
			[]step{
				{add: []Span{sp("a", "1", "", 60)}},
				{add: []Span{sp("b", "1", "", 60)}, want: []string{"a:evicted:1:incomplete"}},
			}, []string{"b:end_of_input:1"}},
		{"spans beyond the per-trace bound are dropped and the trace is incomplete",
			Limits{SpansPerTrace: 2},
			[]step{
				{add: []Span{sp("a", "1", "", 1), sp("a", "2", "1", 1), sp("a", "3", "1", 1)}},
			}, []string{"a:end_of_input:2:incomplete"}},
		{"a span delivered twice is held once",
			Limits{},
			[]step{
				{add: []Span{sp("a", "1", "", 1), sp("a", "2", "1", 1), sp("a", "2", "1", 1), sp("a", "1", "", 1)}},
			}, []string{"a:end_of_input:2"}},
		{"a span of a closed trace reopens it while its spans are kept (TestLateSpans)",
			Limits{Grace: time.Second},
			[]step{
				{add: []Span{sp("a", "1", "", 1)}},
				{tick: true, at: sec, want: []string{"a:root_ended:1"}},
				{add: []Span{sp("a", "2", "1", 1)}, at: sec},
			}, []string{"a:end_of_input:2"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			a := NewAssembler(tt.lim)
			for i, s := range tt.steps {
				var got []Group
				if s.tick {
					got = a.Tick(s.at)
				} else {
					got = a.Add(s.add, s.at)
				}
				if diff := cmp.Diff(s.want, closed(got)); diff != "" {
					t.Errorf("step %d (-want +got):\n%s", i, diff)
				}
			}
			if diff := cmp.Diff(tt.flush, closed(a.Flush())); diff != "" {
				t.Errorf("flush (-want +got):\n%s", diff)
			}
			if a.Open() != 0 || a.bytes != 0 {
				t.Errorf("after flush: %d open, %d bytes held", a.Open(), a.bytes)
			}
		})
	}
}

func TestDecodeID(t *testing.T) {
	tests := []struct{ in, want, err string }{
		{"5B8EFFF798038103D269B633813FC60C", "5b8efff798038103d269b633813fc60c", ""},
		{"W47/95gDgQPSabYzgT/GDA==", "5b8efff798038103d269b633813fc60c", ""},
		{"W47_95gDgQPSabYzgT_GDA", "5b8efff798038103d269b633813fc60c", ""},
		{"00000000000000000000000000000000", "", "traceId is all zeros (an invalid id)"},
		{"5b8e", "", `traceId "5b8e" is neither 32 hex digits nor base64 of 16 bytes`},
	}
	for _, tt := range tests {
		got, err := decodeID(tt.in, 16, "traceId")
		msg := ""
		if err != nil {
			msg = err.Error()
		}
		if got != tt.want || msg != tt.err {
			t.Errorf("decodeID(%q) = %q, %q; want %q, %q", tt.in, got, msg, tt.want, tt.err)
		}
	}
}
