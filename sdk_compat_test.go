// sdk_compat_test.go: the engine as the existing SDKs drive it (../shared/sdk-compat.md), end to end over pipes.

package main

import (
	"encoding/json"
	"fmt"
	"io"
	"math/rand/v2"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// sdkRefundTrace is the spec §2.2 request's trace, as the Python SDK sends it.
const sdkRefundTrace = `{"schema_version":1,"trace_id":"trc_abc123","agent_id":"customer-service-agent",
"input":{"user_message":"I want a refund for order ORD-123","context":{}},
"steps":[
 {"type":"llm_call","name":"reasoning","args":{"model":"gpt-4.1","prompt":"You are a customer service agent."},"result":{"completion":"I need to look up the order to verify eligibility."},"metadata":{"duration_ms":1200,"cost_usd":0.003}},
 {"type":"tool_call","name":"lookup_order","args":{"order_id":"ORD-123"},"result":{"status":"delivered","amount":89.99,"eligible_for_refund":true},"metadata":{"duration_ms":45}},
 {"type":"tool_call","name":"process_refund","args":{"order_id":"ORD-123","amount":89.99},"result":{"refund_id":"RFD-001","estimated_days":3},"metadata":{"duration_ms":120}}],
"output":{"message":"Your refund of $89.99 has been processed. You'll see it in 3 business days. Refund ID: RFD-001.","structured":{"refund_id":"RFD-001","confidence":0.95}},
"metadata":{"total_tokens":1350,"cost_usd":0.0067,"latency_ms":4200,"model":"gpt-4.1","timestamp":"2026-02-18T10:30:00Z"},
"parent_trace_id":null}`

// sdkDSLRow is one row of the sdk-compat table: what a DSL method sends, and
// the status the spec's refund trace must get. want "error" is a 1002.
type sdkDSLRow struct {
	method, typ, spec, want string
	layer56                 bool
}

var sdkDSLRows = []sdkDSLRow{
	{"output_matches_schema", "schema", `{"target":"output.structured","schema":{"type":"object","required":["refund_id","confidence"],"properties":{"confidence":{"type":"number","maximum":1}}}}`, "pass", false},
	{"output_field_matches_schema", "schema", `{"target":"output.message","schema":{"type":"string","minLength":10}}`, "pass", false},
	{"tool_args_match_schema", "schema", `{"target":"steps[?name=='process_refund'].args","schema":{"type":"object","required":["order_id","amount"]}}`, "pass", false},
	{"tool_result_matches_schema", "schema", `{"target":"steps[?name=='lookup_order'].result","schema":{"type":"object","required":["status","amount"]}}`, "pass", false},
	{"cost_under", "constraint", `{"field":"metadata.cost_usd","operator":"lte","value":0.01,"soft":false}`, "pass", false},
	{"latency_under", "constraint", `{"field":"metadata.latency_ms","operator":"lte","value":5000,"soft":null}`, "pass", false},
	{"tokens_under (soft)", "constraint", `{"field":"metadata.total_tokens","operator":"lte","value":1000,"soft":true}`, "soft_fail", false},
	{"tokens_between", "constraint", `{"field":"metadata.total_tokens","operator":"between","min":100,"max":2000,"soft":false}`, "pass", false},
	{"step_count", "constraint", `{"field":"steps.length","operator":"eq","value":3,"soft":false}`, "pass", false},
	{"tool_call_count", "constraint", `{"field":"steps[?type=='tool_call'].length","operator":"gte","value":2,"soft":false}`, "pass", false},
	{"tools_called_in_order", "trace", `{"check":"contains_in_order","tools":["lookup_order","process_refund"],"soft":false}`, "pass", false},
	{"tools_called_exactly", "trace", `{"check":"exact_order","tools":["lookup_order","process_refund"],"soft":false}`, "pass", false},
	{"no_tool_loops", "trace", `{"check":"loop_detection","tool":"lookup_order","max_repetitions":1,"soft":false}`, "pass", false},
	{"no_duplicate_tools", "trace", `{"check":"no_duplicates","tools":null,"soft":false}`, "pass", false},
	{"required_tools", "trace", `{"check":"required_tools","tools":["lookup_order","process_refund"],"soft":false}`, "pass", false},
	{"forbidden_tools", "trace", `{"check":"forbidden_tools","tools":["delete_account"],"soft":false}`, "pass", false},
	{"tools_called_in_order naming an llm_call step", "trace", `{"check":"contains_in_order","tools":["reasoning","process_refund"],"soft":false}`, "pass", false},
	{"tools_called_exactly naming an llm_call step", "trace", `{"check":"exact_order","tools":["reasoning","lookup_order","process_refund"],"soft":false}`, "pass", false},
	{"required_tools naming an llm_call step", "trace", `{"check":"required_tools","tools":["reasoning"],"soft":false}`, "pass", false},
	{"output_contains", "content", `{"target":"output.message","check":"contains","value":"REFUND","case_sensitive":false,"soft":false}`, "pass", false},
	{"output_not_contains", "content", `{"target":"output.message","check":"not_contains","value":"cannot process","case_sensitive":null,"soft":true}`, "pass", false},
	{"output_matches_regex", "content", `{"target":"output.message","check":"regex_match","value":"RFD-\\d{3,}","soft":false}`, "pass", false},
	{"output_matches_regex is case-sensitive", "content", `{"target":"output.message","check":"regex_match","value":"rfd-\\d{3,}","soft":false}`, "hard_fail", false},
	{"output_has_all_keywords", "content", `{"target":"output.message","check":"keyword_all","values":["refund","business days","RFD-"],"case_sensitive":false,"soft":false}`, "pass", false},
	{"output_has_any_keyword", "content", `{"target":"output.message","check":"keyword_any","values":["denied","refund"],"case_sensitive":false,"soft":false}`, "pass", false},
	{"output_forbids", "content", `{"target":"output.message","check":"forbidden","values":["kill","harm","illegal","bomb"]}`, "pass", false},
	{"content_contains", "content", `{"target":"steps[?name=='lookup_order'].result.status","check":"contains","value":"deliver","case_sensitive":false,"soft":false}`, "pass", false},
	{"output_similar_to", "embedding", `{"target":"output.message","reference":"The refund has been processed.","threshold":0.8,"model":null,"soft":false}`, "pass", true},
	{"output_similar_to (dynamic)", "embedding", `{"target":"output.message","reference":"The refund has been processed.","threshold":"dynamic","model":null,"soft":false}`, "error", true},
	{"passes_judge", "llm_judge", `{"target":"output.message","criteria":"Confirms the refund with an ID","rubric":"default","threshold":0.8,"model":null,"soft":false}`, "pass", true},
	{"passes_judge (rubric in words)", "llm_judge", `{"target":"output.message","criteria":null,"rubric":"Score 1.0 if the response confirms the refund and gives its ID, else 0.0","threshold":0.8,"model":null,"soft":false}`, "pass", true},
	{"passes_judge (unknown rubric name)", "llm_judge", `{"target":"output.message","criteria":null,"rubric":"professional_tone","threshold":0.8,"model":null,"soft":false}`, "error", true},
}

// sdkTreeRows are the trace_tree checks of the sdk-compat table, each passing
// on testdata/multi_agent/tree.json.
var sdkTreeRows = []string{
	`{"check":"agent_called","agent_id":"db-agent","soft":false}`,
	`{"check":"delegation_depth","max_depth":2,"soft":false}`,
	`{"check":"agent_output_contains","agent_id":"researcher","value":"30 DAYS","case_sensitive":null,"soft":false}`,
	`{"check":"cross_agent_data_flow","from_agent":"web-search-agent","to_agent":"db-agent","field":"doc_id","soft":false}`,
	`{"check":"aggregate_cost","operator":"lte","value":0.01,"soft":false}`,
	`{"check":"aggregate_tokens","operator":"lt","value":5000,"soft":false}`,
	`{"check":"aggregate_latency","operator":"lte","value":20000,"soft":true}`,
	`{"check":"follows_transitions","transitions":[["orchestrator","researcher"],["researcher","web-search-agent"],["researcher","db-agent"]],"soft":false}`,
	`{"check":"agent_ordered_before","agent_a":"web-search-agent","agent_b":"db-agent","soft":false}`,
	`{"check":"agents_overlap","agent_a":"web-search-agent","agent_b":"researcher","soft":false}`,
	`{"check":"agent_wall_time_under","agent_id":"db-agent","max_ms":1000,"soft":false}`,
	`{"check":"ordered_agents","groups":[["web-search-agent"],["db-agent"]],"soft":false}`,
	`{"check":"all_tools_called","tools":["search_web","query_orders","process_refund"],"soft":false}`,
}

// sdkProvider answers like an OpenAI-compatible server: every text gets the
// same embedding (similarity 1), every judge scores 0.9.
func sdkProvider(t *testing.T) *httptest.Server {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var req struct {
			Input []string `json:"input"`
		}
		_ = json.NewDecoder(r.Body).Decode(&req)
		w.Header().Set("Content-Type", "application/json")
		switch {
		case strings.HasSuffix(r.URL.Path, "/embeddings"):
			var data []string
			for i := range req.Input {
				data = append(data, fmt.Sprintf(`{"index":%d,"embedding":[0.6,0.8]}`, i))
			}
			fmt.Fprintf(w, `{"data":[%s],"usage":{"prompt_tokens":10,"total_tokens":10}}`, strings.Join(data, ","))
		case strings.HasSuffix(r.URL.Path, "/chat/completions"):
			io.WriteString(w, `{"choices":[{"message":{"content":"{\"score\": 0.9, \"reason\": \"Confirms the refund with ID RFD-001.\"}"}}],"usage":{"prompt_tokens":100,"completion_tokens":20}}`)
		default:
			http.NotFound(w, r)
		}
	}))
	t.Cleanup(srv.Close)
	return srv
}

