// bidi_test.go: bidirectional formatting characters in data are shown escaped, and HTML isolates every inline data field.

package report

import (
	"bytes"
	"encoding/json"
	"fmt"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"attest-engine/assert"
	"attest-engine/simulate"
)

// bidiControls are every bidirectional formatting character (IsBidiControl).
var bidiControls = []rune{0x061C, 0x200E, 0x200F, 0x202A, 0x202B, 0x202C, 0x202D, 0x202E, 0x2066, 0x2067, 0x2068, 0x2069}

func TestIsBidiControl(t *testing.T) {
	for r := rune(0); r <= 0x3000; r++ {
		if got, want := IsBidiControl(r), slices.Contains(bidiControls, r); got != want {
			t.Errorf("IsBidiControl(%U) = %v, want %v", r, got, want)
		}
	}
}

// rawBidi is the first bidirectional formatting character in s, or 0.
func rawBidi(s string) rune {
	for _, r := range s {
		if IsBidiControl(r) {
			return r
		}
	}
	return 0
}

// bidiRun is a run whose every text field opens a right-to-left override
// and never closes it, next to Hebrew letters (strongly right-to-left).
func bidiRun() ([]Trace, Totals) {
	rlo := func(s string) string { return s + "\u202e" + "עברית" }
	r := assert.Result{AssertionID: rlo("aid"), Status: assert.HardFail, Explanation: rlo("expl") + "\u2067 isolate", RequestID: rlo("req"), Cost: 0.5}
	traces := []Trace{
		{Name: rlo("trc"), TraceID: rlo("trc"), Results: []Recorded{
			{TraceID: rlo("trc"), Type: rlo("typ"), Suite: rlo("suite"), Spec: rlo("spec"), Result: r},
			{TraceID: rlo("trc"), Plugin: rlo("plug"), Result: r},
		}},
		{Name: rlo("err"), Err: &Error{AssertionID: rlo("eaid"), Type: rlo("etyp"), Code: assert.CodeAssertionError, Message: rlo("msg"), Detail: rlo("det")}},
		{Name: rlo("ok"), TraceID: rlo("ok"), Results: []Recorded{{TraceID: rlo("ok"), Type: "content", Result: assert.Result{AssertionID: "a", Status: assert.Pass, Score: 1}}}},
	}
	return traces, Totals{Scenarios: []simulate.ScenarioSummary{{ScenarioID: rlo("scn"), Summary: simulate.Summarize(4, 2)}}}
}

// TestBidiText: an unterminated U+202E in a trace name does not reverse
// the text report's own words after it (it is shown as \u202e), in the
// text report, in JUnit (displayed by CI systems) and, as JSON escapes
// that decode to the same strings, in the JSON report.
func TestBidiText(t *testing.T) {
	traces, tot := bidiRun()
	for _, f := range []Format{FormatText, FormatJUnit, FormatJSON} {
		var buf bytes.Buffer
		if err := writeTotals(&buf, f, traces, tot); err != nil {
			t.Fatal(err)
		}
		out := buf.String()
		if r := rawBidi(out); r != 0 {
			t.Errorf("%s: %U is written raw: it reorders the rest of its line", f, r)
		}
		switch f {
		case FormatText:
			if want := "trace trc\\u202eעברית: hard_fail (2 results, 0ms)\n"; !strings.Contains(out, want) {
				t.Errorf("text: no line %q in\n%s", want, out)
			}
		case FormatJUnit:
			if want := `<testsuite name="trc\u202eעברית"`; !strings.Contains(out, want) {
				t.Errorf("junit: no %q in\n%s", want, out)
			}
		case FormatJSON:
			var doc struct{ Traces []struct{ Name string } }
			if err := json.Unmarshal(buf.Bytes(), &doc); err != nil || len(doc.Traces) != 3 || doc.Traces[0].Name != traces[0].Name {
				t.Errorf("json: the names do not decode to the same strings (%v): %+v", err, doc)
			}
		}
	}
	if got := Clean("a\u202eb\u2066c\u200fd\u061ce"); got != `a\u202eb\u2066c\u200fd\u061ce` {
		t.Errorf("Clean: %q", got)
	}
	if got := EscapeBidi([]byte("no bidi: עברית")); string(got) != "no bidi: עברית" {
		t.Errorf("EscapeBidi changed text without bidi controls: %q", got)
	}
}

// dataMarker finds the data of bidiRun in a page: each field holds "עברית".
const dataMarker = "עברית"

