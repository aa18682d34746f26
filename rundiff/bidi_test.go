// bidi_test.go: labels and case keys from the runs' files cannot drive the terminal or reorder the verdict's text.

package rundiff

import (
	"strings"
	"testing"

	"attest-engine/report"
)

// TestDiffOutputEscapesLabels: a label with an unterminated U+202E and an
// escape sequence, and a case key with U+2067, are shown escaped in the
// text, Markdown, JUnit and JSON outputs (JSON: as its own escapes), so "REGRESSED  label  pass 90% → 50%"
// reads in order and the terminal is not driven.
func TestDiffOutputEscapesLabels(t *testing.T) {
	r := &Report{Base: "a.json", Head: "b.json", Regressed: 1,
		Keys:     []KeyResult{{AssertionKey: "k", Label: "refund\u202e\x1b[31m", Type: "content\u2066", Verdict: Regressed}},
		OnlyBase: []Unpaired{{Case: "case\u2067", AssertionKey: "k", Label: "refund\u202e"}}}
	for format, write := range map[string]func(*strings.Builder) error{
		"text":     func(b *strings.Builder) error { return writeText(b, r) },
		"markdown": func(b *strings.Builder) error { return writeMarkdown(b, r) },
		"junit":    func(b *strings.Builder) error { return writeJUnit(b, r) },
		"json":     func(b *strings.Builder) error { return writeJSON(b, r) },
	} {
		var b strings.Builder
		if err := write(&b); err != nil {
			t.Fatal(err)
		}
		out := b.String()
		for _, c := range out {
			if report.IsBidiControl(c) || c == 0x1b {
				t.Errorf("%s: %U written raw:\n%s", format, c, out)
				break
			}
		}
		want := `refund\u202e\u001b`
		if format == "markdown" { // a backslash is escaped in Markdown, to show as one
			want = `refund\\u202e\\u001b`
		}
		if !strings.Contains(out, want) {
			t.Errorf("%s: the label is not shown escaped:\n%s", format, out)
		}
	}
}

// TestMarkdownCellKeepsTheTable: a label's backslashes and pipes cannot end its cell early: every row of
// the table has the header's 8 unescaped pipes (GitHub Flavored Markdown splits a row on a pipe that no
// backslash escapes, and "\\" is an escaped backslash).
func TestMarkdownCellKeepsTheTable(t *testing.T) {
	for _, label := range []string{`a|b`, `a\|b`, `a\\|b`, `a\`, `\`, `|\|`} {
		r := &Report{Keys: []KeyResult{{AssertionKey: "k", Label: label, Verdict: Unchanged}}}
		var b strings.Builder
		if err := writeMarkdown(&b, r); err != nil {
			t.Fatal(err)
		}
		for _, row := range strings.Split(b.String(), "\n") {
			if !strings.HasPrefix(row, "|") {
				continue
			}
			pipes, escaped := 0, false
			for _, c := range row {
				switch {
				case escaped:
					escaped = false
				case c == '\\':
					escaped = true
				case c == '|':
					pipes++
				}
			}
			if pipes != 8 {
				t.Errorf("label %q: row %q has %d cell pipes, want 8", label, row, pipes)
			}
		}
	}
}
