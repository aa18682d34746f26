// html_test.go: the HTML report: goldens, no reference of any kind, the size bound, hostile text.

package report

import (
	"bytes"
	"fmt"
	"math"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"attest-engine/assert"
	"attest-engine/simulate"
)

// htmlFixture is fixtureTraces with the assertions' specs, which the HTML
// report shows on demand, one of them holding markup.
func htmlFixture() []Trace {
	traces := fixtureTraces()
	specs := []map[string]any{
		{"target": "steps[?(@.name=='lookup_order')].result", "schema": map[string]any{"type": "object", "required": []any{"order_id"}}},
		{"target": "output.message", "check": "not_contains", "value": "cannot process"},
		{"criteria": "Is the refund confirmation clear?", "rubric": "default", "threshold": 0.8},
		{"field": "metadata.cost_usd", "operator": "lte", "value": 0.01},
	}
	for i := range specs {
		traces[0].Results[i].Spec = SpecText(specs[i])
	}
	traces[4].Results[0].Spec = SpecText(map[string]any{"check": "regex_match", "value": `</pre><script>alert("x")</script>`})
	return traces
}

func passingTraces(n int) []Trace {
	var out []Trace
	for i := range n {
		id := fmt.Sprintf("trc_%03d", i+1)
		out = append(out, Trace{Name: id, TraceID: id, DurationMS: int64(3 + i), Results: []Recorded{
			{TraceID: id, Type: "schema", Spec: SpecText(map[string]any{"target": "output"}), Result: assert.Result{AssertionID: "assert_001", Status: assert.Pass, Score: 1, Explanation: "ok"}},
			{TraceID: id, Type: "constraint", Result: assert.Result{AssertionID: "assert_002", Status: assert.Pass, Score: 0.5 + 0.1*float64(i), Explanation: "within limits"}},
		}})
	}
	return out
}

func TestHTMLReportGolden(t *testing.T) {
	tests := []struct {
		name      string
		traces    []Trace
		scenarios []simulate.ScenarioSummary
		file      string
		reason    string
	}{
		{"fixture", htmlFixture(), fixtureScenarios(), "report.html", "every status, an error entry of each kind, specs on demand, escaped markup; failures first and open, the passing trace in a row; the scenario table"},
		{"all pass", passingTraces(3), nil, "report_pass.html", "a passing run: PASS, no failure section, the traces as rows in a closed list"},
		{"empty", nil, nil, "report_empty.html", "no trace: a whole page that says so"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var buf bytes.Buffer
			if err := writeTotals(&buf, FormatHTML, tc.traces, Totals{Scenarios: tc.scenarios}); err != nil {
				t.Fatal(err)
			}
			if err := checkHTMLPage(buf.String()); err != nil {
				t.Errorf("%s: not a clean page: %v", tc.reason, err)
			}
			checkGolden(t, filepath.Join(reportDir, tc.file), buf.String(), tc.reason)
		})
	}
}

func TestHTMLReportTimestamp(t *testing.T) {
	var with, without bytes.Buffer
	at := time.Date(2026, 11, 24, 3, 4, 5, 0, time.FixedZone("CET", 3600))
	if err := write(&with, FormatHTML, passingTraces(1), at); err != nil {
		t.Fatal(err)
	}
	if err := write(&without, FormatHTML, passingTraces(1), time.Time{}); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(with.String(), "generated 2026-11-24 02:04:05 UTC") {
		t.Errorf("a report with a time says when it was generated, in UTC")
	}
	if strings.Contains(without.String(), "generated") {
		t.Errorf("a zero time (--deterministic) leaves the timestamp out")
	}
}

