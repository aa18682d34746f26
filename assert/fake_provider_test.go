// fake_provider_test.go: the fake model APIs (providertest) for the layer 5–6 tests of the evaluators.

package assert

import (
	"os"
	"testing"
	"time"

	"attest-engine/provider"
	"attest-engine/providertest"
	"attest-engine/trace"
)

// testKey is the fake's dummy API key: no error or explanation may ever
// contain it.
const testKey = providertest.Key

// envOf is an injectable environment.
var envOf = providertest.Env

// newFake is a fake OpenAI and Anthropic server; an embedding it has not
// been given is the text's lexical vector.
func newFake(t testing.TB) *providertest.Server {
	return providertest.New(t, func(text string) []float64 {
		var vec []float64
		for _, x := range lexicalVector(text) {
			vec = append(vec, float64(x))
		}
		return vec
	})
}

// fakeEngine is an Engine whose providers are the fake, through OPENAI_BASE_URL.
func fakeEngine(t *testing.T, f *providertest.Server, mod func(*provider.Settings)) *Engine {
	t.Helper()
	ps := provider.Settings{Getenv: envOf("OPENAI_API_KEY", testKey, "OPENAI_BASE_URL", f.URL+"/v1"), RetryBase: time.Millisecond}
	if mod != nil {
		mod(&ps)
	}
	e, err := New(Config{Settings: ps})
	if err != nil {
		t.Fatal(err)
	}
	return e
}

// refund56 is the spec §2.2 trace.
func refund56(t testing.TB) map[string]any {
	t.Helper()
	b, err := os.ReadFile("../testdata/tracecheck/traces/refund.json")
	if err != nil {
		t.Fatal(err)
	}
	v, err := trace.Decode(b)
	if err != nil {
		t.Fatal(err)
	}
	return v.(map[string]any)
}
