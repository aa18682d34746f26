// encode_test.go: AppendJSON writes what encoding/json writes (HTML escaping off), for tricky values, every golden trace and fuzzed JSON.

package ingest

import (
	"bytes"
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"testing"

	"attest-engine/trace"
)

// stdJSON is what a json.Encoder with SetEscapeHTML(false) writes of v,
// without the newline.
func stdJSON(v any) ([]byte, error) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	err := enc.Encode(v)
	return bytes.TrimSuffix(b.Bytes(), []byte("\n")), err
}

func checkAppendJSON(t *testing.T, v any) {
	t.Helper()
	want, wantErr := stdJSON(v)
	got, err := AppendJSON(nil, v)
	if (err != nil) != (wantErr != nil) {
		t.Fatalf("error %v, encoding/json's %v", err, wantErr)
	}
	if err == nil && !bytes.Equal(got, want) {
		t.Errorf("AppendJSON:\n%s\nencoding/json:\n%s", got, want)
	}
}

// TestAppendJSON: values with every escape, numbers valid and not, nested
// maps (keys sorted, not in insertion order) and other types.
func TestAppendJSON(t *testing.T) {
	for _, v := range []any{
		nil, true, false, "", "plain", "quote \" backslash \\ slash /",
		"\x00\x01\x07\b\f\n\r\t\x1f\x7f", "<html> & 'x'", "\u2028 \u2029 é 😀 \uFFFD",
		"bad utf-8: \xff\xfe \xc3( \xed\xa0\x80", json.Number("0"), json.Number("-12.5e+3"), json.Number("1e21"),
		json.Number(""), json.Number("01"), json.Number("1."), json.Number("+1"), json.Number("1e"), json.Number("NaN"),
		[]any{}, []any{nil, "a", json.Number("1"), map[string]any{}},
		map[string]any{"b": 1.5, "a": []any{map[string]any{"z": "x", "\x01": true, "é": nil}}, "": "empty key"},
		map[string]any{"f": 3.0, "i": 7, "s": []string{"x"}},
		// Nil slices and maps in the model write as null (a GenAI message list absent).
		[]any(nil), map[string]any(nil), map[string]any{"messages": []any(nil), "m": map[string]any(nil)},
	} {
		checkAppendJSON(t, v)
	}
}

// TestAppendJSONGolden: every trace the golden inputs map to.
func TestAppendJSONGolden(t *testing.T) {
	inputs, _ := filepath.Glob("../testdata/ingest/*.input.jsonl")
	if len(inputs) == 0 {
		t.Fatal("no golden inputs")
	}
	for _, in := range inputs {
		data, err := os.ReadFile(in)
		if err != nil {
			t.Fatal(err)
		}
		feed := NewFeed(Limits{}, nil, nil)
		for _, it := range readAll(t, bytes.NewReader(data), 0) {
			feed.Add(it)
		}
		feed.Flush()
		for _, tr := range take(feed) {
			if tr.Value != nil {
				checkAppendJSON(t, tr.Value)
			}
		}
	}
}

// FuzzAppendJSON: any JSON document, decoded into the value model as the
// engine decodes it, is written as encoding/json writes it.
func FuzzAppendJSON(f *testing.F) {
	f.Add([]byte(`{"a":[1,"x\u2028",{"b":null}],"c":-0.5e3}`))
	f.Add([]byte(`"\u0000\ud800"`))
	f.Fuzz(func(t *testing.T, data []byte) {
		v, err := trace.Decode(data)
		if err != nil {
			return
		}
		checkAppendJSON(t, v)
	})
}

// BenchmarkAppendJSON: the basic golden trace, mapped from its spans,
// written by AppendJSON (writer=append) and by encoding/json
// (writer=encoding-json), side by side:
//
//	go test ./ingest -run '^$' -bench AppendJSON -count 6 | tee b.txt; benchstat -col /writer b.txt
func BenchmarkAppendJSON(b *testing.B) {
	data, err := os.ReadFile(dir + "/basic.input.jsonl")
	if err != nil {
		b.Fatal(err)
	}
	feed := NewFeed(Limits{}, nil, nil)
	for _, it := range readAll(b, bytes.NewReader(data), 0) {
		feed.Add(it)
	}
	feed.Flush()
	tr, ok := feed.Next()
	if !ok {
		b.Fatal("no trace")
	}
	b.Run("writer=append", func(b *testing.B) {
		b.ReportAllocs()
		var buf []byte
		for b.Loop() {
			buf, _ = AppendJSON(buf[:0], tr.Value)
		}
	})
	b.Run("writer=encoding-json", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			stdJSON(tr.Value)
		}
	})
}

// TestJSONSize: JSONSize is the length AppendJSON writes, for every golden
// trace and values with every escape, and stops past its limit.
func TestJSONSize(t *testing.T) {
	values := []any{nil, true, false, "", "a\"b\\c\b\f\n\r\t\x01\x1f\u2028\u2029é\xff<>&", json.Number(""), json.Number("-1.5e3"),
		[]any{}, []any(nil), map[string]any{}, map[string]any(nil), []any{1.5, int64(3)},
		map[string]any{"k\n": []any{"x", map[string]any{"a": nil, "b": []any{true}}}}}
	files, _ := filepath.Glob("../testdata/ingest/*.golden.json")
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		v, err := trace.Decode(data)
		if err != nil {
			t.Fatalf("%s: %v", f, err)
		}
		values = append(values, v)
	}
	if len(files) == 0 {
		t.Fatal("no golden traces")
	}
	for i, v := range values {
		text, err := AppendJSON(nil, v)
		if err != nil {
			t.Fatalf("value %d: %v", i, err)
		}
		if got := JSONSize(v, math.MaxInt); got != len(text) {
			t.Errorf("value %d: JSONSize %d, AppendJSON wrote %d bytes: %s", i, got, len(text), text)
		}
		if limit := len(text) / 2; len(text) > 2 && JSONSize(v, limit) <= limit {
			t.Errorf("value %d: JSONSize within limit %d of a %d-byte text", i, limit, len(text))
		}
	}
}
