// json_fuzz_test.go: FuzzDecode, differential against encoding/json.

package trace

import (
	"bytes"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"testing"
	"unicode/utf8"

	"github.com/google/go-cmp/cmp"
)

// FuzzDecode checks Decode against encoding/json (UseNumber, into any): it
// never panics; whatever encoding/json rejects, Decode rejects; and whatever
// encoding/json accepts that is valid UTF-8, within MaxDepth and free of
// duplicate member names, Decode accepts with an equal value. Duplicates give
// the same value (the later member wins) with a *DuplicateKeyError.
func FuzzDecode(f *testing.F) {
	for _, tt := range decodeValidTests {
		f.Add([]byte(tt.in))
	}
	for _, tt := range decodeInvalidTests {
		f.Add([]byte(tt.in))
	}
	for _, s := range []string{`{"a":1,"a":2}`, nested(MaxDepth), nested(MaxDepth + 1), `{"\ud800":1,"\udc00":2}`} {
		f.Add([]byte(s))
	}
	addGoldenInputs(f)
	f.Fuzz(func(t *testing.T, data []byte) {
		got, err := Decode(data)
		if !json.Valid(data) {
			if !errors.As(err, new(*SyntaxError)) {
				t.Fatalf("encoding/json rejects %q; Decode gave %v, %v", data, got, err)
			}
			return
		}
		if !utf8.Valid(data) {
			// encoding/json replaces invalid UTF-8 in strings; Decode refuses it.
			if !errors.As(err, new(*SyntaxError)) {
				t.Fatalf("invalid UTF-8 %q: Decode gave %v, %v", data, got, err)
			}
			return
		}
		dec := json.NewDecoder(bytes.NewReader(data))
		dec.UseNumber()
		depth, dup, serr := scanTokens(dec, 0)
		if serr != nil {
			t.Fatalf("token scan of valid %q: %v", data, serr)
		}
		if depth > MaxDepth {
			if !errors.As(err, new(*SyntaxError)) {
				t.Fatalf("depth %d > MaxDepth: Decode gave %v", depth, err)
			}
			return
		}
		var want any
		dec = json.NewDecoder(bytes.NewReader(data))
		dec.UseNumber()
		if err := dec.Decode(&want); err != nil {
			t.Fatalf("encoding/json: %v", err)
		}
		switch {
		case dup && !errors.As(err, new(*DuplicateKeyError)):
			t.Fatalf("duplicate names in %q: Decode error %v, want *DuplicateKeyError", data, err)
		case !dup && err != nil:
			t.Fatalf("Decode(%q): %v; encoding/json accepts it", data, err)
		}
		// reflect.DeepEqual first: cmp's slice diffing is exponential in the
		// nesting depth, so it only explains a difference already found.
		if reflect.DeepEqual(want, got) {
			return
		}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Fatalf("Decode(%q) differs from encoding/json (-json +Decode):\n%s", data, diff)
		}
	})
}

// scanTokens reads one value from dec and reports its nesting depth and
// whether some object in it names a member twice: an oracle for Decode
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

// addGoldenInputs seeds a fuzz target with the validation golden inputs.
func addGoldenInputs(f *testing.F) {
	files, err := filepath.Glob(filepath.Join(goldenDir, "*.json"))
	if err != nil {
		f.Fatal(err)
	}
	for _, name := range files {
		data, err := os.ReadFile(name)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(data)
	}
}