// sdk is the SDK's side of the pipes: one request, exactly one line back.
type sdkSession struct {
	e      *engine
	nextID int
}

func (s *sdkSession) call(t *testing.T, method, params string) map[string]any {
	t.Helper()
	s.nextID++
	s.e.send(t, fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":%q,"params":%s}`, s.nextID, method, sdkCompact(t, params)))
	ans := s.e.answer(t)
	if fmt.Sprint(ans["id"]) != fmt.Sprint(s.nextID) {
		t.Fatalf("%s: answer for id %v, want %d (an unsolicited line?): %v", method, ans["id"], s.nextID, ans)
	}
	return ans
}

func sdkCompact(t *testing.T, s string) string {
	t.Helper()
	var v any
	if err := json.Unmarshal([]byte(s), &v); err != nil {
		t.Fatalf("test JSON: %v\n%s", err, s)
	}
	b, _ := json.Marshal(v)
	return string(b)
}

// assertionID is what the SDKs generate: "assert_" and 8 hex digits.
func sdkAssertionID() string { return fmt.Sprintf("assert_%08x", rand.Uint32()) }

// sdkBatch is the params of an evaluate_batch of specs of type typ on
// trace, each with a new random assertion id, and those ids in order.
func sdkBatch(trace string, typ string, specs ...string) (params string, ids []string) {
	var as []string
	for _, s := range specs {
		ids = append(ids, sdkAssertionID())
		as = append(as, fmt.Sprintf(`{"assertion_id":%q,"type":%q,"spec":%s}`, ids[len(ids)-1], typ, s))
	}
	return `{"trace":` + trace + `,"assertions":[` + strings.Join(as, ",") + `]}`, ids
}

func TestSDKCompat(t *testing.T) {
	bin := buildEngine(t)
	srv := sdkProvider(t)
	t.Setenv("OPENAI_BASE_URL", srv.URL)
	t.Setenv("OPENAI_API_KEY", "")
	t.Setenv("ATTEST_OPENAI_API_KEY", "sk-test-compat") // what the SDKs' users set
	e := start(t, bin, "--log-level=warn")
	s := &sdkSession{e: e}

	hello := s.call(t, "initialize", `{"sdk_name":"attest-python","sdk_version":"0.1.0","protocol_version":1,"required_capabilities":["layers_1_4"],"preferred_encoding":"json"}`)
	res, _ := hello["result"].(map[string]any)
	if res == nil {
		t.Fatalf("initialize: %v", hello)
	}
	var caps []string
	for _, c := range res["capabilities"].([]any) {
		caps = append(caps, c.(string))
	}
	// The SDKs abort a session that is not compatible, and the provider
	// stand-in above makes layers 5–6 usable: a build that stops
	// advertising either capability fails here, it is not skipped.
	if res["compatible"] != true {
		t.Fatalf("initialize asking for layers_1_4: not compatible (capabilities %v): the SDKs would abort", caps)
	}
	if !slices.Contains(caps, "layers_5_6") {
		t.Fatalf("layers_5_6 not advertised with OPENAI_BASE_URL and ATTEST_OPENAI_API_KEY set: %v", caps)
	}
	treeJSON, err := os.ReadFile(filepath.Join("testdata", "multi_agent", "tree.json"))
	if err != nil {
		t.Fatal(err)
	}
	tree := sdkCompact(t, string(treeJSON))

	for _, row := range sdkDSLRows {
		t.Run(row.method, func(t *testing.T) {
			params, ids := sdkBatch(sdkRefundTrace, row.typ, row.spec)
			sdkCheck(t, s.call(t, "evaluate_batch", params), ids[0], row.want)
		})
	}
	t.Run("all layer 1-4 rows in one batch", func(t *testing.T) {
		var as, ids []string
		var rows []sdkDSLRow
		for _, row := range sdkDSLRows {
			if !row.layer56 {
				ids = append(ids, sdkAssertionID())
				as = append(as, fmt.Sprintf(`{"assertion_id":%q,"type":%q,"spec":%s}`, ids[len(ids)-1], row.typ, row.spec))
				rows = append(rows, row)
			}
		}
		ans := s.call(t, "evaluate_batch", `{"trace":`+sdkRefundTrace+`,"assertions":[`+strings.Join(as, ",")+`]}`)
		r, _ := ans["result"].(map[string]any)
		results, _ := r["results"].([]any)
		if len(results) != len(rows) {
			t.Fatalf("%d results for %d assertions: %v", len(results), len(rows), ans)
		}
		for i, r := range results {
			row, res := rows[i], r.(map[string]any)
			if got := res["status"]; got != row.want {
				t.Errorf("%s: status %v, want %s: %v", row.method, got, row.want, r)
			}
			if got := res["assertion_id"]; got != ids[i] {
				t.Errorf("result %d (%s): assertion_id %v, want %s, the request's in its order: %v", i, row.method, got, ids[i], r)
			}
		}
	})
	for _, spec := range sdkTreeRows {
		var check struct{ Check string }
		json.Unmarshal([]byte(spec), &check)
		t.Run("trace_tree "+check.Check, func(t *testing.T) {
			params, ids := sdkBatch(tree, "trace_tree", spec)
			sdkCheck(t, s.call(t, "evaluate_batch", params), ids[0], "pass")
		})
	}
	t.Run("validate_trace_tree", func(t *testing.T) {
		ans := s.call(t, "validate_trace_tree", `{"trace":`+tree+`}`)
		r, _ := ans["result"].(map[string]any)
		if r == nil || r["valid"] != true || fmt.Sprint(r["depth"]) != "2" || fmt.Sprint(r["agent_count"]) != "4" || fmt.Sprint(r["aggregate_tokens"]) != "2200" {
			t.Errorf("validate_trace_tree: %v", ans)
		}
	})
	t.Run("submit_plugin_result", func(t *testing.T) {
		ans := s.call(t, "submit_plugin_result", `{"trace_id":"trc_abc123","plugin_name":"my_custom_safety_checker","assertion_id":"`+sdkAssertionID()+`","result":{"status":"pass","score":0.88,"explanation":"ok","metadata":{"classifier_version":"2.1.0"}}}`)
		if r, _ := ans["result"].(map[string]any); r == nil || r["accepted"] != true {
			t.Errorf("submit_plugin_result: %v", ans)
		}
	})

	ans := s.call(t, "shutdown", `{}`)
	if r, _ := ans["result"].(map[string]any); r == nil || fmt.Sprint(r["sessions_completed"]) != "1" {
		t.Errorf("shutdown: %v", ans)
	}
	if rest, _ := io.ReadAll(e.stdout); len(rest) > 0 {
		t.Errorf("unsolicited lines after shutdown: %s", rest)
	}
	if code := e.wait(t); code != 0 {
		t.Errorf("exit code %d", code)
	}
	for _, l := range strings.Split(strings.TrimSpace(e.stderr.String()), "\n") {
		var m map[string]any
		if l != "" && (json.Unmarshal([]byte(l), &m) != nil || m["level"] == "info" || m["level"] == "debug") {
			t.Errorf("stderr at --log-level=warn: %q", l)
		}
	}
}

// sdkCheck checks the answer to a batch of one assertion, of id id: its
// result has want for status and id for assertion_id; want "error" is a
// 1002 instead.
func sdkCheck(t *testing.T, ans map[string]any, id, want string) {
	t.Helper()
	if want == "error" {
		if e, _ := ans["error"].(map[string]any); e == nil || fmt.Sprint(e["code"]) != "1002" {
			t.Errorf("want ASSERTION_ERROR 1002, got %v", ans)
		}
		return
	}
	r, _ := ans["result"].(map[string]any)
	if r == nil {
		t.Fatalf("want a result, got %v", ans)
	}
	results, _ := r["results"].([]any)
	if len(results) != 1 {
		t.Fatalf("%d results", len(results))
	}
	res := results[0].(map[string]any)
	if res["status"] != want {
		t.Errorf("status %v, want %s: %v", res["status"], want, res["explanation"])
	}
	if got := res["assertion_id"]; got != id {
		t.Errorf("assertion_id %v, want %s, the request's: %v", got, id, res)
	}
}
