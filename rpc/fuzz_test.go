// fuzz_test.go: fuzz targets for the framing, the envelope and id recovery.

package rpc

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
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
// minute at a time: run with -fuzzminimizetime 5x (FuzzMemos too).
func FuzzServe(f *testing.F) {
	files, _ := filepath.Glob(filepath.Join(transcriptDir, "*.jsonl"))
	for _, name := range files {
		if data, err := os.ReadFile(name); err == nil && len(data) < 1<<16 {
			f.Add(data, uint16(0))
		}
	}
	f.Add([]byte("{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"evaluate_batch\",\"params\":{\"trace\":{\"a\":[[[[\n"), uint16(0))
	// The assertions memo (memo.go): the same assertions again, then with
	// a decoy "assertions" member elsewhere in the line.
	spec := specBatchLine(f)
	decoy := strings.Replace(spec, `"params":{`, `"extra":{"assertions":[{"decoy":1}]},"params":{`, 1)
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
			if req, perr := parse(b); perr == nil && req.method != m {
				t.Fatalf("sniffed method %q, decoded %q", m, req.method)
			}
		}
	})
}
