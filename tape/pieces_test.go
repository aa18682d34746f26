// pieces_test.go: RuneCount against the decoded string; finding lone surrogate escapes.

package tape

import (
	"runtime"
	"strings"
	"testing"
	"unicode/utf8"
)

func TestRuneCount(t *testing.T) {
	tests := []struct {
		in   string
		want int
	}{
		{`""`, 0},
		{`"abc"`, 3},
		{`"café"`, 4},
		{`"caf\u00e9"`, 4},
		{`"\ud83d\ude00!"`, 2}, // a surrogate pair is one code point
		{`"\ud83d x"`, 3},      // a lone surrogate decodes to U+FFFD
		{`"a\n\"b\\"`, 5},      // short escapes
		{`"\u2028 \u2029"`, 3}, // escaped line separators
		{"\"\u2028\"", 1},      // raw
		{`"😀\t😀"`, 3},          // runs around an escape
		{`123`, 0},             // not a string
		{`["a"]`, 0},           // not a string
	}
	for _, tt := range tests {
		d, err := Parse([]byte(tt.in))
		if err != nil {
			t.Fatalf("Parse(%s): %v", tt.in, err)
		}
		v := d.Root()
		if got := v.RuneCount(); got != tt.want {
			t.Errorf("RuneCount(%s) = %d, want %d", tt.in, got, tt.want)
		}
		if v.Kind() == String {
			if got, want := v.RuneCount(), utf8.RuneCount(v.Bytes()); got != want {
				t.Errorf("RuneCount(%s) = %d, utf8.RuneCount(Bytes) = %d", tt.in, got, want)
			}
		}
		d.Release()
	}
}

// TestFindLoneSurrogate: a surrogate escape not paired with its other half is found, with its path, in
// values and member names; pairs, U+FFFD itself and surrogate-looking text that is not an escape are not.
func TestFindLoneSurrogate(t *testing.T) {
	tests := []struct {
		in, path string
		found    bool
	}{
		{`"\ud800"`, "", true},
		{`"\udc00"`, "", true},
		{`"\uDBFF x"`, "", true},
		{`"\ud800\u0041"`, "", true},       // high then a non-surrogate escape
		{`"\udc00\ud800"`, "", true},       // low then high: two lone halves
		{`"\ud83d\ude00\ud800"`, "", true}, // a pair, then a lone one
		{`"\ud83d\ude00"`, "", false},      // a pair
		{`"\ufffd"`, "", false},            // the replacement character itself
		{"\"\xef\xbf\xbd\"", "", false},    // raw U+FFFD
		{`"\\ud800"`, "", false},           // an escaped backslash, then text
		{`"\u00e9\n"`, "", false},          // other escapes
		{`{"a":{"b":["x","\ud800"]}}`, "a.b[1]", true},
		{`{"ok":"\ud83d\ude00","k\udc00":1}`, "k\uFFFD", true}, // a member name: its decoded name
		{`[1,true,null,{"a":"\ud800"}]`, "[3].a", true},
		{`{"a":[1,2,{"b":"c"}]}`, "", false},
	}
	for _, tt := range tests {
		d, err := Parse([]byte(tt.in))
		if err != nil {
			t.Fatalf("Parse(%s): %v", tt.in, err)
		}
		path, found := FindLoneSurrogate(d.Root())
		if found != tt.found || path != tt.path {
			t.Errorf("FindLoneSurrogate(%s) = %q, %v; want %q, %v", tt.in, path, found, tt.path, tt.found)
		}
	}
}

// TestFindLoneSurrogateLinear: looking through a document nested 400 deep with 10 KiB member names (4 MB)
// and no lone surrogate allocates less than the document's size. It failed when each value's path was built
// on the way down: every value cost a copy of its ancestors' names, 800 MB for this one.
func TestFindLoneSurrogateLinear(t *testing.T) {
	const depth, nameLen = 400, 10 << 10
	var b strings.Builder
	for i := range depth {
		b.WriteString(`{"` + strings.Repeat(string(rune('a'+i%26)), nameLen) + `":`)
	}
	b.WriteString(`"\ud83d\ude00"`)
	b.WriteString(strings.Repeat("}", depth))
	d, err := Parse([]byte(b.String()))
	if err != nil {
		t.Fatal(err)
	}
	defer d.Release()
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	if path, found := FindLoneSurrogate(d.Root()); found {
		t.Fatalf("found a lone surrogate at %.40q…", path)
	}
	runtime.ReadMemStats(&after)
	if got := after.TotalAlloc - before.TotalAlloc; got > uint64(b.Len()) {
		t.Errorf("looking through %d bytes nested %d deep allocated %d bytes", b.Len(), depth, got)
	}
}
