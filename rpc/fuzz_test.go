// fuzz_test.go: fuzz targets for the framing, the envelope, id recovery and the hand-built encoder.

package rpc

import (
	"bytes"
	"context"
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"attest-engine/assert"
)

// FuzzServe feeds arbitrary bytes to an initialized server: it must never
// crash or hang, and everything it writes is one compact JSON object per line
// carrying jsonrpc "2.0" and either a result or an error. limit, when not 0,
// lowers the line limit to that many bytes past the initialize line, so that
// too-long lines (toolong.go) are reached without 16 MiB inputs.
//
// Minimizing each new multi-kilobyte input stalls fuzzing for up to a
// minute at a time: run with -fuzzminimizetime 5x (FuzzKnownSpecs too).
func FuzzServe(f *testing.F) {
	files, _ := filepath.Glob(filepath.Join(transcriptDir, "*.jsonl"))
	for _, name := range files {
		if data, err := os.ReadFile(name); err == nil && len(data) < 1<<16 {
			f.Add(data, uint16(0))
		}
	}
	if data, err := os.ReadFile("../testdata/simulate/scenario.jsonl"); err == nil { // the simulation methods
		f.Add(data, uint16(0))
	}
	f.Add([]byte("{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"evaluate_batch\",\"params\":{\"trace\":{\"a\":[[[[\n"), uint16(0))
	// Known specs (assert/spectext.go): the same specs again, then with a
	// decoy "spec" member at the same depth in the trace.
	spec := specBatchLine(f)
	decoy := strings.Replace(spec, `"context":{}`, `"context":{},"spec":{"decoy":1}`, 1)
	f.Add([]byte(spec+"\n"+strings.Replace(spec, `"id":2,`, `"id":3,`, 1)+"\n"+decoy+"\n"), uint16(0))
	// Too long: the batch line, its id recovered from its start; a request
	// after it is still answered.
	f.Add([]byte(spec+"\n"+`{"jsonrpc":"2.0","id":4,"method":"shutdown"}`+"\n"), uint16(200))
	eng, err := assert.New(assert.Config{})
	if err != nil {
		f.Fatal(err)
	}
	const init = `{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"sdk_name":"f","sdk_version":"0","protocol_version":1,"required_capabilities":[],"preferred_encoding":"json"}}` + "\n"
	f.Fuzz(func(t *testing.T, input []byte, limit uint16) {
		s := New(Options{Engine: eng})
		if limit > 0 {
			s.maxLine = len(init) + int(limit)
		}
		var out bytes.Buffer
		if err := s.Serve(context.Background(), bytes.NewReader(append([]byte(init), input...)), &out); err != nil {
			t.Fatal(err)
		}
		for _, line := range bytes.SplitAfter(out.Bytes(), []byte("\n")) {
			if len(line) == 0 {
				continue
			}
			var msg struct {
				JSONRPC string          `json:"jsonrpc"`
				Result  json.RawMessage `json:"result"`
				Error   json.RawMessage `json:"error"`
			}
			if line[len(line)-1] != '\n' || bytes.Count(line, []byte("\n")) != 1 {
				t.Fatalf("not one line: %q", line)
			}
			if err := json.Unmarshal(line, &msg); err != nil || msg.JSONRPC != "2.0" || (msg.Result == nil) == (msg.Error == nil) {
				t.Fatalf("bad answer line %q (%v)", line, err)
			}
		}
	})
}

// FuzzRecoverID: scanning any prefix of a line for its id never panics, and
// what it finds is an id an answer may carry.
func FuzzRecoverID(f *testing.F) {
	f.Add([]byte(`{"jsonrpc":"2.0","id":"x","method":"evaluate_batch","params":{"trace":{`))
	f.Add([]byte(`{"id":12,"method":"evaluate_batch"}`))
	f.Add([]byte(`{"jsonrpc":"2.0","id":16,"method":"evaluate_batch","params":{"trace":{"metadata":{"cost_usd":NaN}}}}`))
	f.Add([]byte(`{"params":{"trace":{"x":-Infinity}},"jsonrpc":"2.0","id":"py-20","method":"evaluate_batch"}`))
	f.Add([]byte(`{"jsonrpc":"2.0","id":19,"params":{"trace":[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[`))
	f.Add([]byte(`{"params":{"id":1},"id":"\"q\\"}`))
	f.Add([]byte(`{"jsonrpc":"2.0","id":1,"method":"evaluate_batch","params":{}}`))
	f.Add([]byte(`{"params":{"method":"shutdown"},"jsonrpc":"2.0","method":"evaluate_batch","id":2}`))
	f.Fuzz(func(t *testing.T, b []byte) {
		id, _, found := recoverID(b)
		if found {
			switch id.(type) {
			case string, json.Number:
			default:
				t.Fatalf("recovered id of type %T", id)
			}
		}
		// The fast path's sniffed method must be the method a full decode
		// reads, whenever the line is a well-formed request.
		if m, ok := sniffMethod(b); ok {
			if req, perr := parse(b); perr == nil && req.method != string(m) {
				t.Fatalf("sniffed method %q, decoded %q", m, req.method)
			}
		}
	})
}

// FuzzEncode: the hand-built encoder (encode.go) against encoding/json.
// appendString writes any string, trace text included, as one JSON string
// that reads back as that string with each invalid UTF-8 byte as U+FFFD,
// and with no raw control character, U+2028 or U+2029 (the line stays one
// line for any JSON reader). appendFloat writes a finite float as a JSON
// number that reads back as the same float, with a point or an exponent so
// that typed SDKs read a float; NaN and infinities as 0.0.
func FuzzEncode(f *testing.F) {
	f.Add("refund \"ORD-123\"\n\t\\ \u2028\u2029 \x00\x1f\x7f é 🙂 \ufffd", 0.0067)
	f.Add("\xff\xfe\xc3 \xed\xa0\x80 \xe2\x80", 1e21)
	f.Add("", -1e-7)
	f.Add("<script>&", 1.0)
	f.Fuzz(func(t *testing.T, s string, x float64) {
		b := appendString(nil, s)
		var got string
		if err := json.Unmarshal(b, &got); err != nil {
			t.Fatalf("appendString(%q) = %s: %v", s, b, err)
		}
		if want := string([]rune(s)); got != want {
			t.Fatalf("appendString(%q) = %s reads back as %q, want %q", s, b, got, want)
		}
		for _, c := range b {
			if c < 0x20 {
				t.Fatalf("appendString(%q) = %q: raw control character", s, b)
			}
		}
		if bytes.Contains(b, []byte("\u2028")) || bytes.Contains(b, []byte("\u2029")) {
			t.Fatalf("appendString(%q) = %q: raw U+2028 or U+2029", s, b)
		}

		fb := string(appendFloat(nil, x))
		if math.IsNaN(x) || math.IsInf(x, 0) {
			if fb != "0.0" {
				t.Fatalf("appendFloat(%v) = %s, want 0.0", x, fb)
			}
			return
		}
		var n json.Number
		if err := json.Unmarshal([]byte(fb), &n); err != nil {
			t.Fatalf("appendFloat(%v) = %s: not a JSON number: %v", x, fb, err)
		}
		if y, err := strconv.ParseFloat(fb, 64); err != nil || y != x {
			t.Fatalf("appendFloat(%v) = %s reads back as %v (%v)", x, fb, y, err)
		}
		if !strings.ContainsAny(fb, ".e") {
			t.Fatalf("appendFloat(%v) = %s: no point or exponent", x, fb)
		}
	})
}
