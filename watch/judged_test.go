package watch

import (
	"io"
	"testing"

	"attest-engine/ingest"
	"attest-engine/tape"
)

// partialVerdicts holds the verdicts of the first n assertions of one
// trace only: a trace's results, written in one call, cut short by a crash
// (a write ended early by SIGKILL, or a power loss) after the first n.
type partialVerdicts struct {
	c     *command
	trace string
	n     int
	at    uint64
}

func (p partialVerdicts) Record([]Result) error { return nil }
func (p partialVerdicts) Close() error          { return nil }
func (p partialVerdicts) Prior(traceID, key string) (string, uint64, int, bool) {
	for i, a := range p.c.suite.Assertions[:p.n] {
		if p.c.suite.Keys[i] == key && traceID == p.trace {
			return resultID(traceID, a.ID, p.c.suite.Hash, p.c.ev.version), p.at, 0, true
		}
	}
	return "", 0, 0, false
}

// TestJudgedNeedsEveryVerdict: a trace read again after a restart is not
// evaluated again only when the history holds the verdicts of all its
// assertions; with only the first ones recorded, it is evaluated (and the
// history refuses those it holds), so none of its results is lost.
func TestJudgedNeedsEveryVerdict(t *testing.T) {
	o, log, code := parse([]string{"--suite", "../testdata/watch/suite.json", "--in", "-", "--log-level", "error"}, io.Discard, testEnv(nil))
	if log == nil {
		t.Fatalf("parse: exit %d", code)
	}
	c, err := newCommand(o, testEnv(nil), log)
	if err != nil {
		t.Fatal(err)
	}
	doc, err := tape.Parse([]byte(`{"schema_version":1,"trace_id":"trc_1","output":{"message":"ok"}}`))
	if err != nil {
		t.Fatal(err)
	}
	c.dur = &durable{c: c}
	all := len(c.suite.Assertions)
	for _, n := range []int{0, 1, all - 1, all} {
		c.rec = partialVerdicts{c: c, trace: "trc_1", n: n, at: 7}
		tr := ingest.Trace{ID: "trc_1", Doc: doc, Through: 7}
		if got, want := c.dur.judged(tr), n == all; got != want {
			t.Errorf("%d of %d verdicts held: judged %v, want %v", n, all, got, want)
		}
	}
}