// TestHTMLReportLayout checks what a reader relies on in the fixture:
// failures before everything else and open, passes closed, the counts.
func TestHTMLReportLayout(t *testing.T) {
	var buf bytes.Buffer
	if err := write(&buf, FormatHTML, htmlFixture(), time.Time{}); err != nil {
		t.Fatal(err)
	}
	page := buf.String()
	checks := []struct {
		ok     bool
		reason string
	}{
		{strings.Index(page, `id="failed"`) < strings.Index(page, `id="soft"`) || !strings.Contains(page, `id="soft"`), "failed traces come before soft failures"},
		{strings.Index(page, `id="failed"`) < strings.Index(page, `id="rows"`), "failed traces come before the other traces"},
		{strings.Contains(page, `<details class="trace" open id="t1" data-status="hard_fail"`), "a failed trace is open"},
		{strings.Contains(page, `<details class="r" data-status="hard_fail" data-types="constraint" open>`), "a failed result is open"},
		{strings.Contains(page, `<details class="r" data-status="pass" data-types="schema">`), "a passing result is closed"},
		{strings.Contains(page, `<details id="rows-list">`), "the passing traces' list is closed"},
		{strings.Contains(page, `<dt>hard_fail</dt><dd>2</dd>`) && strings.Contains(page, `<dt>error</dt><dd>2</dd>`), "the summary counts hard failures and errors"},
		{strings.Contains(page, `<details class="spec"><summary>spec</summary>`), "specs are there on demand"},
		{strings.Contains(page, `&lt;/pre&gt;&lt;script&gt;alert(\&#34;x\&#34;)&lt;/script&gt;`), "markup in a spec is shown as text"},
		{strings.Contains(page, `<div id="filters" class="filters" hidden>`), "the filters are hidden until the script shows them"},
	}
	for _, c := range checks {
		if !c.ok {
			t.Error(c.reason)
		}
	}
}

func TestHTMLReportNoReference(t *testing.T) {
	for _, tc := range []struct {
		name   string
		traces []Trace
	}{
		{"fixture", htmlFixture()},
		{"large", largeRun(1000, 10, 0.1, "")},
		{"empty", nil},
	} {
		var buf bytes.Buffer
		if err := write(&buf, FormatHTML, tc.traces, time.Now()); err != nil {
			t.Fatal(err)
		}
		if found := findReferences(buf.String()); len(found) > 0 {
			t.Errorf("%s: the page must load and link nothing; found %q", tc.name, found)
		}
	}
}

// largeRun is n traces of k results each; a share of the traces fails
// (spread evenly). fill, when set, is the text of every name, type and
// explanation: the worst case for size.
func largeRun(n, k int, failing float64, fill string) []Trace {
	spec := map[string]any{"target": "output.message", "check": "contains", "value": "refund"}
	expl := "output.message contains 'refund'."
	if fill != "" {
		spec = map[string]any{"value": fill}
		expl = fill
	}
	types := []string{"schema", "constraint", "trace", "content", "embedding", "llm_judge"}
	specText := SpecText(spec)
	out := make([]Trace, n)
	every := 0
	if failing > 0 {
		every = int(math.Round(1 / failing))
	}
	for i := range out {
		id := "trc_" + strconv.Itoa(i+1)
		if fill != "" {
			id = fill
		}
		fails := every > 0 && i%every == 0
		res := make([]Recorded, k)
		for j := range res {
			st, sc := assert.Pass, 1.0
			if fails && j%3 == 0 {
				st, sc = assert.HardFail, 0.2
			}
			typ := types[j%len(types)]
			if fill != "" {
				typ = fill + strconv.Itoa(j)
			}
			res[j] = Recorded{TraceID: id, Type: typ, Spec: specText, Result: assert.Result{AssertionID: "assert_" + strconv.Itoa(j+1),
				Status: st, Score: sc, Explanation: expl, DurationMS: 2}}
		}
		out[i] = Trace{Name: id, TraceID: id, Results: res, DurationMS: 20}
	}
	return out
}

