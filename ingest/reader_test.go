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
	r := NewReader(strings.NewReader(input), FormatAuto, 100)
	var got []string
	for {
		it, err := r.Next()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
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

func itoa(n int) string { return string(num(n)) }