// bidiContainers are the elements whose text the bidirectional algorithm
// keeps apart from the page's own words: <bdi> (isolated, its direction
// from its content), blocks (each its own paragraph: <pre>, table cells,
// <option>, <summary> of the page's own sections), and the SVG chart's
// <text> and <title>, each laid out on its own.
var bidiContainers = map[string]bool{"bdi": true, "pre": true, "td": true, "option": true, "text": true, "title": true}

var tagRE = regexp.MustCompile(`<(/?)([a-zA-Z0-9]+)[^>]*?(/?)>`)

// checkIsolated returns the first text run of the page holding the marker
// whose innermost element does not isolate it, or "".
func checkIsolated(page string) string {
	var stack []string
	last := 0
	for _, m := range tagRE.FindAllStringSubmatchIndex(page, -1) {
		if txt := page[last:m[0]]; strings.Contains(txt, dataMarker) {
			if len(stack) == 0 || !bidiContainers[stack[len(stack)-1]] {
				return txt + " (inside " + strings.Join(stack, " > ") + ")"
			}
		}
		last = m[1]
		closing, name, selfClosing := page[m[2]:m[3]] == "/", strings.ToLower(page[m[4]:m[5]]), m[6] < m[7]
		switch {
		case closing:
			for len(stack) > 0 {
				top := stack[len(stack)-1]
				stack = stack[:len(stack)-1]
				if top == name {
					break
				}
			}
		case selfClosing || name == "meta" || name == "input" || name == "!doctype":
		default:
			stack = append(stack, name)
		}
	}
	return ""
}

// TestBidiHTML: in the HTML report and the history page, every data field
// shown among the page's own words is isolated (<bdi>), every other one
// stands in a block of its own, and no bidirectional formatting character
// is written raw: an unterminated U+202E in a trace name cannot reverse
// "2 results: 2 hard_fail · 0ms" after it.
func TestBidiHTML(t *testing.T) {
	traces, tot := bidiRun()
	var buf bytes.Buffer
	if err := writeTotals(&buf, FormatHTML, traces, tot); err != nil {
		t.Fatal(err)
	}
	page := buf.String()
	if r := rawBidi(page); r != 0 {
		t.Errorf("report: %U is written raw", r)
	}
	if bad := checkIsolated(page); bad != "" {
		t.Errorf("report: data not isolated from the page's words: %q", bad)
	}
	if want := `<b class="name"><bdi>trc\u202eעברית</bdi></b> <span class="sub">2 results: 2 hard_fail · 0ms</span>`; !strings.Contains(page, want) {
		t.Errorf("report: no %q", want)
	}
	if err := checkHTMLPage(page); err != nil {
		t.Errorf("report: %v", err)
	}

	keys := []HistoryKey{{Name: "key\u202e" + dataMarker, Type: "typ\u202e" + dataMarker, Points: []TrendPoint{{Label: "w\u202e" + dataMarker}},
		Bins: make([]int, 10), Alerts: []string{"alert\u202e" + dataMarker}}}
	for i := range historyMaxKeys {
		keys = append(keys, HistoryKey{Name: "more\u2067" + dataMarker + string(rune('a'+i%26)), Bins: make([]int, 10)})
	}
	buf.Reset()
	if err := WriteHistory(&buf, keys, time.Time{}); err != nil {
		t.Fatal(err)
	}
	page = buf.String()
	if r := rawBidi(page); r != 0 {
		t.Errorf("history: %U is written raw", r)
	}
	if bad := checkIsolated(page); bad != "" {
		t.Errorf("history: data not isolated from the page's words: %q", bad)
	}
	if err := checkHTMLPage(page); err != nil {
		t.Errorf("history: %v", err)
	}
}

// TestEscapeBidiBytes: EscapeBidi's byte matching escapes exactly the
// characters IsBidiControl names, for every rune up to U+FFFF, next to
// invalid UTF-8 too.
func TestEscapeBidiBytes(t *testing.T) {
	for r := rune(0); r <= 0xFFFF; r++ {
		if r >= 0xD800 && r <= 0xDFFF {
			continue
		}
		in := []byte("a\xff" + string(r) + "\xe2\x80")
		want := string(in)
		if IsBidiControl(r) {
			want = "a\xff" + fmt.Sprintf(`\u%04x`, r) + "\xe2\x80"
		}
		if got := string(EscapeBidi(in)); got != want {
			t.Fatalf("EscapeBidi(%q) = %q, want %q", in, got, want)
		}
	}
}
