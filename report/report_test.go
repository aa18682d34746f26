// report_test.go: golden reports in the three formats, from a fixed set of results.

package report

import (
	"bytes"
	"encoding/json"
	"flag"
	"math"
	"os"
	"path/filepath"
	"testing"
	"unicode"
	"unicode/utf8"

	"attest-engine/assert"
	"attest-engine/simulate"

	"github.com/google/go-cmp/cmp"
)

var update = flag.Bool("update", false, "rewrite golden files")

const reportDir = "../testdata/report"

// fixtureTraces covers what a report must show: every status, skipped,
// plugin and suite results, costs, request ids, the error entries of an
// invalid trace (without a trace_id) and of an assertion error, a trace
// without assertions, and text that must be escaped in XML and a terminal.
func fixtureTraces() []Trace {
	res := func(id string, st assert.Status, score float64, expl string) assert.Result {
		return assert.Result{AssertionID: id, Status: st, Score: score, Explanation: expl}
	}
	judge := res("assert_006", assert.Pass, 0.91, "Agent provided a clear, complete refund confirmation.")
	judge.Cost, judge.DurationMS, judge.RequestID = 0.0012, 1840, "req_006"
	costly := res("assert_007", assert.HardFail, 0, "metadata.cost_usd = 0.02, constraint lte 0.01 violated.")
	costly.DurationMS = 1
	skipped := res("assert_008", assert.SoftFail, 0, "Skipped: not evaluated because assertion 'assert_007' hard-failed in a cheaper layer and skip_after_hard_fail is on.")
	skipped.Skipped = true
	return []Trace{
		{Name: "trc_abc123", TraceID: "trc_abc123", DurationMS: 1845, Results: []Recorded{
			{TraceID: "trc_abc123", Type: "schema", Result: res("assert_001", assert.Pass, 1, "Tool result for 'lookup_order' matches schema: all required fields present, types valid.")},
			{TraceID: "trc_abc123", Type: "content", Result: res("assert_005", assert.SoftFail, 0, "output.message contains 'cannot process'.")},
			{TraceID: "trc_abc123", Type: "llm_judge", Result: judge},
			{TraceID: "trc_abc123", Type: "constraint", Result: costly},
			{TraceID: "trc_abc123", Type: "embedding", Result: skipped},
			{TraceID: "trc_abc123", Plugin: "my_custom_safety_checker", Result: res("plugin_assert_001", assert.Pass, 0.88, "Custom safety classifier returned score 0.88; above threshold 0.75.")},
			{TraceID: "trc_abc123", Suite: "refunds", Result: res("assert_009", assert.Pass, 1, "")},
		}},
		{Name: "#2", DurationMS: 0, Err: &Error{Code: assert.CodeInvalidTrace, Message: "trace missing required field: trace_id",
			Detail: "Every trace must include a non-empty trace_id string."}},
		{Name: "trc_regex", TraceID: "trc_regex", DurationMS: 3, Err: &Error{AssertionID: "assert_007", Type: "content", Code: assert.CodeAssertionError,
			Message: "assertion 'assert_007' failed: invalid regex '[unclosed'", Detail: "The regex pattern '[unclosed' is not valid RE2 syntax. Fix the regex in assertion spec."}},
		{Name: "trc_empty", TraceID: "trc_empty", DurationMS: 12},
		{Name: "trc_<&\"'>", TraceID: "trc_<&\"'>", DurationMS: 12345, Results: []Recorded{
			{TraceID: "trc_<&\"'>", Type: "content", Result: res("a<&>\"'", assert.HardFail, 0,
				"output.message contains '</system-out>]]>' and \x1b[31mred\x1b[0m,\na NUL \x00 and bad UTF-8 \xff.")},
		}},
	}
}

// fixtureScenarios are repeated runs of two scenarios (capability
// simulation): 2 of 3 passed, and 9 of 10, whose pass^k is cut after k = 8;
// the second id needs escaping.
func fixtureScenarios() []simulate.ScenarioSummary {
	return []simulate.ScenarioSummary{
		{ScenarioID: "refund-broken-kettle", Summary: simulate.Summarize(3, 2)},
		{ScenarioID: "retry <storm> & \"quotes\"", Summary: simulate.Summarize(10, 9)},
	}
}

