// main_earlier_test.go: what users of the earlier engine set (../shared/sdk-compat.md): the version subcommand, usage errors, ATTEST_* variables, capability names.

package main

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"attest-engine/version"
)

func TestBinaryCommandLine(t *testing.T) {
	bin := buildEngine(t)
	tests := []struct {
		name, reason string
		args         []string
		wantCode     int
		wantStdout   string
		wantStderr   []string
	}{
		{"version subcommand", "the earlier engine's subcommand prints attest-engine <semver>", []string{"version"}, 0, "attest-engine " + version.Engine + "\n", nil},
		{"--version", "the same line as the subcommand", []string{"--version"}, 0, "attest-engine " + version.Engine + "\n", nil},
		{"unknown subcommand", "an unknown command is a usage error, not a server started silently", []string{"monitor", "--interval", "5"}, 2, "",
			[]string{`attest-engine: unknown command "monitor"`, "usage:", "attest-engine version", "-log-level"}},
		{"the earlier engine's watch flags", "watch is the continuous-evaluation command: its flag set refuses the earlier --interval", []string{"watch", "--interval", "5"}, 2, "",
			[]string{"flag provided but not defined: -interval", "-suite"}},
		{"stray argument", "an argument after the flags is an error, not ignored", []string{"--log-level=warn", "extra"}, 2, "",
			[]string{`attest-engine: unexpected argument "extra"`, "usage:"}},
		{"version with an argument", "version takes no arguments", []string{"version", "--json"}, 2, "",
			[]string{`version takes no arguments, got "--json"`}},
		{"help", "-h prints usage and succeeds", []string{"-h"}, 0, "", []string{"usage:", "attest-engine eval [flags]"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			cmd := exec.Command(bin, tc.args...)
			cmd.Stdin = strings.NewReader("")
			var stdout, stderr strings.Builder
			cmd.Stdout, cmd.Stderr = &stdout, &stderr
			err := cmd.Run()
			code := 0
			if ee, ok := err.(*exec.ExitError); ok {
				code = ee.ExitCode()
			}
			if code != tc.wantCode || stdout.String() != tc.wantStdout {
				t.Errorf("%s: exit %d, stdout %q; want %d, %q (stderr %s)", tc.reason, code, stdout.String(), tc.wantCode, tc.wantStdout, stderr.String())
			}
			for _, w := range tc.wantStderr {
				if !strings.Contains(stderr.String(), w) {
					t.Errorf("%s: stderr %q lacks %q", tc.reason, stderr.String(), w)
				}
			}
		})
	}
}

// recorder is an OpenAI- and Anthropic-compatible stand-in that records the
// path and model of every call.
type recorder struct {
	*httptest.Server
	mu    sync.Mutex
	calls []string // "path model"
}

func newRecorder(t *testing.T) *recorder {
	r := &recorder{}
	r.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		var body struct {
			Model string   `json:"model"`
			Input []string `json:"input"`
		}
		_ = json.NewDecoder(req.Body).Decode(&body)
		r.mu.Lock()
		r.calls = append(r.calls, req.URL.Path+" "+body.Model)
		r.mu.Unlock()
		w.Header().Set("Content-Type", "application/json")
		const verdict = `{\"score\": 0.9, \"reason\": \"Confirms the refund.\"}`
		switch req.URL.Path {
		case "/v1/embeddings":
			var data []string
			for i := range body.Input {
				data = append(data, fmt.Sprintf(`{"index":%d,"embedding":[0.6,0.8]}`, i))
			}
			fmt.Fprintf(w, `{"data":[%s],"usage":{"prompt_tokens":10,"total_tokens":10}}`, strings.Join(data, ","))
		case "/v1/chat/completions":
			io.WriteString(w, `{"choices":[{"message":{"content":"`+verdict+`"}}],"usage":{"prompt_tokens":100,"completion_tokens":20}}`)
		case "/v1/messages":
			io.WriteString(w, `{"type":"message","role":"assistant","content":[{"type":"text","text":"`+verdict+`"}],"usage":{"input_tokens":100,"output_tokens":20}}`)
		default:
			http.NotFound(w, req)
		}
	}))
	t.Cleanup(r.Close)
	return r
}