// TestHTMLReportBound writes runs of 10,000 traces × 10 assertions. The
// stated bound (htmlMaxBytes, 32 MiB) holds in the worst case: every trace
// failing, every name, type, explanation and spec at its length limit and
// made of the character escaping lengthens most. A usual run stays far
// below it: the sizes are logged (go test -run HTMLReportBound -v).
func TestHTMLReportBound(t *testing.T) {
	if testing.Short() {
		t.Skip("writes 10,000-trace reports")
	}
	worst := strings.Repeat(`"`, 8<<10)
	for _, tc := range []struct {
		name   string
		traces []Trace
		limit  int
		reason string
	}{
		{"all pass", largeRun(10000, 10, 0, ""), 2 << 20, "passing traces are one row each"},
		{"10% failing", largeRun(10000, 10, 0.1, ""), 8 << 20, "a usual failing run: failures in full, passes in rows"},
		{"all failing", largeRun(10000, 10, 1, ""), 16 << 20, "every trace failing: the sections stop at their budget, the rest are rows"},
		{"worst case", largeRun(10000, 10, 1, worst), htmlMaxBytes, "the stated bound, whatever the traces hold"},
		{"worst rows", largeRun(10000, 10, 0, worst), htmlMaxBytes, "10,000 rows of the longest names and types"},
		{"worst mixed", halfSoft(largeRun(10000, 10, 0.5, worst)), htmlMaxBytes, "both sections full, 10,000 rows, and 2,000 scenarios of the longest names"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var tot Totals
			if strings.HasPrefix(tc.name, "worst") {
				for i := range 2000 {
					tot.Scenarios = append(tot.Scenarios, simulate.ScenarioSummary{ScenarioID: worst + strconv.Itoa(i), Summary: simulate.Summarize(10000, 5000)})
				}
			}
			var buf bytes.Buffer
			if err := writeTotals(&buf, FormatHTML, tc.traces, tot); err != nil {
				t.Fatal(err)
			}
			t.Logf("%s: %d bytes (%.2f MiB)", tc.name, buf.Len(), float64(buf.Len())/(1<<20))
			if buf.Len() > tc.limit {
				t.Errorf("%s: %d bytes > %d: %s", tc.name, buf.Len(), tc.limit, tc.reason)
			}
			if err := checkHTMLPage(buf.String()); err != nil {
				t.Errorf("%s: %v", tc.name, err)
			}
		})
	}
}

// TestHTMLReportRowsCapped: past htmlMaxRows traces, rows stop and the rest
// are counted; without the cap rows (up to htmlRowMax bytes each) would take
// the page past htmlMaxBytes for runs beyond ~14,000 traces, which
// TestHTMLReportBound, at 10,000, does not reach.
func TestHTMLReportRowsCapped(t *testing.T) {
	const extra = 7
	var buf bytes.Buffer
	if err := write(&buf, FormatHTML, largeRun(htmlMaxRows+extra, 1, 0, ""), time.Time{}); err != nil {
		t.Fatal(err)
	}
	page := buf.String()
	if n := strings.Count(page, `<tr class="row"`); n != htmlMaxRows {
		t.Errorf("%d passing traces: %d rows, want %d", htmlMaxRows+extra, n, htmlMaxRows)
	}
	if want := fmt.Sprintf("%d more traces are counted above but not listed", extra); !strings.Contains(page, want) {
		t.Errorf("the page does not say %q", want)
	}
}

// halfSoft turns every other failing trace's hard failures soft.
func halfSoft(traces []Trace) []Trace {
	for i := range traces {
		if i%4 != 0 {
			continue
		}
		for j := range traces[i].Results {
			if r := &traces[i].Results[j].Result; r.Status == assert.HardFail {
				r.Status = assert.SoftFail
			}
		}
	}
	return traces
}

func BenchmarkHTMLReport(b *testing.B) {
	traces := largeRun(10000, 10, 0.1, "")
	var buf bytes.Buffer
	for b.Loop() {
		buf.Reset()
		if err := write(&buf, FormatHTML, traces, time.Time{}); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(buf.Len()), "bytes/report")
}

