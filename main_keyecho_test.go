// main_keyecho_test.go: a provider that echoes the API key into its replies: the key reaches no answer, report, watch output or cache_dir.

package main

import (
	"encoding/base64"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// echoKey has characters that base64 and URL-encoding change.
const echoKey = "sk-echo+Key/0123456789_SECRET-xyz"

// echoForms are pieces of the key as the echoing provider writes it: what
// no output may hold.
func echoForms() map[string]string {
	std := base64.StdEncoding.EncodeToString([]byte(echoKey))
	bearer := base64.RawURLEncoding.EncodeToString([]byte("Bearer " + echoKey))
	return map[string]string{
		"raw":                              echoKey,
		"URL-encoded":                      url.QueryEscape(echoKey),
		"base64":                           std[:len(std)-4],
		"base64url of the Bearer header":   bearer[12 : len(bearer)-4],
		"the key's distinctive middle bit": "0123456789_SECRET",
	}
}

// echoingProvider answers chat completions with a verdict whose reason
// quotes the request's key raw, in base64 (of the key, and URL-alphabet of
// the whole Authorization header) and URL-encoded.
func echoingProvider(t *testing.T) *httptest.Server {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		auth := r.Header.Get("Authorization")
		key := strings.TrimPrefix(auth, "Bearer ")
		reason := "Debug: key " + key + " b64 " + base64.StdEncoding.EncodeToString([]byte(key)) +
			" header " + base64.RawURLEncoding.EncodeToString([]byte(auth)) + " q=" + url.QueryEscape(key)
		content, _ := json.Marshal(map[string]any{"score": 0.5, "reason": reason})
		w.Header().Set("Content-Type", "application/json")
		json.NewEncoder(w).Encode(map[string]any{"choices": []any{map[string]any{"message": map[string]any{"content": string(content)}}},
			"usage": map[string]any{"prompt_tokens": 10, "completion_tokens": 5}})
	}))
	t.Cleanup(srv.Close)
	return srv
}

// TestBinaryEchoedKeyScrubbed: with a provider that echoes the key into a
// successful judge reason, the key in none of its forms reaches the
// server's answers and log, its --report in every format, eval's reports,
// watch's result lines, or the files of cache_dir; each shows the reason,
// marked "[redacted]" where the key was.
func TestBinaryEchoedKeyScrubbed(t *testing.T) {
	bin := buildEngine(t)
	srv := echoingProvider(t)
	dir := t.TempDir()
	cacheDir := filepath.Join(dir, "cache")
	env := []string{"OPENAI_BASE_URL=" + srv.URL + "/v1", "OPENAI_API_KEY=" + echoKey, "ATTEST_OPENAI_API_KEY=",
		"ANTHROPIC_API_KEY=", "ANTHROPIC_BASE_URL=", "ATTEST_CACHE_DIR=" + cacheDir}
	for _, kv := range env {
		k, v, _ := strings.Cut(kv, "=")
		t.Setenv(k, v)
	}
	judge := `{"assertion_id":"judge","type":"llm_judge","spec":{"rubric":"helpfulness","threshold":0.8}}`
	outputs := map[string]string{} // what was written, by where

	// The server, with a report in each format; the second and later
	// sessions read the verdict back from cache_dir.
	for _, ext := range []string{"txt", "json", "xml", "html"} {
		report := filepath.Join(dir, "session."+ext)
		e := start(t, bin, "--report", report)
		e.send(t, init56, batch56("echo", refundMsg, judge), `{"jsonrpc":"2.0","id":"bye","method":"shutdown","params":{}}`)
		e.stdin.Close()
		order, byID := readAll(t, e)
		e.wait(t)
		b, _ := json.Marshal(byID)
		outputs["server answers ("+ext+")"] = strings.Join(order, " ") + string(b)
		outputs["server log ("+ext+")"] = e.stderr.String()
		outputs["--report "+ext] = readFile(t, report)
	}

	trace := filepath.Join(dir, "trace.json")
	var line struct {
		Params struct{ Trace json.RawMessage } `json:"params"`
	}
	if err := json.Unmarshal([]byte(batch56("echo", refundMsg, judge)), &line); err != nil {
		t.Fatal(err)
	}
	writeFile(t, trace, string(line.Params.Trace))
	assertions := filepath.Join(dir, "assertions.json")
	writeFile(t, assertions, "["+judge+"]")
	for _, format := range []string{"text", "json", "junit", "html"} {
		out := filepath.Join(dir, "eval."+format)
		cmd := exec.Command(bin, "eval", "--trace", trace, "--assertions", assertions, "--format", format, "--output", out)
		if b, err := cmd.CombinedOutput(); err != nil && cmd.ProcessState.ExitCode() != 1 {
			t.Fatalf("eval --format %s: %v\n%s", format, err, b)
		}
		outputs["eval --format "+format] = readFile(t, out)
	}

	suite := filepath.Join(dir, "suite.json")
	writeFile(t, suite, `{"assertions":[{"name":"judge","type":"llm_judge","spec":{"rubric":"helpfulness","threshold":0.8}}]}`)
	os.RemoveAll(cacheDir) // watch asks the provider itself
	watched, code := runWatch(t, bin, []byte(string(line.Params.Trace)+"\n"), env, "--suite", suite, "--deterministic")
	if code != 0 {
		t.Fatalf("watch: exit %d", code)
	}
	outputs["watch results"] = watched

	files, _ := os.ReadDir(cacheDir)
	if len(files) == 0 {
		t.Fatal("cache_dir holds no file: the verdict was not cached")
	}
	for _, f := range files {
		outputs["cache_dir/"+f.Name()] = readFile(t, filepath.Join(cacheDir, f.Name()))
	}

	for where, text := range outputs {
		for form, piece := range echoForms() {
			if strings.Contains(text, piece) {
				t.Errorf("%s holds the key (%s)", where, form)
			}
		}
		if !strings.Contains(where, "log") && !strings.Contains(text, "[redacted]") {
			t.Errorf("%s does not show the judge's reason with the key marked [redacted]:\n%s", where, text)
		}
	}
}

func readFile(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func writeFile(t *testing.T, path, text string) {
	t.Helper()
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
}
