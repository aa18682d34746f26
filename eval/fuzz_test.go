// fuzz_test.go: fuzzing the eval command's reading of trace and assertion files.

package eval

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"attest-engine/assert"
	"attest-engine/report"
	"attest-engine/trace"
)

// FuzzEvalInput runs the whole eval pipeline on arbitrary trace and
// assertion files. Properties: it never crashes or hangs; the exit status is
// 0, 1 or 2; bad input (2) is always explained on stderr; and whatever
// report was started is one whole JSON document, complete exactly when the
// run did not stop on bad input.
func FuzzEvalInput(f *testing.F) {
	seed := func(name string) []byte {
		b, err := os.ReadFile(filepath.Join(cliDir, name))
		if err != nil {
			f.Fatal(err)
		}
		return b
	}
	pairs := [][2]string{
		{"refund.json", "assertions.json"}, {"traces.ndjson", "per_trace.ndjson"}, {"traces.ndjson", "per_trace_lists.json"},
		{"bad_line.ndjson", "assertions.json"}, {"broken_pretty.json", "empty_list.json"}, {"custom_step.ndjson", "mixed.json"},
		{"traces.ndjson", "too_few.ndjson"}, {"refund.json", "bad_regex.json"}, {"not_json.txt", "object.json"},
	}
	for _, p := range pairs {
		f.Add(seed(p[0]), seed(p[1]))
	}
	f.Add([]byte("\n\n  \n"), []byte("[]"))
	f.Add([]byte(`{"trace_id":"x"}`+"\n"+`[1,2]`), []byte("[[],[]]\n"))
	f.Add([]byte("{\n"), []byte("[\n{\"assertion_id\":\"a\",\"type\":\"content\",\"spec\":{}}\n]"))
	f.Add([]byte(`{"a":1,"a":2}`), []byte("[]\n[]\n[]"))

	eng, err := assert.New(assert.Config{})
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, traces, asserts []byte) {
		var stdout, stderr bytes.Buffer
		c := &evalCmd{tracePath: "traces", assertionsPath: "assertions", format: report.FormatJSON, jobs: 2,
			ev: Evaluator{Engine: eng, Timeout: time.Second}, con: newConsole(&stderr)}
		var code int
		finished := make(chan struct{})
		go func() {
			defer close(finished)
			code = c.run(context.Background(), bytes.NewReader(traces), bytes.NewReader(asserts), func() (io.Writer, func() error, error) {
				return &stdout, func() error { return nil }, nil
			})
		}()
		select {
		case <-finished:
		case <-time.After(20 * time.Second): // every trace has a 1s limit: this is a hang
			t.Fatalf("eval did not finish in 20s")
		}
		switch code {
		case 0, 1:
		case 2:
			if !strings.Contains(stderr.String(), "attest-engine eval: ") {
				t.Errorf("exit 2 without a message on stderr")
			}
		default:
			t.Fatalf("exit status %d", code)
		}
		if stdout.Len() == 0 {
			if code != 2 {
				t.Errorf("exit %d without a report", code)
			}
			return
		}
		var doc struct {
			Totals struct {
				Complete bool
				Traces   int
			}
		}
		if err := json.Unmarshal(stdout.Bytes(), &doc); err != nil {
			t.Fatalf("report is not one JSON document: %v\n%s", err, stdout.Bytes())
		}
		if doc.Totals.Complete != (code != 2) {
			t.Errorf("exit %d but complete=%v", code, doc.Totals.Complete)
		}
		if lines := bytes.Count(traces, []byte("\n")) + 1; doc.Totals.Traces > lines {
			t.Errorf("%d traces reported from %d lines", doc.Totals.Traces, lines)
		}
	})
}

// FuzzDocReader reads any input with any small limit: documents, then
// io.EOF or an *inputError; never a panic, and never more documents than
// lines. A document past the limit (a line, or a whole multi-line
// document) is reported by its size, which exceeds the limit, undecoded;
// any other carries the length of its text, within the limit. An odd limit
// reads leniently (eval's trace file): a bad line is a document with no
// value.
func FuzzDocReader(f *testing.F) {
	for _, name := range []string{"refund.json", "traces.ndjson", "broken_pretty.json", "bad_line.ndjson", "per_trace.ndjson", "repeated_key_first.ndjson"} {
		b, err := os.ReadFile(filepath.Join(cliDir, name))
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b, uint16(0))   // no limit met
		f.Add(b, uint16(300)) // lines and documents past the limit
		f.Add(b, uint16(301)) // the same, read leniently
	}
	f.Fuzz(func(t *testing.T, in []byte, limit uint16) {
		max := trace.MaxLineBytes
		if limit > 0 {
			max = int(limit)
		}
		dr := newDocReader(bytes.NewReader(in), "in", max)
		dr.lenient = limit%2 == 1 // the trace file's reader, as eval runs it
		lines := bytes.Count(in, []byte("\n")) + 1
		for n := 0; ; n++ {
			d, err := dr.next()
			if errors.Is(err, io.EOF) {
				return
			}
			if err != nil {
				var ie *inputError
				if !errors.As(err, &ie) {
					t.Fatalf("error %T %v, want an *inputError", err, err)
				}
				return
			}
			if n >= lines || d.line < 1 || d.line > lines {
				t.Fatalf("document %d on line %d of %d", n+1, d.line, lines)
			}
			if d.bad != "" && (!dr.lenient || d.tv.Exists() || d.tooLong) {
				t.Fatalf("a bad line %q (lenient %v) with a value", d.bad, dr.lenient)
			}
			if d.tooLong && (d.size <= max || d.tv.Exists()) {
				t.Fatalf("too long at %d bytes (limit %d), value %v", d.size, max, d.value())
			}
			if !d.tooLong && d.bad == "" && (d.size < 1 || d.size > max) { // Validate's SourceBytes
				t.Fatalf("a decoded document of %d bytes (limit %d)", d.size, max)
			}
		}
	})
}
