// settings_test.go: the fake model APIs (providertest) for the client tests, and provider resolution from config and env.

package provider

import (
	"strings"
	"testing"
	"time"

	"attest-engine/providertest"

	"github.com/google/go-cmp/cmp"
)

// testKey is the fake's dummy API key: no error may ever contain it.
const testKey = providertest.Key

// envOf is an injectable environment.
var envOf = providertest.Env

// newFake is a fake OpenAI and Anthropic server; an embedding it has not
// been given is [1, the text's length].
func newFake(t testing.TB) *providertest.Server { return providertest.New(t, nil) }

// fakeClient is a Client whose endpoints are the fake, through OPENAI_BASE_URL.
func fakeClient(t *testing.T, f *providertest.Server) *Client {
	t.Helper()
	c, err := New(Settings{Getenv: envOf("OPENAI_API_KEY", testKey, "OPENAI_BASE_URL", f.URL+"/v1"), RetryBase: time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func TestProviderResolution(t *testing.T) {
	type want struct {
		EmbedDefault, EmbedBase, EmbedKeyEnv string
		JudgeKind, JudgeBase, JudgeModel     string
		Usable                               bool
	}
	tests := []struct {
		name   string
		reason string
		env    func(string) string
		cfg    Settings
		want   want
	}{
		{"nothing", "no key, no config: layers 5–6 not advertised", envOf(),
			Settings{}, want{"", "https://api.openai.com", "OPENAI_API_KEY", "openai", "https://api.openai.com", "gpt-4.1-mini", false}},
		{"openai key", "OPENAI_API_KEY alone enables both layers", envOf("OPENAI_API_KEY", "k"),
			Settings{}, want{"text-embedding-3-small", "https://api.openai.com", "OPENAI_API_KEY", "openai", "https://api.openai.com", "gpt-4.1-mini", true}},
		{"attest key", "ATTEST_OPENAI_API_KEY is what SDK users set", envOf("ATTEST_OPENAI_API_KEY", "k"),
			Settings{}, want{"text-embedding-3-small", "https://api.openai.com", "ATTEST_OPENAI_API_KEY", "openai", "https://api.openai.com", "gpt-4.1-mini", true}},
		{"local server", "a base URL needs no key; /v1 and trailing slash trimmed", envOf("OPENAI_BASE_URL", "http://localhost:11434/v1/"),
			Settings{}, want{"text-embedding-3-small", "http://localhost:11434", "OPENAI_API_KEY", "openai", "http://localhost:11434", "gpt-4.1-mini", true}},
		{"anthropic judge only", "Anthropic key: judge usable, but no embedding model", envOf("ANTHROPIC_API_KEY", "k"),
			Settings{}, want{"", "https://api.openai.com", "OPENAI_API_KEY", "anthropic", "https://api.anthropic.com", "claude-haiku-4-5", false}},
		{"anthropic judge and lexical", "lexical default + Anthropic judge: both layers usable offline for embeddings", envOf("ANTHROPIC_API_KEY", "k"),
			Settings{Embedding: Config{Provider: "lexical"}}, want{"lexical", "https://api.openai.com", "OPENAI_API_KEY", "anthropic", "https://api.anthropic.com", "claude-haiku-4-5", true}},
		{"config wins", "config base_url, model and api_key_env override the env defaults", envOf("MY_KEY", "k", "OPENAI_BASE_URL", "http://ignored"),
			Settings{Embedding: Config{BaseURL: "https://gw.example.com/openai/v1", Model: "emb-x", APIKeyEnv: "MY_KEY"},
				Judge: Config{Provider: "openai", Model: "judge-x"}},
			want{"emb-x", "https://gw.example.com/openai", "MY_KEY", "openai", "http://ignored", "judge-x", true}},
		{"bad env base url", "a bad OPENAI_BASE_URL makes the provider unusable, not the engine", envOf("OPENAI_BASE_URL", "localhost:11434"),
			Settings{}, want{"", "", "OPENAI_API_KEY", "openai", "", "gpt-4.1-mini", false}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			tc.cfg.Getenv = tc.env
			p, err := New(tc.cfg)
			if err != nil {
				t.Fatal(err)
			}
			got := want{p.embedDefault, p.embedder.base, p.embedder.keyEnv, p.judge.kind, p.judge.base, p.judge.model, p.Usable()}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("%s (-want +got):\n%s", tc.reason, diff)
			}
		})
	}
}

func TestProviderConfigErrors(t *testing.T) {
	tests := []struct {
		name, reason string
		cfg          Settings
		want         string
	}{
		{"embedding provider", "anthropic has no embeddings API", Settings{Embedding: Config{Provider: "anthropic"}}, `config embedding.provider "anthropic"`},
		{"judge provider", "lexical cannot judge", Settings{Judge: Config{Provider: "lexical"}}, `config judge.provider "lexical"`},
		{"base url scheme", "a base URL must be http(s)", Settings{Judge: Config{BaseURL: "ftp://x"}}, `config judge.base_url`},
		{"base url credentials", "credentials in a URL would be logged", Settings{Embedding: Config{BaseURL: "https://u:p@x"}}, "must not carry credentials"},
		{"negative price", "prices are non-negative", Settings{Prices: map[string]Price{"m": {Input: -1}}}, `config prices["m"]`},
		{"negative cache", "cache_size is a count", Settings{CacheSize: -1}, "config cache_size"},
	}
	for _, tc := range tests {
		tc.cfg.Getenv = envOf()
		_, err := New(tc.cfg)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s (%s): error %v, want it to contain %q", tc.name, tc.reason, err, tc.want)
		}
	}
}

func TestCostFromPrices(t *testing.T) {
	p, err := New(Settings{Getenv: envOf(), Prices: map[string]Price{"gpt-4.1": {Input: 1, Output: 2}, "local": {}}})
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		model  string
		u      Usage
		want   float64
		reason string
	}{
		{"gpt-4.1", Usage{1000, 500}, 0.002, "config overrides the built-in price"},
		{"text-embedding-3-small", Usage{2_000_000, 0}, 0.04, "built-in list price"},
		{"unknown-model", Usage{1000, 1000}, 0, "a model with no price costs 0"},
		{"local", Usage{1000, 1000}, 0, "a zero price marks a free model"},
	}
	for _, tc := range tests {
		if got := p.Cost(tc.model, tc.u); got != tc.want {
			t.Errorf("cost(%s) = %v, want %v: %s", tc.model, got, tc.want, tc.reason)
		}
	}
}
