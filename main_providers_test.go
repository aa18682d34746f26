// main_providers_test.go: the binary with layers 5–6 against a fake OpenAI-compatible server, via OPENAI_BASE_URL.

package main

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

const providerTestKey = "sk-subprocess-SECRET-42"

// slowMarker in an agent's output makes the fake judge answer slowly.
const slowMarker = "SLOW-JUDGE"

// fakeOpenAI answers /v1/embeddings and /v1/chat/completions like the
// OpenAI API. Texts mentioning "refund" embed near [1, 0], others at [0, 1].
func fakeOpenAI(t *testing.T, rateLimited *atomic.Int32) *httptest.Server {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("Authorization") != "Bearer "+providerTestKey {
			w.WriteHeader(http.StatusUnauthorized)
			io.WriteString(w, `{"error":{"message":"Incorrect API key provided","type":"invalid_request_error","param":null,"code":"invalid_api_key"}}`)
			return
		}
		var body map[string]any
		json.NewDecoder(r.Body).Decode(&body)
		w.Header().Set("Content-Type", "application/json")
		switch r.URL.Path {
		case "/v1/embeddings":
			var data []any
			for i, in := range body["input"].([]any) {
				vec := []float64{0, 1}
				if strings.Contains(strings.ToLower(in.(string)), "refund") {
					vec = []float64{0.96, 0.28}
				}
				data = append(data, map[string]any{"object": "embedding", "index": i, "embedding": vec})
			}
			json.NewEncoder(w).Encode(map[string]any{"object": "list", "data": data, "model": body["model"],
				"usage": map[string]any{"prompt_tokens": 20, "total_tokens": 20}})
		case "/v1/chat/completions":
			msgs := body["messages"].([]any)
			user := msgs[len(msgs)-1].(map[string]any)["content"].(string)
			if strings.Contains(user, "RATE-LIMITED") {
				rateLimited.Add(1)
				w.Header().Set("Retry-After", "0")
				w.WriteHeader(http.StatusTooManyRequests)
				io.WriteString(w, `{"error":{"message":"rate limit exceeded","type":"requests","param":null,"code":"rate_limit_exceeded"}}`)
				return
			}
			if strings.Contains(user, slowMarker) {
				select {
				case <-time.After(3 * time.Second):
				case <-r.Context().Done():
					return
				}
			}
			json.NewEncoder(w).Encode(map[string]any{"id": "chatcmpl-1", "object": "chat.completion",
				"choices": []any{map[string]any{"index": 0, "finish_reason": "stop",
					"message": map[string]any{"role": "assistant", "content": `{"score": 0.88, "reason": "Confirms the refund with its ID and timeline."}`}}},
				"usage": map[string]any{"prompt_tokens": 500, "completion_tokens": 20, "total_tokens": 520}})
		default:
			w.WriteHeader(http.StatusNotFound)
		}
	}))
	t.Cleanup(srv.Close)
	return srv
}

// providerEnv points the engine at srv through the ecosystem's variables.
func providerEnv(t *testing.T, srv *httptest.Server) {
	t.Setenv("OPENAI_BASE_URL", srv.URL+"/v1")
	t.Setenv("OPENAI_API_KEY", providerTestKey)
	t.Setenv("ATTEST_OPENAI_API_KEY", "")
	t.Setenv("ANTHROPIC_API_KEY", "")
	t.Setenv("ANTHROPIC_BASE_URL", "")
}

// startWithProvider starts the engine with srv as its provider and opens a
// session asking for layers 5–6; it returns the initialize result.
func startWithProvider(t *testing.T, srv *httptest.Server, args ...string) (*engine, map[string]any) {
	t.Helper()
	providerEnv(t, srv)
	e := start(t, buildEngine(t), args...)
	e.send(t, init56)
	return e, e.answer(t)
}

