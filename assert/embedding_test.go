// embedding_test.go: layer 5 against a fake OpenAI server: golden results and requests, cache, dedupe, lexical model.

package assert

import (
	"context"
	"errors"
	"fmt"
	"math"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"attest-engine/provider"
	"attest-engine/providertest"
)

// The spec §2.2 refund trace's output.message.
const refundMessage = "Your refund of $89.99 has been processed. You'll see it in 3 business days. Refund ID: RFD-001."

// costlyAnswer is what the golden files of layers 5–6 record for a case.
type costlyAnswer struct {
	Name        string           `json:"name"`
	Status      Status           `json:"status,omitempty"`
	Score       float64          `json:"score"`
	Explanation string           `json:"explanation,omitempty"`
	Cost        float64          `json:"cost"`
	Error       string           `json:"error,omitempty"`
	Detail      string           `json:"detail,omitempty"`
	Requests    []map[string]any `json:"requests,omitempty"` // path and body of each provider request
}

// unit2 is a 2-dimensional unit vector at cosine c from [1, 0].
func unit2(c float64) []float64 { return []float64{c, math.Sqrt(1 - c*c)} }

func TestEmbeddingGolden(t *testing.T) {
	const ref = "The refund has been processed and will appear within 3 business days."
	tests := []struct {
		name    string
		reason  string
		spec    map[string]any
		vectors map[string][]float64
		noEnv   bool // an engine with no provider configured
		lexical bool // config embedding.provider "lexical"
	}{
		{"pass_spec_example", "spec §4 layer 5 example: 0.91 against 0.82",
			map[string]any{"target": "output.message", "reference": ref, "threshold": 0.82},
			map[string][]float64{refundMessage: {1, 0}, ref: unit2(0.91)}, false, false},
		{"hard_below_threshold", "spec's fail example wording: 'is below threshold'",
			map[string]any{"target": "output.message", "reference": ref, "threshold": 0.95},
			map[string][]float64{refundMessage: {1, 0}, ref: unit2(0.91)}, false, false},
		{"soft_below_threshold", "soft: a miss is soft_fail",
			map[string]any{"target": "output.message", "reference": ref, "threshold": 0.95, "soft": true},
			map[string][]float64{refundMessage: {1, 0}, ref: unit2(0.91)}, false, false},
		{"pass_default_threshold", "threshold absent or null: 0.8; model null: the configured default (sdk-compat)",
			map[string]any{"target": "output.message", "reference": ref, "threshold": nil, "model": nil},
			map[string][]float64{refundMessage: {1, 0}, ref: unit2(0.85)}, false, false},
		{"hard_near_threshold", "0.7996 is not printed as 0.80 against 0.8",
			map[string]any{"target": "output.message", "reference": ref},
			map[string][]float64{refundMessage: {1, 0}, ref: unit2(0.7996)}, false, false},
		{"hard_negative_cosine", "a negative cosine scores 0 and says so",
			map[string]any{"target": "output.message", "reference": ref, "threshold": 0},
			map[string][]float64{refundMessage: {1, 0}, ref: {-0.5, math.Sqrt(0.75)}}, false, false},
		{"pass_identical_text", "identical target and reference: similarity 1, and no provider call to pay for",
			map[string]any{"target": "output.message", "reference": refundMessage, "threshold": 1}, nil, false, false},
		{"pass_model_named", "an explicit model is sent as is",
			map[string]any{"target": "output.message", "reference": ref, "model": "text-embedding-3-large"},
			map[string][]float64{refundMessage: {1, 0}, ref: unit2(0.9)}, false, false},
		{"pass_lexical_model", "model lexical: offline, no request, says it is not semantic",
			map[string]any{"target": "output.message", "reference": "Your refund has been processed; expect it in 3 business days.", "threshold": 0.4, "model": "lexical"}, nil, true, false},
		{"hard_lexical_unrelated", "the lexical model scores unrelated wording low",
			map[string]any{"target": "output.message", "reference": "The weather is sunny and warm today.", "model": "lexical"}, nil, true, false},
		{"pass_lexical_default", "config embedding.provider lexical: the default model, no key needed",
			map[string]any{"target": "output.structured", "reference": `{"confidence":0.95,"refund_id":"RFD-001"}`, "threshold": 0.99}, nil, true, true},
		{"hard_target_missing", "a target that selects nothing fails the assertion",
			map[string]any{"target": "output.summary", "reference": ref}, nil, false, false},
		{"error_dynamic_threshold", "threshold 'dynamic' (sdk-compat): this engine keeps no history",
			map[string]any{"target": "output.message", "reference": ref, "threshold": "dynamic"}, nil, false, false},
		{"error_threshold_range", "threshold is 0..1",
			map[string]any{"target": "output.message", "reference": ref, "threshold": 1.5}, nil, false, false},
		{"error_reference_missing", "reference is required",
			map[string]any{"target": "output.message"}, nil, false, false},
		{"error_bad_target", "an unsupported path is ASSERTION_ERROR",
			map[string]any{"target": "output..message", "reference": ref}, nil, false, false},
		{"error_not_configured", "no provider and no lexical default: 1002 naming what to configure",
			map[string]any{"target": "output.message", "reference": ref}, nil, true, false},
		{"error_model_needs_provider", "a named model with no provider is never answered by the lexical model",
			map[string]any{"target": "output.message", "reference": ref, "model": "text-embedding-3-small"}, nil, true, true},
	}
	tr := refund56(t)
	got := make([]costlyAnswer, len(tests))
	for i, tc := range tests {
		f := newFake(t)
		for k, v := range tc.vectors {
			f.Vectors[k] = v
		}
		e := fakeEngine(t, f, func(ps *provider.Settings) {
			if tc.noEnv {
				ps.Getenv = envOf()
			}
			if tc.lexical {
				ps.Embedding.Provider = "lexical"
			}
		})
		got[i] = evalCostly(t, e, f, tc.name, "embedding", tc.spec, tr)
		if want := (layerCase{Name: tc.name}).wantStatus(); want != "" && string(got[i].Status) != want {
			t.Errorf("%s (%s): status %q, want %s", tc.name, tc.reason, got[i].Status, want)
		}
		if strings.HasPrefix(tc.name, "error_") && got[i].Error == "" {
			t.Errorf("%s (%s): want an error", tc.name, tc.reason)
		}
	}
	compareGolden(t, "../testdata/embedding/results.golden.json", got)
}

