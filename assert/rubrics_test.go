// rubrics_test.go: a rubric is a built-in name, or free text when it has white space; one unknown word is an error.

package assert

import (
	"errors"
	"strings"
	"testing"
)

func TestRubricText(t *testing.T) {
	tests := []struct {
		name, reason, rubric string
		want                 string // the text, or "error: <message>"
	}{
		{"builtin", "a built-in name is its rubric", "tone", rubrics["tone"]},
		{"padded builtin", "white space around a built-in name does not make it free text", "  helpfulness\n", rubrics["helpfulness"]},
		{"free text", "white space inside: the author's own rubric, trimmed", " Score 1.0 if the refund ID is given. ", "Score 1.0 if the refund ID is given."},
		{"unicode space", "any Unicode white space marks free text", "polite\u00a0and\u00a0brief", "polite\u00a0and\u00a0brief"},
		{"unknown word", "one word that is no built-in rubric: 1002 naming them", "professional_tone", "error: unknown rubric 'professional_tone'"},
		{"padded unknown word", "padding does not turn a word into free text", " professional_tone ", "error: unknown rubric 'professional_tone'"},
		{"blank", "white space only", " \t ", "error: rubric is blank"},
		{"too long", "free text is bounded", "a " + strings.Repeat("b", maxRubricText), "error: rubric text exceeds 10000 bytes (actual: 10002 bytes)"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := rubricText(strings.TrimSpace(tc.rubric))
			var se *specError
			if errors.As(err, &se) {
				got = "error: " + se.msg
				if strings.HasPrefix(tc.want, "error: unknown") && !strings.Contains(se.detail, rubricNames()) {
					t.Errorf("detail %q does not name the built-in rubrics", se.detail)
				}
			} else if err != nil {
				t.Fatal(err)
			}
			if got != tc.want {
				t.Errorf("%s: %q, want %q", tc.reason, got, tc.want)
			}
		})
	}
}