const init56 = `{"jsonrpc":"2.0","id":"init","method":"initialize","params":{"sdk_name":"attest-python","sdk_version":"0.1.0","protocol_version":1,"required_capabilities":["layers_1_4","layers_5_6"],"preferred_encoding":"json"}}`

// batch56 is an evaluate_batch on the spec §2.2 trace with the given output message.
func batch56(id, message, assertions string) string {
	return fmt.Sprintf(`{"jsonrpc":"2.0","id":%q,"method":"evaluate_batch","params":{"trace":{"schema_version":1,"trace_id":"trc_%s",`+
		`"input":{"user_message":"I want a refund for order ORD-123","context":{}},`+
		`"steps":[{"type":"tool_call","name":"lookup_order","args":{"order_id":"ORD-123"},"result":{"status":"delivered","amount":89.99}},`+
		`{"type":"tool_call","name":"process_refund","args":{"order_id":"ORD-123","amount":89.99},"result":{"refund_id":"RFD-001"}}],`+
		`"output":{"message":%q,"structured":{"refund_id":"RFD-001"}},"metadata":{"cost_usd":0.0067,"total_tokens":1350}},"assertions":[%s]}}`,
		id, id, message, assertions)
}

const refundMsg = "Your refund of $89.99 has been processed. Refund ID: RFD-001."

func TestBinaryLayers56(t *testing.T) {
	var limited atomic.Int32
	e, hello := startWithProvider(t, fakeOpenAI(t, &limited), "--log-level=debug")
	res := hello["result"].(map[string]any)
	if res["compatible"] != true || !strings.Contains(fmt.Sprint(res["capabilities"]), "layers_5_6") {
		t.Fatalf("with OPENAI_BASE_URL and OPENAI_API_KEY, layers_5_6 is advertised: %v", res)
	}

	mixed := strings.Join([]string{
		`{"assertion_id":"schema","type":"schema","spec":{"target":"output.structured","schema":{"type":"object","required":["refund_id"]}}}`,
		`{"assertion_id":"cost","type":"constraint","spec":{"field":"metadata.cost_usd","operator":"lte","value":0.01}}`,
		`{"assertion_id":"order","type":"trace","spec":{"check":"contains_in_order","tools":["lookup_order","process_refund"]}}`,
		`{"assertion_id":"content","type":"content","spec":{"target":"output.message","check":"contains","value":"refund"}}`,
		`{"assertion_id":"similar","type":"embedding","spec":{"target":"output.message","reference":"The refund was processed.","threshold":0.8,"model":null,"soft":false}}`,
		`{"assertion_id":"lexical","type":"embedding","spec":{"target":"output.message","reference":"Your refund has been processed.","threshold":0.3,"model":"lexical"}}`,
		`{"assertion_id":"judge","type":"llm_judge","spec":{"target":"output.message","criteria":"Confirms the refund","rubric":"default","threshold":0.8,"model":null,"soft":false}}`,
	}, ",")
	e.send(t, batch56("mixed", refundMsg, mixed))
	ans := e.answer(t)
	result, ok := ans["result"].(map[string]any)
	if !ok {
		t.Fatalf("mixed batch: %v", ans)
	}
	want := map[string]string{
		"schema": "pass", "cost": "pass", "order": "pass", "content": "pass",
		"similar": "Cosine similarity 1 between output.message and reference text exceeds threshold 0.8.",
		"lexical": "Lexical (not semantic) similarity",
		"judge":   "Confirms the refund with its ID and timeline. Score 0.88 exceeds threshold 0.8.",
	}
	results, _ := result["results"].([]any)
	if len(results) != len(want) {
		t.Fatalf("mixed batch: %d results for %d assertions: %v", len(results), len(want), ans)
	}
	for _, r := range results {
		r := r.(map[string]any)
		id := r["assertion_id"].(string)
		if r["status"] != "pass" {
			t.Errorf("%s: %v", id, r)
		}
		if w := want[id]; w != "pass" && !strings.HasPrefix(r["explanation"].(string), w) {
			t.Errorf("%s: explanation %q, want prefix %q", id, r["explanation"], w)
		}
	}
	if c, _ := result["total_cost"].(json.Number).Float64(); c <= 0 {
		t.Errorf("total_cost %v: the judge's and embeddings' usage × list price", result["total_cost"])
	}

	// A slow judge batch must not hold back a fast batch sent after it.
	slow := `{"assertion_id":"slow","type":"llm_judge","spec":{"rubric":"helpfulness"}}`
	fast := `{"assertion_id":"fast","type":"content","spec":{"target":"output.message","check":"contains","value":"refund"}},` +
		`{"assertion_id":"fastlex","type":"embedding","spec":{"target":"output.message","reference":"refund processed","model":"lexical","threshold":0.1}}`
	e.send(t, batch56("slow", refundMsg+" "+slowMarker, slow), batch56("fast", refundMsg, fast))
	first, second := e.answer(t), e.answer(t)
	if first["id"] != "fast" || second["id"] != "slow" || second["result"] == nil {
		t.Errorf("answers in order %v, %v: the fast batch must come first and the slow one succeed (%v)", first["id"], second["id"], second)
	}

	// 429 three times: spec §5's PROVIDER_ERROR, retryable, after 3 attempts.
	e.send(t, batch56("limited", "RATE-LIMITED", `{"assertion_id":"j","type":"llm_judge","spec":{"rubric":"tone"}}`))
	errObj, _ := e.answer(t)["error"].(map[string]any)
	data, _ := errObj["data"].(map[string]any)
	if fmt.Sprint(errObj["code"]) != "2001" || errObj["message"] != "judge provider returned HTTP 429: rate limit exceeded" ||
		data["retryable"] != true || data["error_type"] != "PROVIDER_ERROR" ||
		data["detail"] != "Wait and retry. The engine applies exponential backoff internally up to 3 attempts before surfacing this error." {
		t.Errorf("rate limited: %v", errObj)
	}
	if n := limited.Load(); n != 3 {
		t.Errorf("rate limited: %d attempts, want 3", n)
	}

	e.send(t, `{"jsonrpc":"2.0","id":"bye","method":"shutdown","params":{}}`)
	rest, _ := io.ReadAll(e.stdout)
	e.wait(t)
	if strings.Contains(string(rest)+e.stderr.String(), providerTestKey) {
		t.Error("the API key appears in the engine's output or log")
	}
}

