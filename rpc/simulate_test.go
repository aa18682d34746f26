// simulate_test.go: the simulation methods over the wire: a complete scenario transcript, and the
// simulated user against a loopback stand-in, recorded and replayed offline.

package rpc

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"attest-engine/assert"
	"attest-engine/provider"
)

// session runs a server and sends lines one at a time, each answered before the next is sent, as an SDK
// driving a scenario does (occurrences and the ledger follow the calls' order).
type session struct {
	in   *io.PipeWriter
	out  *bufio.Reader
	done chan error
}

func newSession(t *testing.T, cfg assert.Config) *session {
	t.Helper()
	eng, err := assert.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	s := New(Options{Engine: eng, Config: cfg})
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	ss := &session{in: inW, out: bufio.NewReader(outR), done: make(chan error, 1)}
	go func() { ss.done <- s.Serve(context.Background(), inR, outW); outW.Close() }()
	t.Cleanup(func() { inW.Close(); <-ss.done })
	return ss
}

func (ss *session) ask(t *testing.T, line string) string {
	t.Helper()
	if _, err := io.WriteString(ss.in, strings.TrimSuffix(line, "\n")+"\n"); err != nil {
		t.Fatal(err)
	}
	ans, err := ss.out.ReadString('\n')
	if err != nil {
		t.Fatalf("no answer to %.80s: %v", line, err)
	}
	return ans
}

func noEnv(string) string { return "" }

// TestSimulationScenario is docs/simulation.md's complete scenario: a scripted user, mocks with a fail_until, a
// latency and an injection fault, the ledger, three runs evaluated with error_recovery and
// grounded_values, each error of the decision table, and the per-scenario summary at shutdown.
func TestSimulationScenario(t *testing.T) {
	in, err := os.ReadFile("../testdata/simulate/scenario.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	ss := newSession(t, assert.Config{Settings: provider.Settings{Getenv: noEnv}})
	var got strings.Builder
	for _, line := range strings.SplitAfter(strings.TrimSpace(string(in)), "\n") {
		got.WriteString(durations.ReplaceAllString(ss.ask(t, line), `"${1}duration_ms":0`))
	}
	checkGolden(t, "../testdata/simulate/scenario.golden.jsonl", got.String(), "docs/simulation.md's scenario")
}

// standIn is a loopback OpenAI-compatible chat server: the simulated user answers "Turn n" (n counted
// from the history it receives) and "Thanks, bye ###STOP###" at turn 20; a JSON-mode request (the judge)
// gets a verdict. It records what each request carried.
type standIn struct {
	mu    sync.Mutex
	calls int
	bad   []string // what a request got wrong
}

func (s *standIn) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	var req struct {
		Messages       []map[string]any `json:"messages"`
		Temperature    *float64         `json:"temperature"`
		MaxTokens      *int             `json:"max_tokens"`
		ResponseFormat map[string]any   `json:"response_format"`
	}
	body, _ := io.ReadAll(r.Body)
	raw := map[string]any{}
	_ = json.Unmarshal(body, &raw)
	if err := json.Unmarshal(body, &req); err != nil || len(req.Messages) == 0 {
		http.Error(w, "bad request", 400)
		return
	}
	s.mu.Lock()
	s.calls++
	fail := func(format string, a ...any) { s.bad = append(s.bad, fmt.Sprintf(format, a...)) }
	if _, ok := raw["temperature"]; !ok || req.Temperature == nil || *req.Temperature != 0 {
		fail("temperature not sent as 0: %s", body)
	}
	s.mu.Unlock()
	reply := ""
	if req.ResponseFormat != nil {
		reply = `{"score": 0.9, "reason": "The user's issue was resolved."}`
	} else {
		s.mu.Lock()
		if req.Messages[0]["role"] != "system" || !strings.Contains(fmt.Sprint(req.Messages[0]["content"]), "You are Dana. You want a refund for ORD-123.") {
			fail("system prompt: %v", req.Messages[0])
		}
		if req.MaxTokens == nil || *req.MaxTokens != 300 {
			fail("max_tokens not 300: %s", body)
		}
		// Flipped: the agent's turns are user, the simulated user's own are assistant.
		for _, m := range req.Messages[1:] {
			c := fmt.Sprint(m["content"])
			if (strings.HasPrefix(c, "Agent") && m["role"] != "user") || (strings.HasPrefix(c, "Turn") && m["role"] != "assistant") {
				fail("role not flipped: %v", m)
			}
		}
		s.mu.Unlock()
		n := 0
		for _, m := range req.Messages {
			if m["role"] == "assistant" {
				n++
			}
		}
		reply = fmt.Sprintf("Turn %d", n+1)
		if n+1 == 20 {
			reply = "Thanks, bye ###STOP###"
		}
	}
	out, _ := json.Marshal(map[string]any{
		"choices": []any{map[string]any{"message": map[string]any{"role": "assistant", "content": reply}}},
		"usage":   map[string]any{"prompt_tokens": 50, "completion_tokens": 5},
	})
	w.Header().Set("Content-Type", "application/json")
	w.Write(out)
}