func (r *recorder) judged() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	var out []string
	for _, c := range r.calls {
		if !strings.HasPrefix(c, "/v1/embeddings") {
			out = append(out, c)
		}
	}
	return out
}

// earlierEnv clears every provider variable, then sets kv.
func earlierEnv(t *testing.T, kv ...string) {
	for _, k := range []string{"OPENAI_API_KEY", "ATTEST_OPENAI_API_KEY", "OPENAI_BASE_URL", "ANTHROPIC_API_KEY", "ANTHROPIC_BASE_URL",
		"ATTEST_JUDGE_MODEL", "ATTEST_JUDGE_PROVIDER", "ATTEST_EMBEDDING_PROVIDER", "ATTEST_CACHE_DIR", "ATTEST_JUDGE_TIMEOUT_S"} {
		t.Setenv(k, "")
	}
	for i := 0; i+1 < len(kv); i += 2 {
		t.Setenv(kv[i], kv[i+1])
	}
}

const judgeSpec = `{"assertion_id":"assert_0a1b2c3d","type":"llm_judge","spec":{"target":"output.message","criteria":"Confirms the refund","rubric":"default","threshold":0.8,"model":null,"soft":false}}`

func TestBinaryEarlierEnvironment(t *testing.T) {
	bin := buildEngine(t)
	dir := t.TempDir()
	file := filepath.Join(dir, "a-file")
	os.WriteFile(file, nil, 0o600)
	cfg := filepath.Join(dir, "judge.json")
	os.WriteFile(cfg, []byte(`{"judge":{"model":"model-from-config"}}`), 0o600)
	cacheDir := filepath.Join(dir, "cache", "attest")

	tests := []struct {
		name, reason string
		env          func(url string) []string
		args         []string
		wantJudged   []string // calls the judge batch makes; nil: the batch is a 1002
		wantDetail   string   // the 1002's detail contains it
		wantWarnings []string // on stderr
	}{
		{"judge model", "ATTEST_JUDGE_MODEL is the default judge model",
			func(url string) []string {
				return []string{"ATTEST_OPENAI_API_KEY", "sk-x", "OPENAI_BASE_URL", url, "ATTEST_JUDGE_MODEL", "gpt-4.1"}
			}, nil, []string{"/v1/chat/completions gpt-4.1"}, "", nil},
		{"judge model, config wins", "judge.model in --config wins over ATTEST_JUDGE_MODEL",
			func(url string) []string {
				return []string{"ATTEST_OPENAI_API_KEY", "sk-x", "OPENAI_BASE_URL", url, "ATTEST_JUDGE_MODEL", "gpt-4.1"}
			}, []string{"--config", cfg}, []string{"/v1/chat/completions model-from-config"}, "", nil},
		{"judge provider", "ATTEST_JUDGE_PROVIDER=anthropic picks the Anthropic API though OpenAI is usable",
			func(url string) []string {
				return []string{"ATTEST_OPENAI_API_KEY", "sk-x", "OPENAI_BASE_URL", url, "ANTHROPIC_BASE_URL", url, "ATTEST_JUDGE_PROVIDER", "anthropic"}
			}, nil, []string{"/v1/messages claude-haiku-4-5"}, "", nil},
		{"cache dir", "ATTEST_CACHE_DIR is cache_dir (checked below: files appear in it)",
			func(url string) []string {
				return []string{"ATTEST_OPENAI_API_KEY", "sk-x", "OPENAI_BASE_URL", url, "ATTEST_CACHE_DIR", cacheDir}
			}, nil, []string{"/v1/chat/completions gpt-4.1-mini"}, "", nil},
		{"unusable values", "every value unusable: warnings, those features off, the session still starts",
			func(url string) []string {
				return []string{"ATTEST_OPENAI_API_KEY", "sk-x", "OPENAI_BASE_URL", url, "ATTEST_JUDGE_PROVIDER", "gemini",
					"ATTEST_EMBEDDING_PROVIDER", "local", "ATTEST_CACHE_DIR", filepath.Join(file, "cache"), "ATTEST_JUDGE_TIMEOUT_S", "soon"}
			}, nil, nil, `ATTEST_JUDGE_PROVIDER "gemini" is not usable`,
			[]string{`ATTEST_JUDGE_PROVIDER \"gemini\"`, `ATTEST_EMBEDDING_PROVIDER \"local\"`, "ATTEST_CACHE_DIR", `ATTEST_JUDGE_TIMEOUT_S \"soon\"`}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			srv := newRecorder(t)
			earlierEnv(t, tc.env(srv.URL)...)
			e := start(t, bin, append([]string{"--log-level=warn"}, tc.args...)...)
			s := &sdkSession{e: e}
			hello := s.call(t, "initialize", `{"sdk_name":"attest-python","sdk_version":"0.1.0","protocol_version":1,"required_capabilities":["layers_1_4"],"preferred_encoding":"json"}`)
			if r, _ := hello["result"].(map[string]any); r == nil || r["compatible"] != true {
				t.Fatalf("%s: initialize %v", tc.reason, hello)
			}
			ans := s.call(t, "evaluate_batch", `{"trace":`+sdkRefundTrace+`,"assertions":[`+judgeSpec+`]}`)
			if tc.wantJudged != nil {
				sdkCheck(t, ans, "assert_0a1b2c3d", "pass") // judgeSpec's
			} else {
				errObj, _ := ans["error"].(map[string]any)
				data, _ := errObj["data"].(map[string]any)
				if fmt.Sprint(errObj["code"]) != "1002" || !strings.Contains(fmt.Sprint(data["detail"]), tc.wantDetail) {
					t.Errorf("%s: %v, want a 1002 whose detail has %q", tc.reason, ans, tc.wantDetail)
				}
				// Layers 1–4 are unaffected.
				params, ids := sdkBatch(sdkRefundTrace, "content", `{"target":"output.message","check":"contains","value":"refund"}`)
				sdkCheck(t, s.call(t, "evaluate_batch", params), ids[0], "pass")
			}
			if got := srv.judged(); strings.Join(got, ",") != strings.Join(tc.wantJudged, ",") {
				t.Errorf("%s: judge calls %q, want %q", tc.reason, got, tc.wantJudged)
			}
			s.call(t, "shutdown", `{}`)
			if code := e.wait(t); code != 0 {
				t.Errorf("exit code %d", code)
			}
			for _, w := range tc.wantWarnings {
				if !strings.Contains(e.stderr.String(), w) {
					t.Errorf("%s: no warning %q on stderr:\n%s", tc.reason, w, e.stderr.String())
				}
			}
			if tc.name == "cache dir" {
				if ents, err := os.ReadDir(cacheDir); err != nil || len(ents) == 0 {
					t.Errorf("ATTEST_CACHE_DIR %s: %v, %d entries: the verdict was not kept there", cacheDir, err, len(ents))
				}
			}
		})
	}
}