func TestReportGolden(t *testing.T) {
	tests := []struct {
		format Format
		file   string
		reason string
	}{
		{FormatText, "report.txt", "readable summary: per trace, each result's status, score and explanation, then totals and PASS/FAIL"},
		{FormatJSON, "report.json", "one JSON document, one trace per line, keys in a fixed order"},
		{FormatJUnit, "report.xml", "JUnit XML: a testsuite per trace, a testcase per result, failure/error/skipped"},
	}
	for _, tc := range tests {
		t.Run(string(tc.format), func(t *testing.T) {
			var buf bytes.Buffer
			if err := writeReport(&buf, tc.format, fixtureTraces(), fixtureScenarios()...); err != nil {
				t.Fatal(err)
			}
			checkGolden(t, filepath.Join(reportDir, tc.file), buf.String(), tc.reason)
		})
	}
}

// checkGolden compares got with a golden file, rewriting it under -update.
func checkGolden(t *testing.T, path, got, reason string) {
	t.Helper()
	if *update {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test ./report -update to create it)", err)
	}
	if diff := cmp.Diff(string(want), got); diff != "" {
		t.Errorf("%s: %s\n(-want +got):\n%s", path, reason, diff)
	}
}

func TestReportJSONParses(t *testing.T) {
	for _, tc := range []struct {
		name   string
		traces []Trace
		reason string
	}{
		{"fixture", fixtureTraces(), "the full fixture is one valid JSON document whose totals add up"},
		{"no traces", nil, "an empty run still writes a whole document with an empty traces list"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var buf bytes.Buffer
			if err := writeReport(&buf, FormatJSON, tc.traces); err != nil {
				t.Fatal(err)
			}
			var doc struct {
				Traces []struct {
					Results []json.RawMessage
					Error   *struct {
						ErrorType string `json:"error_type"`
					}
				}
				Totals struct {
					Passed          bool
					Traces, Results int
					Errors          int
				}
			}
			if err := json.Unmarshal(buf.Bytes(), &doc); err != nil {
				t.Fatalf("%s: not JSON: %v\n%s", tc.reason, err, buf.String())
			}
			results, errs := 0, 0
			for _, tr := range doc.Traces {
				results += len(tr.Results)
				if tr.Error != nil {
					errs++
				}
			}
			if doc.Totals.Traces != len(tc.traces) || doc.Totals.Results != results || doc.Totals.Errors != errs {
				t.Errorf("%s: totals %+v, counted %d traces, %d results, %d errors", tc.reason, doc.Totals, len(doc.Traces), results, errs)
			}
		})
	}
}

func TestFormats(t *testing.T) {
	paths := []struct {
		path   string
		want   Format
		reason string
	}{
		{"out/report.xml", FormatJUnit, ".xml is JUnit"},
		{"REPORT.XML", FormatJUnit, "extensions match whatever their case"},
		{"r.json", FormatJSON, ".json is JSON"},
		{"r.txt", FormatText, "anything else is text"},
		{"report", FormatText, "no extension is text"},
		{"out/report.html", FormatHTML, ".html is HTML"},
		{"REPORT.HTM", FormatHTML, ".htm is HTML too, whatever its case"},
	}
	for _, tc := range paths {
		if got := FormatForPath(tc.path); got != tc.want {
			t.Errorf("FormatForPath(%q) = %q, want %q: %s", tc.path, got, tc.want, tc.reason)
		}
	}
	for _, s := range []string{"text", "json", "junit", "html"} {
		if _, err := ParseFormat(s); err != nil {
			t.Errorf("ParseFormat(%q): %v", s, err)
		}
	}
	if _, err := ParseFormat("xml"); err == nil {
		t.Errorf("ParseFormat(xml) succeeded; the format is called junit")
	}
}

func TestClean(t *testing.T) {
	tests := []struct{ in, want, reason string }{
		{"plain text, ünïcode", "plain text, ünïcode", "printable text is kept as is"},
		{"tab\tkept", "tab\tkept", "a tab cannot harm a terminal"},
		{"\x1b[2J", `\u001b[2J`, "an escape sequence could clear or retitle the terminal"},
		{"bell\a nul\x00 del\x7f c1\u009b", `bell\u0007 nul\u0000 del\u007f c1\u009b`, "C0, DEL and C1 controls are all escaped"},
		{"bad \xff utf8", `bad \xff utf8`, "invalid UTF-8 is shown as its byte"},
	}
	for _, tc := range tests {
		if got := Clean(tc.in); got != tc.want {
			t.Errorf("Clean(%q) = %q, want %q: %s", tc.in, got, tc.want, tc.reason)
		}
	}
}

func TestSeconds(t *testing.T) {
	tests := []struct {
		ms     int64
		want   string
		reason string
	}{
		{0, "0.000", "zero still has 3 decimals"},
		{7, "0.007", "milliseconds are the third decimal"},
		{1845, "1.845", "seconds and milliseconds"},
		{-3, "0.000", "a negative duration (clock step) is shown as zero"},
	}
	for _, tc := range tests {
		if got := seconds(tc.ms); got != tc.want {
			t.Errorf("seconds(%d) = %q, want %q: %s", tc.ms, got, tc.want, tc.reason)
		}
	}
}