// conversation drives a 20-turn simulated conversation and a judge over it, and returns every answer.
func conversation(t *testing.T, cfg assert.Config) []string {
	t.Helper()
	ss := newSession(t, cfg)
	var answers []string
	answers = append(answers, ss.ask(t, `{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"sdk_name":"t","sdk_version":"0","protocol_version":1,"required_capabilities":["simulation"],"preferred_encoding":"json"}}`))
	history := []map[string]string{} // an empty history is [], not null
	persona := map[string]any{"name": "Dana", "system_prompt": "You want a refund for ORD-123.", "temperature": 0, "max_tokens": 300}
	for turn := 1; turn <= 20; turn++ {
		p, _ := json.Marshal(map[string]any{"persona": persona, "conversation_history": history})
		ans := ss.ask(t, fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"generate_user_message","params":%s}`, turn, p))
		answers = append(answers, ans)
		var a struct {
			Result struct {
				Message string `json:"message"`
				Stop    bool   `json:"stop"`
			} `json:"result"`
		}
		if err := json.Unmarshal([]byte(ans), &a); err != nil || a.Result.Message == "" {
			t.Fatalf("turn %d: %s", turn, ans)
		}
		if a.Result.Stop != (turn == 20) {
			t.Fatalf("turn %d: stop = %v: %s", turn, a.Result.Stop, ans)
		}
		history = append(history, map[string]string{"role": "user", "content": a.Result.Message},
			map[string]string{"role": "assistant", "content": fmt.Sprintf("Agent reply %d", turn)})
	}
	tr := `{"schema_version":1,"trace_id":"trc_sim","agent_id":"a","input":{"user_message":"Refund ORD-123"},"steps":[],"output":{"message":"Your refund is on its way."},"metadata":{}}`
	answers = append(answers, ss.ask(t, `{"jsonrpc":"2.0","id":21,"method":"evaluate_batch","params":{"trace":`+tr+`,"assertions":[{"assertion_id":"j","type":"llm_judge","spec":{"criteria":"Was the refund handled?"}}]}}`))
	answers = append(answers, ss.ask(t, `{"jsonrpc":"2.0","id":22,"method":"shutdown","params":{}}`))
	for i := range answers {
		answers[i] = durations.ReplaceAllString(answers[i], `"${1}duration_ms":0`)
	}
	return answers
}

// TestSimulatedUserRecordReplay records a 20-turn conversation and a judge against the stand-in, then
// replays it offline with the stand-in stopped: byte-identical answers, and no request reaches the network.
func TestSimulatedUserRecordReplay(t *testing.T) {
	stand := &standIn{}
	srv := httptest.NewServer(stand)
	dir := t.TempDir()
	env := func(k string) string {
		if k == "OPENAI_BASE_URL" {
			return srv.URL
		}
		return ""
	}
	cfg := assert.Config{Settings: provider.Settings{Getenv: env, CacheDir: dir}}
	recorded := conversation(t, cfg)
	if stand.calls != 21 {
		t.Errorf("the stand-in got %d requests, want 20 turns and 1 judge call", stand.calls)
	}
	for _, b := range stand.bad {
		t.Error(b)
	}
	if !strings.Contains(recorded[20], `"stop":true,"stop_reason":"stop"`) || !strings.Contains(recorded[20], `"message":"Thanks, bye"`) {
		t.Errorf("turn 20: %s", recorded[20])
	}
	srv.Close()

	cfg.Offline = true
	replayed := conversation(t, cfg)
	if !strings.Contains(replayed[1], `"cost":0,`) || !strings.Contains(replayed[1], `"tokens":0}`) {
		t.Errorf("a replayed turn spends nothing: %s", replayed[1])
	}
	// Cost and tokens are what this run spent (0 when replayed, the engine's rule for every cached
	// result); everything else is byte-identical.
	spent := regexp.MustCompile(`"(total_)?cost":[0-9.e-]+|"tokens":\d+`)
	for i := range recorded {
		recorded[i], replayed[i] = spent.ReplaceAllString(recorded[i], `"${1}cost":0`), spent.ReplaceAllString(replayed[i], `"${1}cost":0`)
		if recorded[i] != replayed[i] {
			t.Errorf("answer %d differs offline:\nrecorded %s\nreplayed %s", i, recorded[i], replayed[i])
		}
	}
	// A turn never recorded is a clear, non-retryable error offline.
	ss := newSession(t, cfg)
	ss.ask(t, `{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"sdk_name":"t","sdk_version":"0","protocol_version":1,"required_capabilities":[],"preferred_encoding":"json"}}`)
	miss := ss.ask(t, `{"jsonrpc":"2.0","id":1,"method":"generate_user_message","params":{"persona":{"name":"Someone else","system_prompt":"You want a refund."},"conversation_history":[]}}`)
	if !strings.Contains(miss, `"code":2001`) || !strings.Contains(miss, `offline: no simulated user result for model \"gpt-4.1-mini\"`) || !strings.Contains(miss, `"retryable":false`) {
		t.Errorf("offline miss: %s", miss)
	}
}