// evalCostly evaluates one assertion and records the answer and the requests.
func evalCostly(t *testing.T, e *Engine, f *providertest.Server, name, typ string, sp map[string]any, tr map[string]any) costlyAnswer {
	t.Helper()
	rs, err := e.Evaluate(context.Background(), tr, []Assertion{{ID: name, Type: typ, Spec: sp}})
	a := costlyAnswer{Name: name}
	for _, c := range f.Requests() {
		a.Requests = append(a.Requests, map[string]any{"path": c.Path, "body": c.Body})
	}
	if err != nil {
		var ae *Error
		var pe *provider.Error
		switch {
		case errors.As(err, &ae):
			a.Error, a.Detail = ae.Error(), ae.Detail
		case errors.As(err, &pe):
			a.Error, a.Detail = "provider: "+pe.Message, pe.Detail
		default:
			t.Fatalf("%s: error %T %v", name, err, err)
		}
	} else {
		r := rs[0]
		a.Status, a.Score, a.Explanation, a.Cost = r.Status, r.Score, r.Explanation, r.Cost
	}
	if strings.Contains(a.Explanation+a.Error+a.Detail, testKey) {
		t.Errorf("%s: the API key leaked into the answer", name)
	}
	return a
}

func TestEmbeddingRequestHeaders(t *testing.T) {
	tests := []struct {
		name, reason string
		env          func(string) string
		wantAuth     string
	}{
		{"key", "Authorization: Bearer <key>", nil, "Bearer " + testKey},
		{"no key", "a local server with no key gets no Authorization header", envOf("OPENAI_BASE_URL", "BASE"), ""},
	}
	for _, tc := range tests {
		f := newFake(t)
		e := fakeEngine(t, f, func(ps *provider.Settings) {
			if tc.env != nil {
				ps.Getenv = envOf("OPENAI_BASE_URL", f.URL) // without /v1: accepted too
			}
		})
		sp := map[string]any{"target": "output.message", "reference": "x"}
		if _, err := e.Evaluate(context.Background(), refund56(t), []Assertion{{ID: "a", Type: "embedding", Spec: sp}}); err != nil {
			t.Fatal(err)
		}
		reqs := f.Requests()
		if len(reqs) != 1 || reqs[0].Path != "/v1/embeddings" {
			t.Fatalf("%s: requests %+v", tc.name, reqs)
		}
		h := reqs[0].Header
		if h.Get("Authorization") != tc.wantAuth || h.Get("Content-Type") != "application/json" {
			t.Errorf("%s (%s): headers %v", tc.name, tc.reason, h)
		}
	}
}

