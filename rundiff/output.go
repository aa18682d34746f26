// output.go: the comparison as text, JSON, JUnit XML and Markdown.

package rundiff

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"strings"

	"attest-engine/clip"
	"attest-engine/report"
	"attest-engine/xmlout"
)

// Unpaired is a result with no counterpart in the other run.
type Unpaired struct {
	Case         string `json:"case_key"`
	AssertionKey string `json:"assertion_key"`
	Label        string `json:"label"`
}

// Report is the whole comparison.
type Report struct {
	Base         string      `json:"base"`
	Head         string      `json:"head"`
	Alpha        float64     `json:"alpha"`
	Detectable   float64     `json:"detectable"`
	Seed         uint64      `json:"seed"`
	Regressed    int         `json:"regressed"`
	Improved     int         `json:"improved"`
	Unchanged    int         `json:"unchanged"`
	Underpowered int         `json:"underpowered"`
	Pairs        int         `json:"pairs"`
	Keys         []KeyResult `json:"keys"`
	// Every result with no pair, by run, in input order.
	OnlyBase []Unpaired `json:"only_in_base"`
	OnlyHead []Unpaired `json:"only_in_head"`
	// Watch result lines left out: repeated (a result_id seen before) or replaced by a later line that
	// supersedes them.
	ReplacedBase int `json:"replaced_in_base,omitempty"`
	ReplacedHead int `json:"replaced_in_head,omitempty"`
}

// listed is how many unpaired results the text and Markdown outputs name; JSON names them all.
const listed = 20

// writeJSON writes r as one line of JSON, its bidirectional formatting
// characters as JSON escapes (report.EscapeBidi), as the engine's JSON
// reports write them: the same strings to a program, inert on a screen.
func writeJSON(w io.Writer, r *Report) error {
	enc := json.NewEncoder(bidiWriter{w})
	enc.SetEscapeHTML(false)
	return enc.Encode(r)
}

// bidiWriter writes through report.EscapeBidi. A json.Encoder gives it
// each value whole, in one Write call, so no character is split.
type bidiWriter struct{ w io.Writer }

func (b bidiWriter) Write(p []byte) (int, error) {
	if _, err := b.w.Write(report.EscapeBidi(p)); err != nil {
		return 0, err
	}
	return len(p), nil
}

func pct(x float64) string { return fmt.Sprintf("%.1f%%", 100*x) }

func points(x float64) string { return fmt.Sprintf("%+.1f", 100*x) }

// line is one key's comparison in a sentence.
func line(k *KeyResult) string {
	if k.Pairs == 0 {
		return "no pair to compare"
	}
	var b strings.Builder
	fmt.Fprintf(&b, "pass %s → %s (%s points, 95%% CI %s to %s), %d pass→fail, %d fail→pass",
		pct(k.BasePassRate), pct(k.HeadPassRate), points(k.PassRateDiff), points(k.PassRateCI[0]), points(k.PassRateCI[1]),
		k.Regressions, k.Improvements)
	if k.Graded {
		fmt.Fprintf(&b, "; mean score %+.4f", k.MeanScoreDiff)
	}
	switch k.Verdict {
	case Regressed:
		fmt.Fprintf(&b, "; p %.3g (Holm %.3g)", min(k.PRegression, nz(k.PScoreRegression, k.Graded)), k.AdjRegression)
	case Improved:
		fmt.Fprintf(&b, "; p %.3g (Holm %.3g)", min(k.PImprovement, nz(k.PScoreImprovement, k.Graded)), k.AdjImprovement)
	case Unchanged:
		fmt.Fprintf(&b, "; could have shown a drop of %.1f points", 100*k.DetectableDrop)
	case Underpowered:
		if k.DetectableDrop >= 1 {
			b.WriteString("; too few pairs to show any drop")
		} else {
			fmt.Fprintf(&b, "; could show only a drop of %.1f points or more", 100*k.DetectableDrop)
		}
	}
	return b.String()
}

func nz(p float64, ok bool) float64 {
	if !ok {
		return 1
	}
	return p
}

// name is a key as every format shows it: its label and type from the
// runs' files, with control and bidirectional formatting characters
// escaped (report.Clean), so a label cannot drive the terminal, or reorder
// the verdict and figures printed after it, in text, Markdown or a CI's
// view of the JUnit.
func name(k *KeyResult) string {
	s := report.Clean(clip.String(k.Label, 80))
	if k.Type != "" {
		s += " (" + report.Clean(clip.String(k.Type, 80)) + ")"
	}
	return s
}

