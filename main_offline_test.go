// main_offline_test.go: --offline means what the server's means for eval and watch too: no request leaves.

package main

import (
	"bytes"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
)

// TestOfflineEveryCommand: with a judge configured, eval and watch call
// it; with --offline they send nothing and the judged result is an error
// (a cache miss), as for the server.
func TestOfflineEveryCommand(t *testing.T) {
	var calls atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		calls.Add(1)
		http.Error(w, "no", http.StatusBadRequest) // fails at once: no retry
	}))
	defer srv.Close()
	t.Setenv("OPENAI_API_KEY", "sk-test")
	t.Setenv("OPENAI_BASE_URL", srv.URL)
	t.Setenv("ATTEST_CACHE_DIR", "")
	dir := t.TempDir()
	judge := `{"target":"output.message","criteria":"Confirms the refund","threshold":0.5}`
	asserts := filepath.Join(dir, "assertions.json")
	suite := filepath.Join(dir, "suite.json")
	for path, text := range map[string]string{
		asserts: `[{"assertion_id":"j","type":"llm_judge","spec":` + judge + `}]`,
		suite:   `{"assertions":[{"name":"j","type":"llm_judge","spec":` + judge + `}]}`,
	} {
		if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	tests := []struct {
		name string
		args []string
	}{
		{"eval", []string{"eval", "--trace", "testdata/cli/refund.json", "--assertions", asserts, "--format", "json"}},
		{"watch", []string{"watch", "--suite", suite, "--in", "testdata/watch/traces.jsonl", "--deterministic"}},
	}
	for _, tc := range tests {
		for _, offline := range []bool{false, true} {
			calls.Store(0)
			args := tc.args
			if offline {
				args = append(append([]string{}, args...), "--offline")
			}
			var out, errb bytes.Buffer
			run(args, strings.NewReader(""), &out, &errb)
			if n := calls.Load(); (n > 0) == offline {
				t.Errorf("%s, offline %v: %d requests to the judge\nstdout %s\nstderr %s", tc.name, offline, n, out.String(), errb.String())
			}
			if offline && !strings.Contains(out.String(), "offline") {
				t.Errorf("%s --offline: the judged result does not say offline:\n%s", tc.name, out.String())
			}
		}
	}
}