// TestMockSleepDeadline: "sleep": true waits the latency within --eval-timeout; beyond it the answer is
// 3002, and without sleep the same call answers at once with the latency only reported.
func TestMockSleepDeadline(t *testing.T) {
	eng, err := assert.New(assert.Config{Settings: provider.Settings{Getenv: noEnv}})
	if err != nil {
		t.Fatal(err)
	}
	const rules = `"mocks":[{"id":"m","tool":"t","result":1}],"faults":[{"id":"slow","tool":"t","kind":"latency","ms":600000}]`
	in := `{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"sdk_name":"t","sdk_version":"0","protocol_version":1,"required_capabilities":["simulation"],"preferred_encoding":"json"}}
{"jsonrpc":"2.0","id":1,"method":"mock_tool_call","params":{"scenario_id":"s","seed":1,"tool":"t","args":{},"sleep":true,` + rules + `}}
{"jsonrpc":"2.0","id":2,"method":"mock_tool_call","params":{"scenario_id":"s","seed":1,"tool":"t","args":{"x":1},` + rules + `}}
{"jsonrpc":"2.0","id":3,"method":"mock_tool_call","params":{"scenario_id":"s","seed":1,"tool":"t","args":{},"sleep":"yes",` + rules + `}}
`
	s := New(Options{Engine: eng, EvalTimeout: 20 * time.Millisecond})
	var out strings.Builder
	if err := s.Serve(context.Background(), strings.NewReader(in), &out); err != nil {
		t.Fatal(err)
	}
	got := out.String()
	for _, want := range []string{
		`"id":1,"error":{"code":3002`,
		`"id":2,"result":{"attempt":1,"fault":{"id":"slow","kind":"latency","ms":600000},"latency_ms":600000`,
		`"id":3,"error":{"code":-32602,"message":"invalid params: sleep: must be a boolean"`,
	} {
		if !strings.Contains(got, want) {
			t.Errorf("answers lack %s:\n%s", want, got)
		}
	}
}

// TestSimulationModelOverride: simulation.model picks the simulated user's model on the judge's endpoint.
func TestSimulationModelOverride(t *testing.T) {
	var model string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var req struct{ Model string }
		_ = json.NewDecoder(r.Body).Decode(&req)
		model = req.Model
		w.Write([]byte(`{"choices":[{"message":{"content":"Hello"}}],"usage":{"prompt_tokens":1,"completion_tokens":1}}`))
	}))
	defer srv.Close()
	cfg := assert.Config{Settings: provider.Settings{Getenv: func(k string) string {
		if k == "OPENAI_BASE_URL" {
			return srv.URL
		}
		return ""
	}}}
	cfg.Simulation.Model = "sim-model"
	ss := newSession(t, cfg)
	ss.ask(t, `{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"sdk_name":"t","sdk_version":"0","protocol_version":1,"required_capabilities":[],"preferred_encoding":"json"}}`)
	ans := ss.ask(t, `{"jsonrpc":"2.0","id":1,"method":"generate_user_message","params":{"persona":{"name":"Dana","system_prompt":"You want a refund."},"conversation_history":[]}}`)
	if model != "sim-model" || !strings.Contains(ans, `"message":"Hello","stop":false,"stop_reason":null`) {
		t.Errorf("model sent %q, answer %s", model, ans)
	}
}

