// html.go: the HTML report: one self-contained page, failures first and open, passes summed up in rows.

package report

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"math"
	"slices"
	"strconv"
	"strings"

	"attest-engine/assert"
	"attest-engine/clip"
	"attest-engine/simulate"
)

// htmlReport writes one HTML file that needs nothing else: its style sheet,
// its filter script and its SVG charts are inline, and it holds no URL of
// any kind, so it opens from disk, from a mail or in an air-gapped network
// and makes no request. A Content-Security-Policy allows only the page's
// own script and style sheet (by hash), so even a flaw in escaping could
// not run script or apply style from a trace.
//
// Order on the page: the summary (verdict, counts, cost, time, a status
// bar, a score histogram, a table per assertion type), then the traces
// that failed (error, hard_fail) in full and open, then the soft failures
// in full and open, then one row per other trace in a closed list. Inside
// a trace, results that did not pass are open, passes closed; each shows
// its assertion's spec on demand. Everything is readable with scripting
// off; the script only adds the filters (status, type, search).
//
// The summary needs the totals, so sections are kept until end: memory and
// file size are bounded by the budgets below (see htmlMaxBytes), not by
// the number of traces.
type htmlReport struct {
	w io.Writer

	failed, soft htmlSection // traces shown in full
	rows         bytes.Buffer
	nRows        int
	passed       int // traces in rows because they passed
	over         int // traces in rows because their section was full
	omitted      int // traces in no row: beyond htmlMaxRows
	bins         [10]int
	types        map[string]*htmlTypeStats
	index        int
}

// The bounds of an HTML report. Text from traces is cut to a length per
// field; sections in full stop at a byte budget (a trace beyond it gets a
// row, a result beyond it is counted); rows stop at htmlMaxRows. Escaping
// at most quintuples a byte ("&#34;"), so a page is at most about
// 2×htmlSectionBudget + htmlMaxRows×htmlRowMax + 64 KiB: under htmlMaxBytes
// whatever the run holds (TestHTMLReportBound writes the worst case).
const (
	htmlMaxBytes      = 32 << 20
	htmlSectionBudget = 6 << 20 // per section: failed, soft failures (bytes of HTML)
	htmlMaxRows       = 10000   // summary rows: passing traces, and traces past a budget
	htmlRowMax        = 1536    // bytes of HTML a row can take, worst case (a name and types of 128 bytes, escaped)
	htmlMaxTypes      = 64      // assertion types in the summary table; others count as "other"
	htmlNameMax       = 128     // bytes of a trace name, assertion id, type, suite, plugin, request id
	htmlTextMax       = 4 << 10 // bytes of an explanation, message, detail, spec
	// htmlMaxScenarios: rows of the scenario table (a session keeps at most
	// as many, simulate.MaxRepeatScenarios), about 1 KiB each at worst.
	htmlMaxScenarios = 1024
)

type htmlSection struct {
	buf  bytes.Buffer
	n    int // traces shown in full
	full bool
}

type htmlTypeStats struct {
	Name                string
	N, Pass, Soft, Hard int
	ScoreSum            float64
}

func (h *htmlReport) Begin() error { return nil }

func (h *htmlReport) Trace(tr *Trace) error {
	h.index++
	st := tr.Status()
	types, names := h.count(tr)
	sec := &h.failed
	switch st {
	case string(assert.Pass):
		h.passed++
		return h.row(tr, st, types)
	case string(assert.SoftFail):
		sec = &h.soft
	}
	if sec.full {
		h.over++
		return h.row(tr, st, types)
	}
	t := htmlTrace{ID: "t" + strconv.Itoa(h.index), Name: line(tr.Name, htmlNameMax), Status: st, Types: types,
		Duration: millis(tr.DurationMS), Summary: traceCounts(tr)}
	if e := tr.Err; e != nil {
		t.Err = &htmlErr{ErrorType: e.ErrorType(), Code: e.Code, AssertionID: line(e.AssertionID, htmlNameMax),
			Type: line(e.Type, htmlNameMax), Filter: typeName(e.Type), Message: text(e.Message), Detail: text(e.Detail)}
	}
	var body bytes.Buffer
	for i := range tr.Results {
		if sec.buf.Len()+body.Len() >= htmlSectionBudget {
			t.Hidden = len(tr.Results) - i
			sec.full = true
			break
		}
		writeResult(&body, htmlResultOf(&tr.Results[i], names[i]))
	}
	t.Body = body.String()
	writeTrace(&sec.buf, &t)
	sec.n++
	if sec.buf.Len() >= htmlSectionBudget {
		sec.full = true
	}
	return nil
}