func TestBinaryCapabilityAliases(t *testing.T) {
	bin := buildEngine(t)
	tests := []struct {
		name, reason string
		provider     bool
		required     string
		wantMissing  string
	}{
		{"trace_tree", "the earlier name of multi_agent, always there", false, `["layers_1_4","trace_tree","multi_agent"]`, "[]"},
		{"llm_judge without a provider", "the aliases of layers_5_6 follow it", false, `["layers_1_4","embedding","llm_judge"]`, "[embedding llm_judge]"},
		{"all with a provider", "with a usable provider every earlier name is advertised", true, `["trace_tree","embedding","llm_judge","layers_5_6"]`, "[]"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			earlierEnv(t)
			if tc.provider {
				earlierEnv(t, "ATTEST_OPENAI_API_KEY", "sk-x", "OPENAI_BASE_URL", newRecorder(t).URL)
			}
			e := start(t, bin, "--log-level=warn")
			s := &sdkSession{e: e}
			hello := s.call(t, "initialize", `{"sdk_name":"attest-python","sdk_version":"0.1.0","protocol_version":1,"required_capabilities":`+tc.required+`,"preferred_encoding":"json"}`)
			r, _ := hello["result"].(map[string]any)
			if r == nil || fmt.Sprint(r["missing"]) != tc.wantMissing || r["compatible"] != (tc.wantMissing == "[]") {
				t.Errorf("%s: %v, want missing %s", tc.reason, hello, tc.wantMissing)
			}
		})
	}
}
