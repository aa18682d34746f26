// text.go: the readable report: per trace, each result's status, score and explanation; then totals.

package report

import (
	"fmt"
	"io"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"attest-engine/assert"
)

// textReport writes, per trace, a header line and one entry per result:
//
//	trace trc_abc123: hard_fail (2 results, 14ms)
//	  pass       assert_001 (schema)  score 1  2ms
//	             Tool result for 'lookup_order' matches schema.
//	  hard_fail  assert_002 (constraint)  score 0  1ms
//	             metadata.cost_usd = 0.02, constraint lte 0.01 violated.
//
// then a totals line and PASS, FAIL or INCOMPLETE. Text from traces and assertions is
// shown with control and bidirectional formatting characters escaped
// (Clean), so a report cannot drive the terminal that displays it or
// reorder the engine's own text.
type textReport struct {
	w   io.Writer
	b   strings.Builder
	any bool
}

const textIndent = "             " // under the assertion id: 2 + len("hard_fail") + 2

func (t *textReport) Begin() error { return nil }

func (t *textReport) Trace(tr *Trace) error {
	b := &t.b
	b.Reset()
	if t.any {
		b.WriteByte('\n')
	}
	t.any = true
	if tr.Err != nil {
		fmt.Fprintf(b, "trace %s: error (%s)\n", Clean(tr.Name), millis(tr.DurationMS))
		e := tr.Err
		fmt.Fprintf(b, "  %-9s  ", "error")
		if e.AssertionID != "" {
			b.WriteString(Clean(e.AssertionID))
			if e.Type != "" {
				fmt.Fprintf(b, " (%s)", Clean(e.Type))
			}
			b.WriteString("  ")
		}
		b.WriteString(e.ErrorType())
		b.WriteByte('\n')
		writeIndented(b, e.Message)
		if e.Detail != "" {
			writeIndented(b, "fix: "+e.Detail)
		}
	} else {
		fmt.Fprintf(b, "trace %s: %s (%d %s, %s)\n", Clean(tr.Name), tr.Status(), len(tr.Results), plural(len(tr.Results), "result"), millis(tr.DurationMS))
		for i := range tr.Results {
			writeTextResult(b, &tr.Results[i])
		}
	}
	_, err := io.WriteString(t.w, b.String())
	return err
}

func writeTextResult(b *strings.Builder, rec *Recorded) {
	r := &rec.Result
	if e := r.Failure; e != nil {
		fmt.Fprintf(b, "  %-9s  %s", "error", Clean(r.AssertionID))
		if rec.Type != "" {
			fmt.Fprintf(b, " (%s)", Clean(rec.Type))
		}
		fmt.Fprintf(b, "  %s\n", assert.ErrorType(e.Code))
		writeIndented(b, e.Message)
		if e.Detail != "" {
			writeIndented(b, "fix: "+e.Detail)
		}
		return
	}
	label := string(r.Status)
	if r.Skipped {
		label = "skipped"
	}
	fmt.Fprintf(b, "  %-9s  %s", label, Clean(r.AssertionID))
	switch {
	case rec.Plugin != "":
		fmt.Fprintf(b, " (plugin %s)", Clean(rec.Plugin))
	case rec.Type != "":
		fmt.Fprintf(b, " (%s)", Clean(rec.Type))
	}
	if rec.Suite != "" {
		fmt.Fprintf(b, " [suite %s]", Clean(rec.Suite))
	}
	fmt.Fprintf(b, "  score %s", strconv.FormatFloat(r.Score, 'f', -1, 64))
	if r.Cost != 0 {
		fmt.Fprintf(b, "  cost %s", dollars(r.Cost))
	}
	fmt.Fprintf(b, "  %s\n", millis(r.DurationMS))
	if r.Explanation != "" {
		writeIndented(b, r.Explanation)
	}
}

func (t *textReport) End(tot *Totals) error {
	b := &t.b
	b.Reset()
	if t.any {
		b.WriteByte('\n')
	}
	fmt.Fprintf(b, "totals: %d %s (%d failed), %d %s: %d pass, %d soft_fail, %d hard_fail, %d skipped; %d %s; cost %s; time %ss\n",
		tot.Traces, plural(tot.Traces, "trace"), tot.FailedTraces, tot.Results, plural(tot.Results, "result"),
		tot.Pass, tot.SoftFail, tot.HardFail, tot.Skipped, tot.Errors, plural(tot.Errors, "error"),
		dollars(tot.Cost), seconds(tot.DurationMS))
	for _, s := range tot.Scenarios {
		fmt.Fprintf(b, "scenario %s: %d of %d %s passed; Wilson 95%% [%.3f, %.3f];", Clean(s.ScenarioID), s.Passes, s.N, plural(s.N, "run"), s.WilsonLo, s.WilsonHi)
		for i, pk := range scenarioPassK(&s.Summary) {
			if i == 8 {
				b.WriteString(" …")
			}
			fmt.Fprintf(b, " pass^%d %.3f", pk.K, pk.P)
		}
		b.WriteByte('\n')
	}
	switch {
	case tot.Incomplete:
		b.WriteString("INCOMPLETE: the run stopped on bad input or an interrupt (see stderr)\n")
	case tot.Passed():
		b.WriteString("PASS\n")
	default:
		b.WriteString("FAIL\n")
	}
	_, err := io.WriteString(t.w, b.String())
	return err
}

// writeIndented writes text under an entry, one indented line per line of it.
func writeIndented(b *strings.Builder, text string) {
	for line := range strings.SplitSeq(strings.TrimRight(text, "\n"), "\n") {
		b.WriteString(textIndent)
		b.WriteString(Clean(strings.TrimSuffix(line, "\r")))
		b.WriteByte('\n')
	}
}

func millis(ms int64) string {
	if ms < 1000 {
		return strconv.FormatInt(ms, 10) + "ms"
	}
	return seconds(ms) + "s"
}

func plural(n int, word string) string {
	if n == 1 {
		return word
	}
	return word + "s"
}

// Clean escapes control characters (C0, DEL, C1), the bidirectional
// formatting characters (IsBidiControl) and invalid UTF-8, which in a
// terminal could move the cursor, recolour or retitle it, or reorder the
// text shown after them: an unterminated U+202E in a trace name would show
// the rest of the line, the engine's own words included, right to left.
// Each is shown as \uXXXX (\xXX for a byte of invalid UTF-8).
func Clean(s string) string {
	ok := true
	for _, r := range s {
		if r == utf8.RuneError || (r != '\t' && unicode.IsControl(r)) || IsBidiControl(r) {
			ok = false
			break
		}
	}
	if ok {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && size == 1:
			fmt.Fprintf(&b, `\x%02x`, s[i])
		case r != '\t' && unicode.IsControl(r), IsBidiControl(r):
			fmt.Fprintf(&b, `\u%04x`, r)
		default:
			b.WriteString(s[i : i+size])
		}
		i += size
	}
	return b.String()
}