func TestBinaryJudgeTimeout(t *testing.T) {
	e, _ := startWithProvider(t, fakeOpenAI(t, new(atomic.Int32)), "--log-level=warn", "--eval-timeout=300ms")
	e.send(t, batch56("slow", slowMarker, `{"assertion_id":"slow","type":"llm_judge","spec":{"rubric":"helpfulness"}}`))
	errObj, _ := e.answer(t)["error"].(map[string]any)
	data, _ := errObj["data"].(map[string]any)
	if fmt.Sprint(errObj["code"]) != "3002" || data["retryable"] != true {
		t.Errorf("a judge slower than --eval-timeout: want 3002 TIMEOUT, retryable; got %v", errObj)
	}
}

func TestBinaryNoProviderNoCapability(t *testing.T) {
	for _, k := range []string{"OPENAI_API_KEY", "ATTEST_OPENAI_API_KEY", "OPENAI_BASE_URL", "ANTHROPIC_API_KEY", "ANTHROPIC_BASE_URL"} {
		t.Setenv(k, "")
	}
	bin := buildEngine(t)
	e := start(t, bin, "--log-level=warn")
	e.send(t, init56)
	res := e.answer(t)["result"].(map[string]any)
	if res["compatible"] != false || !strings.Contains(fmt.Sprint(res["missing"]), "layers_5_6") {
		t.Errorf("no provider configured: layers_5_6 must be missing, got %v", res)
	}
}
