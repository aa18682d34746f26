// providerenv_test.go: the ATTEST_* variables of the earlier engine: each applied, the config winning, unusable values a warning.

package assert

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

func TestProviderEnvironment(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "a-file")
	if err := os.WriteFile(file, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	key := []string{"OPENAI_API_KEY", "k", "ANTHROPIC_API_KEY", "k"}
	env := func(kv ...string) func(string) string { return envOf(append(append([]string{}, key...), kv...)...) }
	type want struct {
		JudgeKind, JudgeModel string
		JudgeTimeout          time.Duration
		EmbedDefault          string
		CacheDir              string
		Usable                bool
		Warning               string // a substring of the one warning; "" for none
	}
	base := want{JudgeKind: "openai", JudgeModel: "gpt-4.1-mini", EmbedDefault: "text-embedding-3-small", Usable: true}
	with := func(f func(*want)) want { w := base; f(&w); return w }
	tests := []struct {
		name, reason string
		env          func(string) string
		cfg          ProviderSettings
		want         want
	}{
		{"none", "no ATTEST_* variable: the defaults", env(), ProviderSettings{}, base},
		{"judge model", "ATTEST_JUDGE_MODEL is the default judge model", env("ATTEST_JUDGE_MODEL", " gpt-4.1 "), ProviderSettings{},
			with(func(w *want) { w.JudgeModel = "gpt-4.1" })},
		{"judge model, config wins", "judge.model in the config file wins", env("ATTEST_JUDGE_MODEL", "gpt-4.1"),
			ProviderSettings{Judge: ProviderConfig{Model: "judge-x"}}, with(func(w *want) { w.JudgeModel = "judge-x" })},
		{"judge provider", "ATTEST_JUDGE_PROVIDER picks Anthropic although OpenAI is usable", env("ATTEST_JUDGE_PROVIDER", "Anthropic"), ProviderSettings{},
			with(func(w *want) { w.JudgeKind, w.JudgeModel = "anthropic", "claude-haiku-4-5" })},
		{"judge provider, config wins", "judge.provider in the config file wins", env("ATTEST_JUDGE_PROVIDER", "anthropic"),
			ProviderSettings{Judge: ProviderConfig{Provider: "openai"}}, base},
		{"judge provider unknown", "an unknown provider: warning, judge off, engine starts", env("ATTEST_JUDGE_PROVIDER", "gemini"), ProviderSettings{},
			with(func(w *want) {
				w.Usable, w.Warning = false, `ATTEST_JUDGE_PROVIDER "gemini" is not usable`+": want \"openai\" or \"anthropic\"; the judge is off"
			})},
		{"embedding provider lexical", "ATTEST_EMBEDDING_PROVIDER=lexical: the offline model", env("ATTEST_EMBEDDING_PROVIDER", "lexical"), ProviderSettings{},
			with(func(w *want) { w.EmbedDefault = "lexical" })},
		{"embedding provider, config wins", "embedding.provider in the config file wins", env("ATTEST_EMBEDDING_PROVIDER", "lexical"),
			ProviderSettings{Embedding: ProviderConfig{Provider: "openai"}}, base},
		{"embedding provider unknown", "an unknown provider: warning, embeddings off", env("ATTEST_EMBEDDING_PROVIDER", "sentence-transformers"), ProviderSettings{},
			with(func(w *want) {
				w.EmbedDefault, w.Usable, w.Warning = "", false, `ATTEST_EMBEDDING_PROVIDER "sentence-transformers" is not usable`
			})},
		{"cache dir", "ATTEST_CACHE_DIR is cache_dir, created when missing", env("ATTEST_CACHE_DIR", filepath.Join(dir, "new", "cache")), ProviderSettings{},
			with(func(w *want) { w.CacheDir = filepath.Join(dir, "new", "cache") })},
		{"cache dir, config wins", "cache_dir in the config file wins", env("ATTEST_CACHE_DIR", filepath.Join(dir, "env")),
			ProviderSettings{CacheDir: filepath.Join(dir, "cfg")}, with(func(w *want) { w.CacheDir = filepath.Join(dir, "cfg") })},
		{"cache dir unusable", "a directory that cannot be created: warning, memory only", env("ATTEST_CACHE_DIR", filepath.Join(file, "cache")), ProviderSettings{},
			with(func(w *want) { w.Warning = "results are cached in memory only" })},
		{"judge timeout", "ATTEST_JUDGE_TIMEOUT_S bounds each judge attempt; fractions allowed", env("ATTEST_JUDGE_TIMEOUT_S", "2.5"), ProviderSettings{},
			with(func(w *want) { w.JudgeTimeout = 2500 * time.Millisecond })},
		{"judge timeout not a number", "unusable: warning, no judge timeout", env("ATTEST_JUDGE_TIMEOUT_S", "soon"), ProviderSettings{},
			with(func(w *want) { w.Warning = `ATTEST_JUDGE_TIMEOUT_S "soon" is not usable` })},
		{"judge timeout zero", "zero is not a timeout", env("ATTEST_JUDGE_TIMEOUT_S", "0"), ProviderSettings{},
			with(func(w *want) { w.Warning = "judge calls are bounded by --eval-timeout only" })},
		{"judge timeout NaN", "NaN is not a number of seconds", env("ATTEST_JUDGE_TIMEOUT_S", "NaN"), ProviderSettings{},
			with(func(w *want) { w.Warning = `"NaN" is not usable` })},
		{"judge timeout huge", "over a day is refused", env("ATTEST_JUDGE_TIMEOUT_S", "1e30"), ProviderSettings{},
			with(func(w *want) { w.Warning = `"1e30" is not usable` })},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			tc.cfg.Getenv = tc.env
			p, err := newProviders(tc.cfg)
			if err != nil {
				t.Fatalf("%s: a start failure: %v", tc.reason, err)
			}
			got := want{p.judge.kind, p.judge.model, p.judge.timeout, p.embedDefault, p.cache.dir, p.usable(), ""}
			if len(p.warnings) > 1 {
				t.Errorf("warnings %q, want at most one", p.warnings)
			}
			if len(p.warnings) == 1 && tc.want.Warning != "" && strings.Contains(p.warnings[0], tc.want.Warning) {
				got.Warning = tc.want.Warning
			} else if len(p.warnings) == 1 {
				got.Warning = p.warnings[0]
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("%s (-want +got):\n%s", tc.reason, diff)
			}
		})
	}
}