func TestEmbeddingCacheAndDedupe(t *testing.T) {
	dir := t.TempDir()
	f := newFake(t)
	tr := refund56(t)
	batch := []Assertion{
		{ID: "a", Type: "embedding", Spec: map[string]any{"target": "output.message", "reference": "Refund processed."}},
		{ID: "b", Type: "embedding", Spec: map[string]any{"target": "output.message", "reference": "Refund processed.", "threshold": 0.1}},
	}
	run := func(e *Engine) []Result {
		rs, err := e.Evaluate(context.Background(), tr, batch)
		if err != nil {
			t.Fatal(err)
		}
		if len(rs) != len(batch) {
			t.Fatalf("%d results for %d assertions", len(rs), len(batch))
		}
		return rs
	}
	e1 := fakeEngine(t, f, func(ps *provider.Settings) { ps.CacheDir = dir })
	first := run(e1)
	// The two assertions run at once: one may claim both texts (one
	// request), or each one text while waiting for the other's (two). Either
	// way no text is embedded twice, and each request is paid once, by the
	// assertion that made it.
	n1 := len(f.Requests())
	embedded := map[string]int{}
	for _, c := range f.Requests() {
		in, _ := c.Body["input"].([]any)
		for _, x := range in {
			embedded[fmt.Sprint(x)]++
		}
	}
	if len(embedded) != 2 || embedded["Refund processed."] != 1 || n1 > 2 {
		t.Errorf("first run: %d requests embedding %v: want each of the 2 texts once", n1, embedded)
	}
	if paid := first[0].Cost + first[1].Cost; paid == 0 || (n1 == 1 && first[0].Cost*first[1].Cost != 0) {
		t.Errorf("first run: costs %v and %v over %d requests: each request's usage × price is counted once", first[0].Cost, first[1].Cost, n1)
	}
	second := run(e1)
	if n := len(f.Requests()); n != n1 {
		t.Errorf("second run in the same engine made %d more requests: want 0 (memory cache)", n-n1)
	}
	e2 := fakeEngine(t, f, func(ps *provider.Settings) { ps.CacheDir = dir })
	third := run(e2)
	if n := len(f.Requests()); n != n1 {
		t.Errorf("a new engine on the same cache_dir made %d requests: want 0", n-n1)
	}
	for i := range first {
		if second[i].Cost != 0 || third[i].Cost != 0 {
			t.Errorf("a cache hit costs 0, got %v and %v", second[i].Cost, third[i].Cost)
		}
		if first[i].Score != second[i].Score || first[i].Score != third[i].Score {
			t.Errorf("cached scores differ: %v %v %v", first[i].Score, second[i].Score, third[i].Score)
		}
	}
}

func TestLexicalVector(t *testing.T) {
	sim := func(a, b string) float64 {
		s, _ := cosine(lexicalVector(a), lexicalVector(b))
		return s
	}
	tests := []struct {
		a, b     string
		min, max float64
		reason   string
	}{
		{"The refund was processed.", "the REFUND was processed!", 0.999, 1, "case and punctuation do not matter"},
		{"refund processed today", "refunded processing today", 0.3, 0.9, "trigrams relate inflected forms"},
		{"refund processed", "sunny weather outside", 0, 0.2, "unrelated wording scores low"},
		{"", "anything", 0, 0, "blank text is the zero vector"},
	}
	for _, tc := range tests {
		if s := sim(tc.a, tc.b); s < tc.min || s > tc.max {
			t.Errorf("sim(%q, %q) = %v, want in [%v, %v]: %s", tc.a, tc.b, s, tc.min, tc.max, tc.reason)
		}
	}
	if !cmp.Equal(lexicalVector("same text"), lexicalVector("same text")) {
		t.Error("lexical vectors must be deterministic")
	}
}

func BenchmarkLexicalVector(b *testing.B) {
	text := strings.Repeat(refundMessage+" ", 20)
	b.SetBytes(int64(len(text)))
	for b.Loop() {
		lexicalVector(text)
	}
}

// BenchmarkEmbeddingCached is a re-run of an unchanged embedding assertion:
// both vectors come from the memory cache, no request is made.
func BenchmarkEmbeddingCached(b *testing.B) {
	f := newFake(b)
	e, err := New(Config{Settings: provider.Settings{Getenv: envOf("OPENAI_API_KEY", testKey, "OPENAI_BASE_URL", f.URL)}})
	if err != nil {
		b.Fatal(err)
	}
	tr := refund56(b)
	as := []Assertion{{ID: "a", Type: "embedding", Spec: map[string]any{"target": "output.message", "reference": "The refund was processed."}}}
	if _, err := e.Evaluate(context.Background(), tr, as); err != nil {
		b.Fatal(err)
	}
	for b.Loop() {
		if _, err := e.Evaluate(context.Background(), tr, as); err != nil {
			b.Fatal(err)
		}
	}
}

func TestEmbeddingSharedTextInFlight(t *testing.T) {
	f := newFake(t)
	f.Delay = 50 * time.Millisecond // the calls overlap
	e := fakeEngine(t, f, nil)
	var as []Assertion
	for i := range 6 {
		as = append(as, Assertion{ID: fmt.Sprint("a", i), Type: "embedding",
			Spec: map[string]any{"target": "output.message", "reference": fmt.Sprint("reference ", i), "threshold": 0}})
	}
	rs, err := e.Evaluate(context.Background(), refund56(t), as)
	if err != nil {
		t.Fatal(err)
	}
	targets := 0
	for _, c := range f.Requests() {
		for _, in := range c.Body["input"].([]any) {
			if in == refundMessage {
				targets++
			}
		}
	}
	if targets != 1 {
		t.Errorf("six concurrent assertions on one target embedded it %d times, want 1", targets)
	}
	if len(rs) != len(as) {
		t.Fatalf("%d results for %d assertions", len(rs), len(as))
	}
	for _, r := range rs {
		if r.Status != Pass {
			t.Errorf("%+v", r)
		}
	}
}
