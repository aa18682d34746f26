// envelope_test.go: the envelope read from the tape against the same rules applied to the decoded value.

package rpc

import (
	"encoding/json"
	"errors"
	"testing"

	"github.com/google/go-cmp/cmp"

	"attest-engine/tape"
)

// FuzzEnvelope: parse answers every line as the envelope rules applied to
// the line decoded whole (map[string]any, a member named twice counting by
// its last occurrence) would: the same id, notification flag, method and
// error, a duplicate member's error coming after the envelope's own.
func FuzzEnvelope(f *testing.F) {
	for _, s := range []string{
		`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{}}`,
		`{"jsonrpc":"2.0","method":"evaluate_batch","params":{"trace":{},"assertions":[]}}`,
		`{"jsonrpc":"2.0","id":"a","id":2,"method":"x"}`,
		`{"jsonrpc":"2.0","id":[1],"method":"x"}`,
		`{"jsonrpc":"2.0","id":null,"method":7}`,
		`{"jsonrpc":"1.0","id":1,"method":"x","params":null}`,
		`{"jsonrpc":"2.0","id":1,"method":"x","params":[1]}`,
		`{"jsonrpc":"2.0","\u0069d":1.50,"method":"x","params":{"a":1,"a":2}}`,
		`{"jsonrpc":"2.0","id":1,"method":"x","method":"evaluate_batch"}`,
		`[{"jsonrpc":"2.0"}]`,
		`"x"`,
		`{"id":1e400,"jsonrpc":"2\u002e0","method":"\ud800"}`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, line []byte) {
		doc, err := tape.Parse(line)
		var dup *tape.DuplicateKeyError
		if err != nil && !errors.As(err, &dup) {
			return // -32700: the goldens and FuzzRecoverID
		}
		v := doc.Root().Any()
		doc.Release()
		want, wantErr := envelopeOfValue(v)
		if wantErr == nil && dup != nil {
			wantErr = newError(codeInvalidRequest, "Each object member name may appear only once.", "invalid request: %s", dup.Error())
		}
		if wantErr != nil && want != nil {
			want.notification = false
		}
		got, gotErr := parse(line)
		defer got.release()
		if d := cmp.Diff(wantErr, gotErr); d != "" {
			t.Fatalf("error (-decoded +tape):\n%s", d)
		}
		if (want == nil) != (got == nil) {
			t.Fatalf("request %v, want %v", got, want)
		}
		if want == nil {
			return
		}
		if want.id != got.id || want.notification != got.notification || want.method != got.method {
			t.Fatalf("id %#v notification %v method %q; want %#v %v %q", got.id, got.notification, got.method, want.id, want.notification, want.method)
		}
		if gotErr == nil && got.method != "evaluate_batch" && !cmp.Equal(want.params, got.params) {
			t.Fatalf("params %v, want %v", got.params, want.params)
		}
	})
}

// envelopeOfValue is the envelope's rules (JSON-RPC 2.0 §4–5) on a decoded
// line, in the order parse checks them.
func envelopeOfValue(v any) (*request, *Error) {
	obj, ok := v.(map[string]any)
	if !ok {
		if _, isArray := v.([]any); isArray {
			return nil, newError(codeInvalidRequest, "Send one JSON-RPC request object per line; batch arrays are not part of the Attest protocol (spec §1.2).", "invalid request: batch arrays are not supported")
		}
		return nil, newError(codeInvalidRequest, "Send a JSON-RPC 2.0 request object.", "invalid request: not a JSON object")
	}
	req := &request{}
	id, hasID := obj["id"]
	switch id.(type) {
	case string, json.Number, nil:
		req.id, req.notification = id, !hasID
	default:
		return req, newError(codeInvalidRequest, "The id must be a string, a number or null.", "invalid request: id must be a string or a number")
	}
	if obj["jsonrpc"] != "2.0" {
		return req, newError(codeInvalidRequest, `Set "jsonrpc": "2.0" in every request.`, `invalid request: jsonrpc must be "2.0"`)
	}
	method, ok := obj["method"].(string)
	if !ok {
		return req, newError(codeInvalidRequest, "Name the method as a string.", "invalid request: method must be a string")
	}
	req.method = method
	switch p := obj["params"].(type) {
	case map[string]any:
		req.params = p
	case nil:
		if _, present := obj["params"]; present {
			return req, newError(codeInvalidParams, "Send params as a JSON object.", "invalid params: params must be an object")
		}
		req.params = map[string]any{}
	default:
		return req, newError(codeInvalidParams, "Send params as a JSON object.", "invalid params: params must be an object")
	}
	return req, nil
}
