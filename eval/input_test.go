// input_test.go: how a lenient trace reader (eval's) tells NDJSON from one document when the first line is bad.

package eval

import (
	"errors"
	"io"
	"strconv"
	"strings"
	"testing"

	"attest-engine/trace"
)

// TestLenientFirstLine: a first line that is one whole JSON value but for
// a repeated key, or with more after the value, makes the file NDJSON: it
// is a bad document and the lines after it are read. A first line cut
// short may start a document over many lines and is read as one, as the
// strict reader reads every first line.
func TestLenientFirstLine(t *testing.T) {
	tests := []struct {
		name, in string
		lenient  bool
		want     string // per document: its line, "bad" or "ok"; then the error, if any
	}{
		{"repeated key", `{"a":1,"a":2}` + "\n" + `{"b":2}` + "\n", true, "1 bad, 2 ok, EOF"},
		{"trailing data", `{"a":1}}` + "\n\n" + `{"b":2}` + "\n", true, "1 bad, 3 ok, EOF"},
		{"one line repeated key", `{"a":1,"a":2}`, true, "1 bad, EOF"},
		{"cut short", `{"a":` + "\n" + `1}` + "\n", true, "1 ok, EOF"},
		{"cut short, then NDJSON", `{"a":` + "\n" + `{"b":2}` + "\n", true, "error"},
		{"strict: repeated key", `{"a":1,"a":2}` + "\n" + `{"b":2}` + "\n", false, "error"},
	}
	for _, tc := range tests {
		dr := newDocReader(strings.NewReader(tc.in), "in", trace.MaxLineBytes)
		dr.lenient = tc.lenient
		var got []string
		for {
			d, err := dr.next()
			if errors.Is(err, io.EOF) {
				got = append(got, "EOF")
				break
			}
			if err != nil {
				got = append(got, "error")
				break
			}
			state := "ok"
			if d.bad != "" {
				state = "bad"
			}
			got = append(got, strconv.Itoa(d.line)+" "+state)
		}
		if g := strings.Join(got, ", "); g != tc.want {
			t.Errorf("%s: %s, want %s", tc.name, g, tc.want)
		}
	}
}