// TestSimulationLoneSurrogate: a simulation request whose params escape a lone surrogate is -32602 naming
// where; a surrogate pair is an ordinary character. Decoded, "\ud800", "\udc00" and "\ufffd" were one
// value: one occurrence count and one set of decisions.
func TestSimulationLoneSurrogate(t *testing.T) {
	ss := newSession(t, assert.Config{Settings: provider.Settings{Getenv: noEnv}})
	ss.ask(t, `{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"sdk_name":"t","sdk_version":"0","protocol_version":1,"required_capabilities":["simulation"],"preferred_encoding":"json"}}`)
	mocks := `"mocks":[{"id":"m","tool":"*","result":"ok"}]`
	for _, tc := range []struct{ name, params, want string }{
		{"args value", `"scenario_id":"s","seed":1,"tool":"t","args":{"q":["a","\ud800"]},` + mocks, `"invalid params: args.q[1]: a lone surrogate escape (not valid Unicode)"`},
		{"args name", `"scenario_id":"s","seed":1,"tool":"t","args":{"\udc00":1},` + mocks, "\"invalid params: args.\uFFFD: a lone surrogate escape"},
		{"scenario id", `"scenario_id":"s\udbff","seed":1,"tool":"t","args":{},` + mocks, `"invalid params: scenario_id: a lone surrogate`},
		{"rule table", `"scenario_id":"s","seed":1,"tool":"t","args":{},"mocks":[{"id":"m","tool":"*","result":"\ud800"}]`, `"invalid params: mocks[0].result: a lone surrogate`},
		{"pair", `"scenario_id":"s","seed":1,"tool":"t","args":{"q":"\ud83d\ude00"},` + mocks, `"result":{"attempt":1,"fault":null,"latency_ms":0,"occurrence":1,"result":"ok","rule_id":"m"}`},
		{"replacement character", `"scenario_id":"s","seed":1,"tool":"t","args":{"q":"\ufffd"},` + mocks, `"occurrence":1`},
	} {
		ans := ss.ask(t, `{"jsonrpc":"2.0","id":1,"method":"mock_tool_call","params":{`+tc.params+`}}`)
		if !strings.Contains(ans, tc.want) {
			t.Errorf("%s: answer %s, want it to hold %s", tc.name, ans, tc.want)
		}
		if strings.Contains(tc.want, "invalid params") && !strings.Contains(ans, `"code":-32602`) {
			t.Errorf("%s: answer %s, want -32602", tc.name, ans)
		}
	}
	for _, m := range []string{"simulation_ledger", "generate_user_message"} {
		ans := ss.ask(t, `{"jsonrpc":"2.0","id":2,"method":"`+m+`","params":{"scenario_id":"\ud800","persona":{"name":"\ud800"},"conversation_history":[],"scripted":["hi"]}}`)
		if !strings.Contains(ans, `"code":-32602`) || !strings.Contains(ans, "lone surrogate") {
			t.Errorf("%s: answer %s, want -32602 naming a lone surrogate", m, ans)
		}
	}
}

// TestSimulationLedgerPages: simulation_ledger's offset and limit page the ledger, next_offset names the
// next page (null on the last), and a bad offset or limit is -32602.
func TestSimulationLedgerPages(t *testing.T) {
	ss := newSession(t, assert.Config{Settings: provider.Settings{Getenv: noEnv}})
	ss.ask(t, `{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"sdk_name":"t","sdk_version":"0","protocol_version":1,"required_capabilities":["simulation"],"preferred_encoding":"json"}}`)
	for i := range 5 {
		ss.ask(t, fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"mock_tool_call","params":{"scenario_id":"s","seed":1,"tool":"t","args":{"i":%d},"mocks":[{"id":"m","tool":"*","result":"ok"}]}}`, i+1, i))
	}
	for _, c := range []struct{ params, want string }{
		{`"offset":1,"limit":2`, `"next_offset":3,"scenario_id":"s","total":5`},
		{`"offset":3,"limit":2`, `"next_offset":null,"scenario_id":"s","total":5`},
		{`"offset":9`, `{"entries":[],"next_offset":null,"scenario_id":"s","total":5}`},
		{`"limit":2`, `"seq":2,"tool":"t"}],"next_offset":2`},
		{`"offset":-1`, `"invalid params: offset: must be an integer from 0 to 100000"`},
		{`"limit":0`, `"invalid params: limit: must be an integer from 1 to 100000"`},
		{`"limit":1.5`, `"invalid params: limit: must be an integer`},
	} {
		if ans := ss.ask(t, `{"jsonrpc":"2.0","id":9,"method":"simulation_ledger","params":{"scenario_id":"s",`+c.params+`}}`); !strings.Contains(ans, c.want) {
			t.Errorf("%s: %s, want it to hold %s", c.params, ans, c.want)
		}
	}
}
