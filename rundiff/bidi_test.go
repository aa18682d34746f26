// bidi_test.go: labels and case keys from the runs' files cannot drive the terminal or reorder the verdict's text.

package rundiff

import (
	"strings"
	"testing"

	"attest-engine/report"
)

// TestDiffOutputEscapesLabels: a label with an unterminated U+202E and an
// escape sequence, and a case key with U+2067, are shown escaped in the
// text, Markdown and JUnit outputs, so "REGRESSED  label  pass 90% → 50%"
// reads in order and the terminal is not driven.
func TestDiffOutputEscapesLabels(t *testing.T) {
	r := &Report{Base: "a.json", Head: "b.json", Regressed: 1,
		Keys:     []KeyResult{{AssertionKey: "k", Label: "refund\u202e\x1b[31m", Type: "content\u2066", Verdict: Regressed}},
		OnlyBase: []Unpaired{{Case: "case\u2067", AssertionKey: "k", Label: "refund\u202e"}}}
	for format, write := range map[string]func(*strings.Builder) error{
		"text":     func(b *strings.Builder) error { return writeText(b, r) },
		"markdown": func(b *strings.Builder) error { return writeMarkdown(b, r) },
		"junit":    func(b *strings.Builder) error { return writeJUnit(b, r) },
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
		if !strings.Contains(out, `refund\u202e\u001b`) {
			t.Errorf("%s: the label is not shown escaped:\n%s", format, out)
		}
	}
}
