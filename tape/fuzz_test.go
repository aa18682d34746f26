// fuzz_test.go: FuzzParse, differential against encoding/json, with the reading API walked over every value.

package tape

import (
	"bytes"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"testing"
	"unicode/utf8"
)

// FuzzParse checks Parse against encoding/json (UseNumber, into any): it
// never panics; whatever encoding/json rejects, Parse rejects with a
// *SyntaxError; whatever encoding/json accepts that is valid UTF-8, within
// MaxDepth and free of duplicate member names, Parse accepts with an equal
// Any. Duplicates give a Doc with a *DuplicateKeyError and encoding/json's
// value (the later member wins). On every Doc, the reading API walked over
// every value never panics and agrees with itself (see walk).
// surrogateEscape is a \u escape of a surrogate code point, paired or not.
var surrogateEscape = regexp.MustCompile(`\\u[dD][89a-fA-F][0-9a-fA-F]{2}`)

func FuzzParse(f *testing.F) {
	for _, tt := range validTests {
		f.Add([]byte(tt.in))
	}
	for _, tt := range invalidTests {
		f.Add([]byte(tt.in))
	}
	for _, s := range truncated {
		f.Add([]byte(s))
	}
	for _, s := range []string{`{"\ud800":["\udc00","\ud83d\ude00"]}`, `{"a":1,"a":2}`, `{"x":1,"x":{"a":1,"a":2}}`, `{"a":1,"\u0061":{"b":[]}}`, manyMembers(20, `"k3":0`)} {
		f.Add([]byte(s))
	}
	if session, err := os.ReadFile(filepath.Join("..", "testdata", "session.jsonl")); err == nil {
		for line := range bytes.SplitSeq(session, []byte("\n")) {
			f.Add(line)
		}
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		d, err := Parse(data)
		var dup *DuplicateKeyError
		switch {
		case err == nil && d == nil, errors.As(err, &dup) && d == nil:
			t.Fatalf("%q: no Doc, error %v", data, err)
		case err != nil && !errors.As(err, &dup):
			var se *SyntaxError
			if !errors.As(err, &se) || d != nil {
				t.Fatalf("%q: Doc %v, error %T %v; want a *SyntaxError alone", data, d != nil, err, err)
			}
			if se.Offset < 0 || se.Offset > len(data) {
				t.Fatalf("%q: offset %d outside the input", data, se.Offset)
			}
		}
		if d != nil {
			defer d.Release()
			walk(t, d.Root())
			// A lone surrogate is found only where the text escapes a surrogate.
			if path, found := FindLoneSurrogate(d.Root()); found && !surrogateEscape.Match(data) {
				t.Fatalf("%q: a lone surrogate found at %q, but the text escapes no surrogate", data, path)
			}
		}

		if !json.Valid(data) {
			if d != nil {
				t.Fatalf("encoding/json rejects %q; Parse accepts it (error %v)", data, err)
			}
			return
		}
		if !utf8.Valid(data) {
			// encoding/json replaces invalid UTF-8 in strings; Parse refuses it.
			if d != nil {
				t.Fatalf("invalid UTF-8 %q: Parse accepts it", data)
			}
			return
		}
		dec := json.NewDecoder(bytes.NewReader(data))
		dec.UseNumber()
		depth, hasDup, serr := scanTokens(dec, 0)
		if serr != nil {
			t.Fatalf("token scan of valid %q: %v", data, serr)
		}
		if depth > MaxDepth {
			if d != nil {
				t.Fatalf("depth %d > MaxDepth: Parse accepts it", depth)
			}
			return
		}
		switch {
		case d == nil:
			t.Fatalf("Parse(%q): %v; encoding/json accepts it", data, err)
		case hasDup != (dup != nil):
			t.Fatalf("%q: duplicate names %v, Parse error %v", data, hasDup, err)
		}
		var want any
		dec = json.NewDecoder(bytes.NewReader(data))
		dec.UseNumber()
		if err := dec.Decode(&want); err != nil {
			t.Fatalf("encoding/json: %v", err)
		}
		if diff := diffAny(want, d.Root().Any()); diff != "" {
			t.Fatalf("Parse(%q) differs from encoding/json (-json +Parse):\n%s", data, diff)
		}
	})
}

// walk reads every value under v with every method and checks that they
// agree: Text re-parses to the same value, Get of each member name is the
// last member of that name, Index is what Elems yields, Str is Bytes and Is
// holds of it, Len counts what the iterators yield.
func walk(t *testing.T, v Value) {
	text := v.Text()
	if !bytes.HasPrefix(v.d.src[v.Offset():], text) {
		t.Fatalf("Offset %d does not start Text %q", v.Offset(), text)
	}
	d, err := Parse(text) // the cost is the input's size times its depth: bounded by MaxDepth
	if d == nil {
		t.Fatalf("Text %q does not re-parse: %v", text, err)
	}
	if !reflect.DeepEqual(d.Root().Any(), v.Any()) {
		t.Fatalf("Text %q re-parses to %v, not %v", text, d.Root().Any(), v.Any())
	}
	d.Release()
	_, _, _, _ = v.Number(), v.Bool(), v.Len(), v.Kind()
	switch v.Kind() {
	case String:
		s, b := v.Str(), v.Bytes()
		if s != string(b) || !v.Is(s) || v.Is(s+"\x00") {
			t.Fatalf("string %s: Str %q, Bytes %q, Is(Str) %v", text, s, b, v.Is(s))
		}
		if !utf8.ValidString(s) {
			t.Fatalf("string %s decodes to invalid UTF-8 %q", text, s)
		}
	case Array:
		i := 0
		for e := range v.Elems() {
			if v.Index(i) != e {
				t.Fatalf("%s: Index(%d) is not element %d", text, i, i)
			}
			walk(t, e)
			i++
		}
		if i != v.Len() || v.Index(i).Exists() || v.Index(-1).Exists() {
			t.Fatalf("%s: %d elements, Len %d", text, i, v.Len())
		}
	case Object:
		n := 0
		last := map[string]Value{}
		for k, e := range v.Members() {
			if k.Kind() != String {
				t.Fatalf("%s: member name of kind %v", text, k.Kind())
			}
			last[k.Str()] = e
			walk(t, k)
			walk(t, e)
			n++
		}
		if n != v.Len() {
			t.Fatalf("%s: %d members, Len %d", text, n, v.Len())
		}
		for name, e := range last {
			if v.Get(name) != e {
				t.Fatalf("%s: Get(%q) is not the last member of that name", text, name)
			}
		}
	}
}

// scanTokens reads one value from dec and reports its nesting depth and
// whether some object in it names a member twice: an oracle for Parse
// independent of its code.
func scanTokens(dec *json.Decoder, depth int) (maxDepth int, dup bool, err error) {
	tok, err := dec.Token()
	if err != nil {
		return 0, false, err
	}
	maxDepth = depth
	delim, ok := tok.(json.Delim)
	if !ok {
		return maxDepth, false, nil
	}
	var seen map[string]bool
	if delim == '{' {
		seen = make(map[string]bool)
	}
	for dec.More() {
		if seen != nil {
			k, err := dec.Token()
			if err != nil {
				return 0, false, err
			}
			key := k.(string)
			dup = dup || seen[key]
			seen[key] = true
		}
		d, du, err := scanTokens(dec, depth+1)
		if err != nil {
			return 0, false, err
		}
		maxDepth, dup = max(maxDepth, d), dup || du
	}
	if _, err := dec.Token(); err != nil { // the closing delimiter
		return 0, false, err
	}
	return max(maxDepth, depth+1), dup, nil
}
