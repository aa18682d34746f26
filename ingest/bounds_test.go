// bounds_test.go: docs/security.md's bounds of watch input: OTLP attribute nesting, and the assembler's defaults.

package ingest

import (
	"strconv"
	"strings"
	"testing"
)

// otlpNested is one OTLP span line whose attribute value is levels deep: a
// string inside levels-1 arrayValues.
func otlpNested(levels int) string {
	v := `{"stringValue":"x"}`
	for range levels - 1 {
		v = `{"arrayValue":{"values":[` + v + `]}}`
	}
	return `{"resourceSpans":[{"resource":{"attributes":[]},"scopeSpans":[{"scope":{"name":"s"},"spans":[{"traceId":"5b8efff798038103d269b633813fc60c","spanId":"eee19b7ec3c1b175","name":"root","kind":1,` +
		`"startTimeUnixNano":"1763950000000000000","endTimeUnixNano":"1763950001000000000","attributes":[{"key":"deep","value":` + v + `}]}]}]}]}` + "\n"
}

// TestAttributeDepthBound: docs/security.md "OTLP attribute values
// nested ≤ 32 levels": a value at the bound is read, one past it refused
// with an error naming the nesting.
func TestAttributeDepthBound(t *testing.T) {
	for _, c := range []struct {
		levels  int
		wantErr bool
	}{{1, false}, {maxValueDepth, false}, {maxValueDepth + 1, true}, {1000, true}} {
		g := run(t, []byte(otlpNested(c.levels)), Limits{})
		errs := strings.Join(g.Warnings, "\n")
		for _, tr := range g.Traces {
			errs += "\n" + tr.Error
		}
		if got := strings.Contains(errs, "nested too deeply"); got != c.wantErr || (!c.wantErr && len(g.Traces) != 1) {
			t.Errorf("%d levels: %d traces, errors %q; want refused: %v", c.levels, len(g.Traces), errs, c.wantErr)
		}
	}
}

// TestLimitsDefaults: docs/security.md "open traces ≤ 10,000, spans per
// trace ≤ 10,000, spans held ≤ 32 MiB" are what zero Limits become (the
// assembler's own tests set small limits).
func TestLimitsDefaults(t *testing.T) {
	if l := (Limits{}).withDefaults(); l.OpenTraces != 10000 || l.SpansPerTrace != 10000 || l.Bytes != 32<<20 {
		t.Errorf("defaults: %d open traces, %d spans per trace, %d bytes; docs say 10,000, 10,000 and 32 MiB", l.OpenTraces, l.SpansPerTrace, l.Bytes)
	}
}

// TestRootsBounded: a trace evicted while another root is ahead of it in
// the deadline queue leaves a stale entry there; with time that does not
// advance (a replay whose spans carry no timestamps) no deadline ever
// passes, so the queue must be compacted, not grow with the input.
func TestRootsBounded(t *testing.T) {
	a := NewAssembler(Limits{OpenTraces: 2})
	a.Add([]Span{sp("keep", "1", "", 1)}, 0)
	for i := range 10000 {
		id := strconv.Itoa(i)
		// "keep" is touched again, so the new trace is the one evicted
		// next, while "keep" stays first in the deadline queue.
		a.Add([]Span{sp(id, "1", "", 1), sp("keep", "k"+id, "1", 1)}, 0)
	}
	if n := len(a.roots); n > 4*a.lim.OpenTraces+16 {
		t.Errorf("%d entries in the root deadline queue for %d open traces", n, a.Open())
	}
}