// count adds a trace's results to the run's histogram and type table, and
// returns its distinct types for the filters and each result's type as
// the table names it (past htmlMaxTypes types, "other").
func (h *htmlReport) count(tr *Trace) (string, []string) {
	if h.types == nil {
		h.types = map[string]*htmlTypeStats{}
	}
	var seen []string
	names := make([]string, len(tr.Results))
	for i := range tr.Results {
		rec := &tr.Results[i]
		r := &rec.Result
		ScoreBins(h.bins[:], r.Score)
		name := resultType(rec)
		s := h.types[name]
		if s == nil {
			if len(h.types) >= htmlMaxTypes {
				name = "other"
			}
			if s = h.types[name]; s == nil {
				s = &htmlTypeStats{Name: name}
				h.types[name] = s
			}
		}
		names[i] = name
		s.N++
		s.ScoreSum += finite(r.Score)
		switch r.Status {
		case assert.Pass:
			s.Pass++
		case assert.SoftFail:
			s.Soft++
		case assert.HardFail:
			s.Hard++
		}
		if !slices.Contains(seen, name) {
			seen = append(seen, name)
		}
	}
	if tr.Err != nil && tr.Err.Type != "" {
		if name := typeName(tr.Err.Type); !slices.Contains(seen, name) {
			seen = append(seen, name)
		}
	}
	return line(strings.Join(seen, " "), htmlNameMax), names
}

// resultType is what the type filter and table call a result: its
// assertion type, "plugin:<name>" for a plugin's, "untyped" when unknown.
func resultType(rec *Recorded) string {
	switch {
	case rec.Plugin != "":
		return line("plugin:"+strings.ReplaceAll(rec.Plugin, " ", "_"), htmlNameMax)
	case rec.Type != "":
		return typeName(rec.Type)
	}
	return "untyped"
}

// typeName is an assertion type as one word of the filters' type list.
func typeName(t string) string { return line(strings.ReplaceAll(t, " ", "_"), htmlNameMax) }

// row writes a trace as one summary row, or counts it past htmlMaxRows.
func (h *htmlReport) row(tr *Trace, st, types string) error {
	if h.nRows >= htmlMaxRows {
		h.omitted++
		return nil
	}
	h.nRows++
	mean := "–"
	if n := len(tr.Results); n > 0 {
		sum := 0.0
		for i := range tr.Results {
			sum += finite(tr.Results[i].Result.Score)
		}
		mean = score(sum / float64(n))
	}
	writeRow(&h.rows, &htmlRow{Name: line(tr.Name, htmlNameMax), Status: st, Types: types,
		Results: len(tr.Results), Mean: mean, Duration: millis(tr.DurationMS)})
	return nil
}

func (h *htmlReport) End(tot *Totals) error {
	p := htmlPage{Tot: tot, Cost: dollars(tot.Cost), Time: seconds(tot.DurationMS) + "s",
		Failed: h.failed.buf.String(), NFailed: h.failed.n,
		Soft: h.soft.buf.String(), NSoft: h.soft.n,
		Rows: h.rows.String(), NRows: h.nRows, Passed: h.passed, Over: h.over, Omitted: h.omitted,
		CSS: htmlCSS, Script: htmlScript, CSP: htmlCSP()}
	switch {
	case tot.Incomplete:
		p.Verdict, p.VerdictClass = "INCOMPLETE", "err"
	case tot.Passed():
		p.Verdict, p.VerdictClass = "PASS", "pass"
	default:
		p.Verdict, p.VerdictClass = "FAIL", "hard"
	}
	if !tot.Generated.IsZero() {
		p.Generated = tot.Generated.UTC().Format("2006-01-02 15:04:05 UTC")
	}
	p.StatusBar = StatusBar("results by status", tot.Pass, tot.SoftFail, tot.HardFail, tot.Errors)
	p.Histogram = Histogram("score histogram ("+strconv.Itoa(tot.Results)+" results)", h.bins[:])
	for _, s := range h.types {
		p.Types = append(p.Types, htmlTypeRow{htmlTypeStats: *s, Mean: score(s.ScoreSum / float64(max(s.N, 1)))})
	}
	slices.SortFunc(p.Types, func(a, b htmlTypeRow) int { return strings.Compare(a.Name, b.Name) })
	for i := range tot.Scenarios {
		if i == htmlMaxScenarios {
			p.MoreScenarios = len(tot.Scenarios) - i
			break
		}
		p.Scenarios = append(p.Scenarios, htmlScenarioOf(&tot.Scenarios[i]))
	}
	bw := bufio.NewWriter(h.w)
	writePage(bw, &p)
	return bw.Flush()
}

