// clipname_test.go: a name quoted in an error is cut at a character boundary.

package history

import (
	"strings"
	"testing"
	"unicode/utf8"
)

// TestClipName: a long name in a summaries-file error is cut to 64 bytes
// without splitting a character (a byte cut wrote invalid UTF-8 into the
// message), and marked.
func TestClipName(t *testing.T) {
	name := strings.Repeat("a", 63) + "é" + strings.Repeat("b", 10) // é spans bytes 63 and 64
	got := clipName(name)
	if !utf8.ValidString(got) || got != strings.Repeat("a", 63)+"…" {
		t.Errorf("clipName = %q, want 63 a's and …", got)
	}
	if short := "résumé"; clipName(short) != short {
		t.Errorf("a short name is changed: %q", clipName(short))
	}
}