// FuzzHTMLReport writes reports of hostile text from traces and assertions.
// Property: the page stays well-formed and inert (checkHTMLPage: only the
// report's own elements, attributes, script and style; data is text) and
// holds no reference that was not in the data, escaped as text.
func FuzzHTMLReport(f *testing.F) {
	f.Add("trc_abc123", "assert_001", "schema", "Tool result matches schema.\nsecond line", 0.5, uint8(0))
	f.Add("<script>alert(1)</script>", "\" onmouseover=\"alert(1)", "x' onload='y", "</script><script>alert(2)</script>", 1.0, uint8(2))
	f.Add("javascript:alert(1)", "<a href=\"https://evil.example/\">x</a>", "<img src=x onerror=alert(1)>", "<svg onload=alert(1)>\u2028\u2029", math.NaN(), uint8(1))
	f.Add("\xff\xfe\x00", "]]><!-- -->", "&amp;&#0;&", "<style>@import url(//evil)</style>\x1b[31m\r\n", math.Inf(-1), uint8(6))
	f.Add("", "a", "", "", 0.0, uint8(5))
	f.Add("trc\u202e", "a\u2066", "t\u200f", "x\u061c\u202a\xe2\x80", 0.0, uint8(2))
	f.Fuzz(func(t *testing.T, traceID, assertionID, typ, text string, score float64, kind uint8) {
		name := traceID
		if name == "" {
			name = "#1"
		}
		r := assert.Result{AssertionID: assertionID, Status: []assert.Status{assert.Pass, assert.SoftFail, assert.HardFail}[kind%3],
			Score: score, Cost: score, Explanation: text, RequestID: text, Skipped: kind&4 != 0}
		spec := map[string]any{text: []any{typ, score, nil, true, map[string]any{"k": assertionID}}}
		rec := Recorded{TraceID: traceID, Type: typ, Suite: text, Spec: SpecText(spec), Result: r}
		plugin := rec
		plugin.Plugin = typ
		pass := rec
		pass.Result.Status = assert.Pass
		traces := []Trace{
			{Name: name, TraceID: traceID, Results: []Recorded{rec, plugin, pass}},
			{Name: name, TraceID: traceID, Results: []Recorded{pass}},
			{Name: name, TraceID: traceID, Err: &Error{AssertionID: assertionID, Type: typ, Code: []int{assert.CodeInvalidTrace, assert.CodeAssertionError, 42}[kind%3],
				Message: text, Detail: text}},
		}
		scenarios := []simulate.ScenarioSummary{{ScenarioID: text, Summary: simulate.Summarize(int(kind%12)+1, int(kind%12)/2)}}
		var buf bytes.Buffer
		if err := writeTotals(&buf, FormatHTML, traces, Totals{Scenarios: scenarios}); err != nil {
			t.Fatal(err)
		}
		page := buf.String()
		if err := checkHTMLPage(page); err != nil {
			t.Fatalf("%v\n%s", err, page)
		}
		if r := rawBidi(page); r != 0 {
			t.Fatalf("%U written raw", r)
		}
		data := strings.ToLower(traceID + assertionID + typ + text)
		for _, ref := range findReferences(page) {
			if !strings.Contains(data, ref) && !strings.Contains(data, strings.Trim(ref, "<=")) {
				t.Fatalf("reference %q in the page that no data holds", ref)
			}
		}
	})
}

