// plugins_test.go: fuzzing submit_plugin_result's params: every accepted result is well formed.

package rpc

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"attest-engine/assert"
	"attest-engine/tape"
)

// FuzzPluginResult: any params object is either refused with an
// ASSERTION_ERROR naming the assertion, or gives a result whose status is
// one of the three and whose score lies in 0..1.
func FuzzPluginResult(f *testing.F) {
	in, err := os.ReadFile(filepath.Join(transcriptDir, "plugins.jsonl"))
	if err != nil {
		f.Fatal(err)
	}
	for _, line := range strings.Split(string(in), "\n") {
		f.Add([]byte(line))
	}
	f.Fuzz(func(t *testing.T, line []byte) {
		doc, err := tape.Parse(line)
		if err != nil {
			return
		}
		v := doc.Root().Any()
		doc.Release()
		obj, ok := v.(map[string]any)
		if !ok {
			return
		}
		params, ok := obj["params"].(map[string]any)
		if !ok {
			params = obj
		}
		k, r, err := pluginResult(params)
		if err != nil {
			ae, ok := err.(*assert.Error)
			if !ok || !strings.HasPrefix(ae.Error(), "assertion '") {
				t.Fatalf("error %v is not an ASSERTION_ERROR", err)
			}
			return
		}
		if r.Status != assert.Pass && r.Status != assert.SoftFail && r.Status != assert.HardFail {
			t.Fatalf("status %q accepted", r.Status)
		}
		if !(r.Score >= 0 && r.Score <= 1) || k.traceID == "" || k.plugin == "" || k.assertionID == "" || r.AssertionID != k.assertionID {
			t.Fatalf("accepted %+v %+v", k, r)
		}
	})
}
