package ingest

import (
	"errors"
	"io"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestReaderBounds: a line over the bound is read to its end and becomes an
// error item naming its size; the lines after it are read as usual, blank
// ones skipped, and a last line without LF counts.
func TestReaderBounds(t *testing.T) {
	long := `{"schema_version":1,"trace_id":"` + strings.Repeat("x", 200) + `","output":{"a":1}}`
	input := `{"schema_version":1,"trace_id":"a","output":{"a":1}}` + "\n\n" + long + "\n" +
		`{"resourceSpans":[]}` + "\n" + `{"schema_version":1,"trace_id":"b","output":{"a":1}}`
	var got []string
	for _, it := range readAll(t, strings.NewReader(input), 100) {
		switch {
		case it.Trace != nil && it.Trace.Err != nil:
			got = append(got, "error: "+it.Trace.Err.Error())
		case it.Trace != nil:
			got = append(got, "trace "+it.Trace.ID)
		default:
			got = append(got, "otlp")
		}
	}
	want := []string{
		"trace a",
		"error: input line too long: " + itoa(len(long)) + " bytes, more than 100",
		"otlp",
		"trace b",
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
}

// TestTooLongDigest: an over-long line is named by its length and its
// first max bytes, contiguous, whatever the chunks it was read in: lines
// that differ there are told apart, lines that differ only past them are
// not (they were never held).
func TestTooLongDigest(t *testing.T) {
	const max = 100
	a := strings.Repeat("a", 300)
	b := "b" + a[1:]               // differs in the bytes held
	c := a[:max] + "c" + a[max+1:] // differs only past them
	long := strings.Repeat("x", 200<<10)
	input := a + "\n" + b + "\n" + c + "\n" + long + "\n" + a
	var got []string
	for _, it := range readAll(t, strings.NewReader(input), max) {
		if it.Trace == nil || !errors.Is(it.Trace.Err, ErrLineTooLong) {
			t.Fatalf("line %d: not a too-long item: %+v", it.Line, it)
		}
		got = append(got, it.Trace.Digest)
	}
	want := []string{digest([]byte(a[:max]), len(a)), digest([]byte(b[:max]), len(b)), digest([]byte(a[:max]), len(a)),
		digest([]byte(long[:max]), len(long)), digest([]byte(a[:max]), len(a))}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("digests (-want +got):\n%s", diff)
	}
	if got[0] == got[1] {
		t.Error("two lines that differ in their first bytes share a digest")
	}
}

// readAll reads every item of an input.
func readAll(t testing.TB, in io.Reader, max int) []Item {
	t.Helper()
	r := NewReader(in, FormatAuto, max)
	var items []Item
	for {
		it, err := r.Next()
		if errors.Is(err, io.EOF) {
			return items
		}
		if err != nil {
			t.Fatal(err)
		}
		items = append(items, it)
	}
}

func itoa(n int) string { return string(num(n)) }