// An unusable variable is also the answer's detail: SDKs never read stderr.
func TestProviderEnvironmentOffSaysWhy(t *testing.T) {
	tests := []struct {
		name, typ, envVar, value string
		spec                     map[string]any
	}{
		{"judge", "llm_judge", "ATTEST_JUDGE_PROVIDER", "gemini", map[string]any{"rubric": "helpfulness"}},
		{"embedding", "embedding", "ATTEST_EMBEDDING_PROVIDER", "local", map[string]any{"target": "output.message", "reference": "refund processed"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			f := newFake(t)
			e := fakeEngine(t, f, func(ps *ProviderSettings) {
				ps.Getenv = envOf("OPENAI_API_KEY", testKey, "OPENAI_BASE_URL", f.URL+"/v1", tc.envVar, tc.value)
			})
			if got := e.Warnings(); len(got) != 1 || !strings.Contains(got[0], tc.envVar) {
				t.Errorf("Warnings() = %q, want one naming %s", got, tc.envVar)
			}
			_, err := e.Evaluate(context.Background(), refund56(t), []Assertion{{ID: "a", Type: tc.typ, Spec: tc.spec}})
			var ae *Error
			if !errors.As(err, &ae) || !strings.Contains(ae.Detail, tc.envVar+` "`+tc.value+`"`) {
				t.Errorf("error %v (detail %q): want a 1002 whose detail names %s", err, detailOf(ae), tc.envVar)
			}
			if n := len(f.requests()); n != 0 {
				t.Errorf("%d provider calls with the feature off", n)
			}
		})
	}
}

func detailOf(e *Error) string {
	if e == nil {
		return ""
	}
	return e.Detail
}

// ATTEST_JUDGE_TIMEOUT_S bounds each attempt: a stalled attempt is retried,
// and three stalled attempts are a 2001 naming the variable.
func TestJudgeTimeoutFromEnvironment(t *testing.T) {
	tests := []struct {
		name, reason string
		stalls       int // attempts that take longer than the timeout
		wantErr      string
		wantCalls    int
	}{
		{"retried", "one stalled attempt, then an answer", 1, "", 2},
		{"gives up", "every attempt stalls: PROVIDER_ERROR after 3", 3, "judge provider did not answer within 50ms (ATTEST_JUDGE_TIMEOUT_S)", 3},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			f := newFake(t)
			for range tc.stalls {
				f.push(scripted{status: 200, body: `{}`, delay: 5 * time.Second})
			}
			e := fakeEngine(t, f, func(ps *ProviderSettings) {
				ps.Getenv = envOf("OPENAI_API_KEY", testKey, "OPENAI_BASE_URL", f.URL+"/v1", "ATTEST_JUDGE_TIMEOUT_S", "0.05")
			})
			start := time.Now()
			rs, err := e.Evaluate(context.Background(), refund56(t), []Assertion{{ID: "j", Type: "llm_judge", Spec: map[string]any{"rubric": "helpfulness"}}})
			if d := time.Since(start); d > 3*time.Second {
				t.Errorf("took %v: the timeout did not cut the stalled attempts", d)
			}
			var pe *ProviderError
			switch {
			case tc.wantErr == "" && (err != nil || rs[0].Status != "pass"):
				t.Errorf("%s: %v, %+v", tc.reason, err, rs)
			case tc.wantErr != "" && (!errors.As(err, &pe) || pe.Message != tc.wantErr):
				t.Errorf("%s: error %v, want %q", tc.reason, err, tc.wantErr)
			}
			if n := len(f.requests()); n != tc.wantCalls {
				t.Errorf("%s: %d calls, want %d", tc.reason, n, tc.wantCalls)
			}
		})
	}
}