// FuzzReports writes reports of text from traces and assertions, which the
// engine does not control. Properties: the JSON report is one document whose
// totals count what it holds; the JUnit report has the shape CI systems parse
// (checkJUnit); the text report is valid UTF-8 with no control character but
// newline and tab, so it cannot drive a terminal.
func FuzzReports(f *testing.F) {
	f.Add("trc_abc123", "assert_001", "schema", "Tool result matches schema.\nsecond line", 0.5, uint8(0))
	f.Add("", "a<&>\"'", "", "\x1b[31mred\x1b[0m ]]></system-out> \x00 \xff \u009b\r\n", math.NaN(), uint8(3))
	f.Add(" ", "x", "content", "", math.Inf(1), uint8(1))
	f.Add("trc\u202e", "a\u2066", "t\u200f", "x\u061c\u202a\xe2\x80", 0.0, uint8(2))
	f.Fuzz(func(t *testing.T, traceID, assertionID, typ, text string, score float64, kind uint8) {
		if assertionID == "" {
			assertionID = "#0" // the engine never reports an assertion without an id
		}
		name := traceID
		if name == "" {
			name = "#1"
		}
		r := assert.Result{AssertionID: assertionID, Status: []assert.Status{assert.Pass, assert.SoftFail, assert.HardFail}[kind%3],
			Score: score, Cost: score, Explanation: text, RequestID: text, Skipped: kind&4 != 0}
		traces := []Trace{
			{Name: name, TraceID: traceID, Results: []Recorded{{TraceID: traceID, Type: typ, Suite: text, Plugin: typ, Result: r}}},
			{Name: name, TraceID: traceID, Err: &Error{AssertionID: assertionID, Type: typ, Code: []int{assert.CodeInvalidTrace, assert.CodeAssertionError, 42}[kind%3],
				Message: text, Detail: text}},
		}
		for _, format := range []Format{FormatJSON, FormatJUnit, FormatText} {
			var buf bytes.Buffer
			if err := writeReport(&buf, format, traces); err != nil {
				t.Fatalf("%s: %v", format, err)
			}
			out := buf.Bytes()
			switch format {
			case FormatJSON:
				var doc struct {
					Traces []struct{ Results []json.RawMessage }
					Totals struct{ Traces, Results, Errors int }
				}
				if err := json.Unmarshal(out, &doc); err != nil {
					t.Fatalf("json: not one document: %v\n%s", err, out)
				}
				if len(doc.Traces) != 2 || doc.Totals.Traces != 2 || doc.Totals.Results != 1 || doc.Totals.Errors != 1 {
					t.Fatalf("json: %d traces, totals %+v; want 2 traces, 1 result, 1 error", len(doc.Traces), doc.Totals)
				}
			case FormatJUnit:
				if doc := checkJUnit(t, out); len(doc.Suites) != 2 {
					t.Fatalf("junit: %d testsuites, want 2", len(doc.Suites))
				}
				if r := rawBidi(string(out)); r != 0 {
					t.Fatalf("junit: %U written raw", r)
				}
			case FormatText:
				if !utf8.Valid(out) {
					t.Fatalf("text: invalid UTF-8: %q", out)
				}
				for _, c := range string(out) {
					if c != '\n' && c != '\t' && unicode.IsControl(c) || IsBidiControl(c) {
						t.Fatalf("text: control character %U reaches the terminal: %q", c, out)
					}
				}
			}
		}
	})
}

// TestDollars: a cost is printed for a person: a sum's float error is not
// shown, a price's digits are.
func TestDollars(t *testing.T) {
	sum, pair := 0.0, []float64{0.1, 0.2}
	for _, c := range []float64{0.00000003, 0.00016059} { // at run time: constants add exactly
		sum += c
	}
	tests := []struct {
		c      float64
		want   string
		reason string
	}{
		{sum, "$0.00016062", "a sum of two costs, 0.00016062000000000002 as a float"},
		{pair[0] + pair[1], "$0.3", "the classic 0.30000000000000004"},
		{0.00000015, "$0.00000015", "a per-token price keeps its digits, in fixed notation"},
		{0, "$0", "nothing spent"},
		{12.5, "$12.5", "dollars and cents"},
		{math.NaN(), "$0", "a NaN is not printed"},
	}
	for _, tc := range tests {
		if got := dollars(tc.c); got != tc.want {
			t.Errorf("dollars(%v) = %q, want %q: %s", tc.c, got, tc.want, tc.reason)
		}
	}
}