// htmlResultOf is a result as the page shows it, its text cut to the
// bounds; typ is its type as the page's table names it.
func htmlResultOf(rec *Recorded, typ string) *htmlResult {
	r := &rec.Result
	out := &htmlResult{ID: line(r.AssertionID, htmlNameMax), Type: typ, Status: string(r.Status), Label: string(r.Status),
		Score: score(r.Score), Duration: millis(r.DurationMS), Explanation: text(r.Explanation),
		Suite: line(rec.Suite, htmlNameMax), RequestID: line(r.RequestID, htmlNameMax), Open: r.Status != assert.Pass}
	if r.Skipped {
		out.Label = "skipped"
	}
	if e := r.Failure; e != nil {
		out.Status, out.Label, out.Open, out.Score = "error", "error", true, "–"
		out.Explanation = text(assert.ErrorType(e.Code) + ": " + e.Message + "\nfix: " + e.Detail)
	}
	if r.Cost != 0 {
		out.Cost = dollars(r.Cost)
	}
	if rec.Spec != "" {
		out.Spec = text(rec.Spec)
	}
	return out
}

func traceCounts(tr *Trace) string {
	if tr.Err != nil {
		return "not evaluated"
	}
	var n [3]int
	for _, r := range tr.Results {
		switch r.Result.Status {
		case assert.Pass:
			n[0]++
		case assert.SoftFail:
			n[1]++
		case assert.HardFail:
			n[2]++
		}
	}
	var parts []string
	for i, name := range []string{"pass", "soft_fail", "hard_fail"} {
		if n[i] > 0 {
			parts = append(parts, strconv.Itoa(n[i])+" "+name)
		}
	}
	return strconv.Itoa(len(tr.Results)) + " " + plural(len(tr.Results), "result") + ": " + strings.Join(parts, ", ")
}

// score prints a score with at most 3 decimals.
func score(f float64) string {
	return strconv.FormatFloat(math.Round(finite(f)*1000)/1000, 'f', -1, 64)
}

// line is one line of text from a trace: control characters and invalid
// UTF-8 shown escaped (as in the text report), cut to n bytes.
func line(s string, n int) string {
	return clip.String(Clean(clip.String(s, n)), n)
}

// text is text of several lines: each line as line does, the whole cut to
// htmlTextMax bytes with a note of how much was left out.
func text(s string) string {
	orig := len(s)
	s = clip.String(s, htmlTextMax)
	var b strings.Builder
	for i, l := range strings.Split(s, "\n") {
		if i > 0 {
			b.WriteByte('\n')
		}
		b.WriteString(Clean(strings.TrimSuffix(l, "\r")))
	}
	out := clip.String(b.String(), htmlTextMax)
	if orig > htmlTextMax {
		out += "\n[" + strconv.Itoa(orig-htmlTextMax) + " more bytes: see the JSON report]"
	}
	return out
}

// htmlScenarioOf is a scenario summary as a row: pass^k as the text report
// writes it (k = 1..8, then pass^n).
func htmlScenarioOf(s *simulate.ScenarioSummary) htmlScenario {
	var pk strings.Builder
	for i, t := range scenarioPassK(&s.Summary) {
		if i > 0 {
			pk.WriteString(" · ")
		}
		fmt.Fprintf(&pk, "pass^%d %.3f", t.K, t.P)
	}
	return htmlScenario{ID: line(s.ScenarioID, htmlNameMax), N: s.N, Passes: s.Passes, PassK: pk.String(),
		Wilson: fmt.Sprintf("%.3f–%.3f", s.WilsonLo, s.WilsonHi)}
}