// TestHTMLFieldsCut: docs/security.md "fields cut (names 128 bytes, texts 4 KiB)": a
// 10,000-byte explanation shows its first 4 KiB and how much was left out,
// and a 1,000-byte trace name its first 128 bytes.
func TestHTMLFieldsCut(t *testing.T) {
	name, expl := strings.Repeat("n", 1000), strings.Repeat("e", 10000)
	tr := Trace{Name: name, Results: []Recorded{{TraceID: name, Type: "content",
		Result: assert.Result{AssertionID: "a", Status: assert.HardFail, Explanation: expl}}}}
	var buf bytes.Buffer
	if err := write(&buf, FormatHTML, []Trace{tr}, time.Time{}); err != nil {
		t.Fatal(err)
	}
	page := buf.String()
	for _, c := range []struct {
		what     string
		unit     byte
		max      int
		leftOver string
	}{
		{"trace name", 'n', htmlNameMax, ""},
		{"explanation", 'e', htmlTextMax, fmt.Sprintf("[%d more bytes: see the JSON report]", len(expl)-htmlTextMax)},
	} {
		if !strings.Contains(page, strings.Repeat(string(c.unit), c.max)) || strings.Contains(page, strings.Repeat(string(c.unit), c.max+1)) {
			t.Errorf("%s: not cut at %d bytes", c.what, c.max)
		}
		if !strings.Contains(page, c.leftOver) {
			t.Errorf("%s: the page does not say %q", c.what, c.leftOver)
		}
	}
}

func TestSpecText(t *testing.T) {
	deep := map[string]any{}
	for range 100 {
		deep = map[string]any{"a": deep}
	}
	tests := []struct {
		name   string
		spec   map[string]any
		want   string // the whole text, or with a "*" suffix its beginning
		reason string
	}{
		{"none", nil, "", "no spec, no text"},
		{"ordered", map[string]any{"b": []any{1.5, "x<y", nil, true}, "a": map[string]any{}},
			"{\n  \"a\": {},\n  \"b\": [\n    1.5,\n    \"x<y\",\n    null,\n    true\n  ]\n}", "indented, keys in order, markup left to the page to escape"},
		{"huge", map[string]any{"schema": strings.Repeat("x", 1<<20)}, "{\n  \"schema\": \"xxx*", "a 1 MiB string costs the limit, not its size"},
		{"deep", deep, "{\n  \"a\": {\n    \"a\": {*", "nesting past 64 levels is cut"},
	}
	for _, tc := range tests {
		got := SpecText(tc.spec)
		if want, prefix := strings.CutSuffix(tc.want, "*"); prefix {
			if !strings.HasPrefix(got, want) {
				t.Errorf("%s: %q does not begin %q: %s", tc.name, got[:min(len(got), 40)], want, tc.reason)
			}
		} else if got != tc.want {
			t.Errorf("%s: got %q, want %q: %s", tc.name, got, tc.want, tc.reason)
		}
		if len(got) > htmlTextMax+len("…") {
			t.Errorf("%s: %d bytes, over the %d limit", tc.name, len(got), htmlTextMax)
		}
	}
	if got := SpecText(deep); !strings.Contains(got, "…") {
		t.Errorf("deep: the cut is not marked")
	}
}

// TestHTMLReportTypes: past htmlMaxTypes assertion types the table and the
// filter count the rest as "other", and so do the results' filter types.
func TestHTMLReportTypes(t *testing.T) {
	var results []Recorded
	for i := range htmlMaxTypes + 6 {
		results = append(results, Recorded{Type: "type " + strconv.Itoa(i), Result: assert.Result{AssertionID: "a" + strconv.Itoa(i), Status: assert.HardFail}})
	}
	var buf bytes.Buffer
	if err := writeReport(&buf, FormatHTML, []Trace{{Name: "t", Results: results}}); err != nil {
		t.Fatal(err)
	}
	page := buf.String()
	if n := strings.Count(page, "<option>"); n != htmlMaxTypes+1 {
		t.Errorf("%d types in the filter, want %d and \"other\"", n, htmlMaxTypes)
	}
	if n := strings.Count(page, `data-types="other"`); n != 6 {
		t.Errorf("%d results filtered as other, want the 6 past the first %d types", n, htmlMaxTypes)
	}
	if !strings.Contains(page, `data-types="type_0"`) {
		t.Errorf("a type's spaces become underscores: the filter's type list is split on spaces")
	}
}