func writeText(w io.Writer, r *Report) error {
	var b strings.Builder
	fmt.Fprintf(&b, "diff %s → %s: %d assertion keys, %d pairs (α %g per direction, Holm; seed %d)\n",
		r.Base, r.Head, len(r.Keys), r.Pairs, r.Alpha, r.Seed)
	fmt.Fprintf(&b, "%d regressed, %d improved, %d unchanged, %d underpowered\n", r.Regressed, r.Improved, r.Unchanged, r.Underpowered)
	for i := range r.Keys {
		k := &r.Keys[i]
		fmt.Fprintf(&b, "%-12s  %s  %s\n", strings.ToUpper(k.Verdict), name(k), line(k))
		if k.NotComparable > 0 {
			fmt.Fprintf(&b, "              %d pairs not compared (skipped or error on a side)\n", k.NotComparable)
		}
	}
	if r.ReplacedBase+r.ReplacedHead > 0 {
		fmt.Fprintf(&b, "%d result lines of base and %d of head left out: repeated (the same result_id) or superseded by a later line\n", r.ReplacedBase, r.ReplacedHead)
	}
	unpairedText(&b, "only in base", r.OnlyBase)
	unpairedText(&b, "only in head", r.OnlyHead)
	_, err := io.WriteString(w, b.String())
	return err
}

func unpairedText(b *strings.Builder, what string, us []Unpaired) {
	if len(us) == 0 {
		return
	}
	fmt.Fprintf(b, "%d results %s (no pair):\n", len(us), what)
	for i, u := range us {
		if i == listed {
			fmt.Fprintf(b, "  … and %d more (--format json lists them all)\n", len(us)-listed)
			break
		}
		fmt.Fprintf(b, "  %s × %s\n", report.Clean(clip.String(u.Case, 80)), report.Clean(clip.String(u.Label, 80)))
	}
}

func writeMarkdown(w io.Writer, r *Report) error {
	var b strings.Builder
	icon := map[string]string{Regressed: "🔴 regressed", Improved: "🟢 improved", Unchanged: "⚪ unchanged", Underpowered: "🟡 underpowered"}
	fmt.Fprintf(&b, "### Attest diff: %d regressed, %d improved, %d unchanged, %d underpowered\n\n", r.Regressed, r.Improved, r.Unchanged, r.Underpowered)
	b.WriteString("| assertion | verdict | pass rate | change (95% CI) | pass→fail | fail→pass | Holm p |\n|---|---|---|---|---|---|---|\n")
	for i := range r.Keys {
		k := &r.Keys[i]
		adj := min(k.AdjRegression, k.AdjImprovement)
		fmt.Fprintf(&b, "| %s | %s | %s → %s | %s (%s to %s) | %d | %d | %.3g |\n", mdCell(name(k)), icon[k.Verdict],
			pct(k.BasePassRate), pct(k.HeadPassRate), points(k.PassRateDiff), points(k.PassRateCI[0]), points(k.PassRateCI[1]),
			k.Regressions, k.Improvements, adj)
	}
	fmt.Fprintf(&b, "\n%d pairs; α %g per direction, Holm-adjusted across assertions; McNemar mid-p on pass/fail, sign-flip test on graded scores.\n", r.Pairs, r.Alpha)
	if n := len(r.OnlyBase) + len(r.OnlyHead); n > 0 {
		fmt.Fprintf(&b, "%d results only in base and %d only in head were not compared.\n", len(r.OnlyBase), len(r.OnlyHead))
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// mdCell keeps a cell's text from breaking the table or running markup.
func mdCell(s string) string {
	r := strings.NewReplacer(`\`, `\\`, "|", `\|`, "\n", " ", "\r", " ", "<", "&lt;", ">", "&gt;", "`", "'", "*", `\*`, "_", `\_`, "[", `\[`)
	return r.Replace(s)
}

// JUnit: one testsuite, one testcase per assertion key; a regressed key is a failure.
func writeJUnit(w io.Writer, r *Report) error {
	suite := xmlout.Elem{Name: "testsuite", Attrs: []xmlout.Attr{{Name: "name", Value: "attest diff"}, xmlout.Int("tests", len(r.Keys)), xmlout.Int("failures", r.Regressed)}}
	for i := range r.Keys {
		k := &r.Keys[i]
		c := xmlout.Elem{Name: "testcase", Attrs: []xmlout.Attr{{Name: "name", Value: name(k)}, {Name: "classname", Value: "attest.diff"}}}
		if k.Verdict == Regressed {
			c.Kids = append(c.Kids, xmlout.Elem{Name: "failure", Attrs: []xmlout.Attr{{Name: "message", Value: "regressed"}}, Text: line(k)})
		}
		c.Kids = append(c.Kids, xmlout.Elem{Name: "system-out", Text: k.Verdict + ": " + line(k)})
		suite.Kids = append(suite.Kids, c)
	}
	var b bytes.Buffer
	b.WriteString(xmlout.Header)
	xmlout.Write(&b, &xmlout.Elem{Name: "testsuites", Kids: []xmlout.Elem{suite}}, "", "  ")
	b.WriteByte('\n')
	_, err := w.Write(b.Bytes())
	return err
}
