// env_test.go: the ATTEST_* variables of the earlier engine: each applied, the config winning, unusable values a warning.

package provider

import (
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
		cfg          Settings
		want         want
	}{
		{"none", "no ATTEST_* variable: the defaults", env(), Settings{}, base},
		{"judge model", "ATTEST_JUDGE_MODEL is the default judge model", env("ATTEST_JUDGE_MODEL", " gpt-4.1 "), Settings{},
			with(func(w *want) { w.JudgeModel = "gpt-4.1" })},
		{"judge model, config wins", "judge.model in the config file wins", env("ATTEST_JUDGE_MODEL", "gpt-4.1"),
			Settings{Judge: Config{Model: "judge-x"}}, with(func(w *want) { w.JudgeModel = "judge-x" })},
		{"judge provider", "ATTEST_JUDGE_PROVIDER picks Anthropic although OpenAI is usable", env("ATTEST_JUDGE_PROVIDER", "Anthropic"), Settings{},
			with(func(w *want) { w.JudgeKind, w.JudgeModel = "anthropic", "claude-haiku-4-5" })},
		{"judge provider, config wins", "judge.provider in the config file wins", env("ATTEST_JUDGE_PROVIDER", "anthropic"),
			Settings{Judge: Config{Provider: "openai"}}, base},
		{"judge provider unknown", "an unknown provider: warning, judge off, engine starts", env("ATTEST_JUDGE_PROVIDER", "gemini"), Settings{},
			with(func(w *want) {
				w.Usable, w.Warning = false, `ATTEST_JUDGE_PROVIDER "gemini" is not usable`+": want \"openai\" or \"anthropic\"; the judge is off"
			})},
		{"embedding provider lexical", "ATTEST_EMBEDDING_PROVIDER=lexical: the offline model", env("ATTEST_EMBEDDING_PROVIDER", "lexical"), Settings{},
			with(func(w *want) { w.EmbedDefault = "lexical" })},
		{"embedding provider, config wins", "embedding.provider in the config file wins", env("ATTEST_EMBEDDING_PROVIDER", "lexical"),
			Settings{Embedding: Config{Provider: "openai"}}, base},
		{"embedding provider unknown", "an unknown provider: warning, embeddings off", env("ATTEST_EMBEDDING_PROVIDER", "sentence-transformers"), Settings{},
			with(func(w *want) {
				w.EmbedDefault, w.Usable, w.Warning = "", false, `ATTEST_EMBEDDING_PROVIDER "sentence-transformers" is not usable`
			})},
		{"cache dir", "ATTEST_CACHE_DIR is cache_dir, created when missing", env("ATTEST_CACHE_DIR", filepath.Join(dir, "new", "cache")), Settings{},
			with(func(w *want) { w.CacheDir = filepath.Join(dir, "new", "cache") })},
		{"cache dir, config wins", "cache_dir in the config file wins", env("ATTEST_CACHE_DIR", filepath.Join(dir, "env")),
			Settings{CacheDir: filepath.Join(dir, "cfg")}, with(func(w *want) { w.CacheDir = filepath.Join(dir, "cfg") })},
		{"cache dir unusable", "a directory that cannot be created: warning, memory only", env("ATTEST_CACHE_DIR", filepath.Join(file, "cache")), Settings{},
			with(func(w *want) { w.Warning = "results are cached in memory only" })},
		{"judge timeout", "ATTEST_JUDGE_TIMEOUT_S bounds each judge attempt; fractions allowed", env("ATTEST_JUDGE_TIMEOUT_S", "2.5"), Settings{},
			with(func(w *want) { w.JudgeTimeout = 2500 * time.Millisecond })},
		{"judge timeout not a number", "unusable: warning, no judge timeout", env("ATTEST_JUDGE_TIMEOUT_S", "soon"), Settings{},
			with(func(w *want) { w.Warning = `ATTEST_JUDGE_TIMEOUT_S "soon" is not usable` })},
		{"judge timeout zero", "zero is not a timeout", env("ATTEST_JUDGE_TIMEOUT_S", "0"), Settings{},
			with(func(w *want) { w.Warning = "judge calls are bounded by --eval-timeout only" })},
		{"judge timeout NaN", "NaN is not a number of seconds", env("ATTEST_JUDGE_TIMEOUT_S", "NaN"), Settings{},
			with(func(w *want) { w.Warning = `"NaN" is not usable` })},
		{"bad OPENAI_BASE_URL", "unusable: one warning, the OpenAI embedding and judge off, the judge falls to Anthropic", env("OPENAI_BASE_URL", "localhost:11434"), Settings{},
			with(func(w *want) {
				w.JudgeKind, w.JudgeModel, w.EmbedDefault, w.Usable = "anthropic", "claude-haiku-4-5", "", false
				w.Warning = `OPENAI_BASE_URL is not usable ("localhost:11434" is not an http(s) URL): the openai provider it names is off`
			})},
		{"bad ANTHROPIC_BASE_URL", "unusable: one warning, though OpenAI is chosen", env("ANTHROPIC_BASE_URL", "ftp://x"), Settings{},
			with(func(w *want) {
				w.Warning = `ANTHROPIC_BASE_URL is not usable ("ftp://x" is not an http(s) URL): the anthropic provider it names is off`
			})},
		{"bad OPENAI_BASE_URL, config wins", "base_url in the config file: the variable is not read, no warning", env("OPENAI_BASE_URL", "localhost:11434"),
			Settings{Embedding: Config{BaseURL: "http://e.example"}, Judge: Config{Provider: "openai", BaseURL: "http://j.example"}}, base},
		{"judge timeout huge", "over a day is refused", env("ATTEST_JUDGE_TIMEOUT_S", "1e30"), Settings{},
			with(func(w *want) { w.Warning = `"1e30" is not usable` })},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			tc.cfg.Getenv = tc.env
			p, err := New(tc.cfg)
			if err != nil {
				t.Fatalf("%s: a start failure: %v", tc.reason, err)
			}
			got := want{p.judge.kind, p.judge.model, p.judge.timeout, p.embedDefault, p.cache.dir, p.Usable(), ""}
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
