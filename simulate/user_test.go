package simulate

import (
	"bytes"
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func userRequest(t testing.TB, s string) *UserRequest {
	t.Helper()
	p := decode(t, s).(map[string]any)
	// The required params, where a case is not about them.
	if _, ok := p["conversation_history"]; !ok {
		p["conversation_history"] = []any{}
	}
	if _, ok := p["persona"]; !ok {
		p["persona"] = map[string]any{"system_prompt": "p"}
	}
	r, err := ParseUserRequest(p)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

func TestMessagesFlipRoles(t *testing.T) {
	cases := []struct {
		name, history string
		want          []Message
	}{
		{"agent first: its turns become user", `[{"role": "assistant", "content": "Hi, how can I help?"}, {"role": "user", "content": "Refund ORD-1"}, {"role": "assistant", "content": "Done."}]`,
			[]Message{{"user", "Hi, how can I help?"}, {"assistant", "Refund ORD-1"}, {"user", "Done."}}},
		{"simulated user first: an opening user message", `[{"role": "user", "content": "Refund ORD-1"}, {"role": "assistant", "content": "Which amount?"}]`,
			[]Message{{"user", opening}, {"assistant", "Refund ORD-1"}, {"user", "Which amount?"}}},
		{"nothing said yet", `[]`, []Message{{"user", opening}}},
		{"tool and system turns left out, same roles joined", `[{"role": "system", "content": "secret"}, {"role": "assistant", "content": "a"}, {"role": "tool", "content": "{}"}, {"role": "assistant", "content": "b"}]`,
			[]Message{{"user", "a\n\nb"}}},
	}
	for _, c := range cases {
		r := userRequest(t, `{"conversation_history": `+c.history+`}`)
		if diff := cmp.Diff(c.want, r.Messages()); diff != "" {
			t.Errorf("%s (-want +got):\n%s", c.name, diff)
		}
	}
}

func TestSystemPrompt(t *testing.T) {
	r := userRequest(t, `{"persona": {"name": "Dana", "system_prompt": "You want a refund for ORD-1.", "style": "terse", "temperature": 0.7, "max_tokens": 200}}`)
	want := "You are Dana. You want a refund for ORD-1.\n\nStyle: terse\n\nWhen the conversation is over, reply with ###STOP### alone."
	if got := r.System(); got != want {
		t.Errorf("System() =\n%q\nwant\n%q", got, want)
	}
	if r.Temperature != 0.7 || r.MaxTokens != 200 {
		t.Errorf("temperature %v, max_tokens %d", r.Temperature, r.MaxTokens)
	}
	if d := userRequest(t, `{}`); d.Temperature != 0 || d.MaxTokens != 1024 {
		t.Errorf("defaults: temperature %v, max_tokens %d", d.Temperature, d.MaxTokens)
	}
}

func TestFinishStopTokens(t *testing.T) {
	r := userRequest(t, `{}`)
	cases := []struct {
		in   string
		want Reply
	}{
		{"Thanks, that is all. ###STOP###", Reply{"Thanks, that is all.", true, "stop"}},
		{"###TRANSFER### I want a human", Reply{"I want a human", true, "transfer"}},
		{"Not my question ###OUT-OF-SCOPE### ###STOP###", Reply{"Not my question", true, "out-of-scope"}},
		{"Where is my refund?", Reply{"Where is my refund?", false, ""}},
		{"###stop### lower case is text", Reply{"###stop### lower case is text", false, ""}},
	}
	for _, c := range cases {
		if diff := cmp.Diff(c.want, r.Finish(c.in)); diff != "" {
			t.Errorf("Finish(%q) (-want +got):\n%s", c.in, diff)
		}
	}
	hashes := userRequest(t, `{"stop_tokens": ["###"]}`)
	if got := hashes.Finish("bye ###"); !got.Stop || got.StopReason != "###" || got.Message != "bye" {
		t.Errorf("a token of # marks alone: %+v, want stop_reason \"###\"", got)
	}
	custom := userRequest(t, `{"stop_tokens": ["<END>"]}`)
	if got := custom.Finish("bye <END>"); !got.Stop || got.StopReason != "<end>" || got.Message != "bye" {
		t.Errorf("custom stop token: %+v", got)
	}
}

func TestScripted(t *testing.T) {
	r := userRequest(t, `{"scripted": ["Refund ORD-1 please", "89.99 ###STOP###"], "conversation_history": [{"role": "user", "content": "Refund ORD-1 please"}, {"role": "assistant", "content": "Which amount?"}]}`)
	got, err := r.ScriptedReply()
	if err != nil || got != (Reply{"89.99", true, "stop"}) {
		t.Errorf("turn 2: %+v, %v", got, err)
	}
	past := userRequest(t, `{"scripted": ["one"], "conversation_history": [{"role": "user", "content": "one"}]}`)
	_, err = past.ScriptedReply()
	var se *ScriptError
	if !errors.As(err, &se) || !strings.Contains(err.Error(), "the script has 1 turns and turn 2 was asked for") {
		t.Errorf("past the script: %v", err)
	}
	if empty := userRequest(t, `{"scripted": []}`); !empty.Scripted() {
		t.Error("an empty script is still a script")
	}
}

func TestParseUserRequestErrors(t *testing.T) {
	cases := []struct{ in, want string }{
		{`{"persona": "x"}`, "persona: must be an object"},
		{`{"persona": {"temperature": 3}}`, "persona.temperature: must be a number from 0 to 2"},
		{`{"persona": {"max_tokens": 0}}`, "persona.max_tokens: must be an integer from 1 to 32768"},
		{`{"persona": {"mood": "x"}}`, "persona.mood: unknown field"},
		{`{"conversation_history": [{"role": "bot", "content": "x"}]}`, `conversation_history[0].role: "bot" is not user, assistant, system or tool`},
		{`{"conversation_history": [{"role": "user"}]}`, "conversation_history[0]: must be {role, content}"},
		{`{"scripted": [1]}`, "scripted[0]: must be a string"},
		{`{"stop_tokens": [""]}`, "stop_tokens: must not hold an empty string"},
		{`{"fault_config": 1}`, "fault_config: must be an object"},
		{`{"persona": {"system_prompt": "p"}}`, "conversation_history: required"},
		{`{"persona": {"system_prompt": "p"}, "conversation_history": null}`, "conversation_history: required"},
		{`{"conversation_history": []}`, "persona.system_prompt: required unless the turn is scripted"},
		{`{"persona": {"name": "Dana"}, "conversation_history": []}`, "persona.system_prompt: required unless"},
		{`{"persona": {"system_prompt": ""}, "conversation_history": []}`, "persona.system_prompt: required unless"},
		// docs/security.md: 1,000 turns, 4 MiB of content in all.
		{`{"conversation_history": [` + strings.TrimSuffix(strings.Repeat(`{"role": "user", "content": "x"},`, MaxHistory+1), ",") + `]}`, "conversation_history: must be an array of at most 1000 turns"},
		{`{"conversation_history": [{"role": "user", "content": "` + strings.Repeat("x", MaxHistoryBytes/2) + `"}, {"role": "assistant", "content": "` + strings.Repeat("x", MaxHistoryBytes/2+1) + `"}]}`,
			"conversation_history: content exceeds 4194304 bytes in all"},
	}
	for _, c := range cases {
		_, err := ParseUserRequest(decode(t, c.in).(map[string]any))
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v, want %q", c.in, err, c.want)
		}
	}
}

func TestCacheKey(t *testing.T) {
	base := `{"persona": {"system_prompt": "p"}, "conversation_history": [{"role": "assistant", "content": "hi"}]}`
	k := userRequest(t, base).CacheKey("openai", "gpt-4.1-mini")
	if k != userRequest(t, `{"conversation_history": [{"content": "hi", "role": "assistant"}], "persona": {"system_prompt": "p"}}`).CacheKey("openai", "gpt-4.1-mini") {
		t.Error("member order changed the cache key")
	}
	for _, other := range []string{
		userRequest(t, base).CacheKey("openai", "gpt-4.1"),
		userRequest(t, base).CacheKey("anthropic", "gpt-4.1-mini"),
		userRequest(t, `{"persona": {"system_prompt": "p", "temperature": 0.5}, "conversation_history": [{"role": "assistant", "content": "hi"}]}`).CacheKey("openai", "gpt-4.1-mini"),
		userRequest(t, `{"persona": {"system_prompt": "p"}, "conversation_history": [{"role": "assistant", "content": "hi!"}]}`).CacheKey("openai", "gpt-4.1-mini"),
	} {
		if other == k {
			t.Error("a different request has the same cache key")
		}
	}
}

// FuzzUserRequest: any params decode to a request or an error; a request builds messages that start with
// a user message and alternate, and Finish stops exactly when the text holds a stop token.
func FuzzUserRequest(f *testing.F) {
	f.Add([]byte(`{"persona": {"name": "Dana", "temperature": 0}, "conversation_history": [{"role": "user", "content": "a"}, {"role": "user", "content": "b"}], "scripted": ["x ###STOP###"]}`))
	f.Add([]byte(`{"stop_tokens": ["##", "#"], "conversation_history": [{"role": "assistant", "content": "###STOP######STOP###"}]}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		d := json.NewDecoder(bytes.NewReader(data))
		d.UseNumber()
		var v map[string]any
		if d.Decode(&v) != nil {
			return
		}
		r, err := ParseUserRequest(v)
		if err != nil {
			return
		}
		msgs := r.Messages()
		if len(msgs) == 0 || msgs[0].Role != "user" {
			t.Fatalf("messages do not start with user: %+v", msgs)
		}
		for i := 1; i < len(msgs); i++ {
			if msgs[i].Role == msgs[i-1].Role {
				t.Fatalf("roles do not alternate: %+v", msgs)
			}
		}
		for _, turn := range r.History {
			has := false
			for _, tok := range r.StopTokens {
				has = has || strings.Contains(turn.Content, tok)
			}
			if rep := r.Finish(turn.Content); rep.Stop != has {
				t.Fatalf("Finish(%q).Stop = %v, but a stop token present = %v", turn.Content, rep.Stop, has)
			}
		}
		_ = r.CacheKey("openai", "m")
	})
}
