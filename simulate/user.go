// user.go: simulated users: the request of generate_user_message, role flipping, scripts, stop tokens.

package simulate

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"math"
	"slices"
	"strings"
)

// Bounds of a generate_user_message request.
const (
	MaxHistory      = 1000    // turns of conversation_history
	MaxHistoryBytes = 4 << 20 // bytes of all turns' content
	MaxScript       = 1000    // scripted turns
	MaxPrompt       = 64 << 10
	MaxStopTokens   = 16
	MaxStopToken    = 256   // bytes of one stop token
	MaxUserTokens   = 32768 // persona.max_tokens
	defaultMaxTok   = 1024
)

// DefaultStopTokens end a simulated conversation when the simulated user writes one (tau-bench's).
var DefaultStopTokens = []string{"###STOP###", "###TRANSFER###", "###OUT-OF-SCOPE###"}

// Turn is one entry of conversation_history, with roles as the agent saw them: user is the simulated user.
type Turn struct{ Role, Content string }

// UserRequest is a decoded generate_user_message request.
type UserRequest struct {
	Name, SystemPrompt, Style string
	Temperature               float64 // 0 unless the persona sets it: replays and records stay stable
	MaxTokens                 int
	History                   []Turn
	Script                    []string // nil: no script
	StopTokens                []string
}

// ParseUserRequest reads params: persona {name, system_prompt, style, temperature, max_tokens},
// conversation_history [{role, content}], fault_config (accepted as the earlier engine did; faults belong to
// mock_tool_call and it changes nothing here), and the additive scripted and stop_tokens.
func ParseUserRequest(params map[string]any) (*UserRequest, error) {
	r := &UserRequest{MaxTokens: defaultMaxTok, StopTokens: DefaultStopTokens}
	if p, ok := params["persona"]; ok && p != nil {
		obj, ok := p.(map[string]any)
		if !ok {
			return nil, &CallError{"persona", "must be an object"}
		}
		for k, v := range obj {
			switch k {
			case "name", "system_prompt", "style":
				s, ok := v.(string)
				if !ok && v != nil {
					return nil, &CallError{"persona." + k, "must be a string"}
				}
				if len(s) > MaxPrompt {
					return nil, &CallError{"persona." + k, fmt.Sprintf("must have at most %d bytes", MaxPrompt)}
				}
				switch k {
				case "name":
					r.Name = s
				case "system_prompt":
					r.SystemPrompt = s
				default:
					r.Style = s
				}
			case "temperature":
				if v == nil {
					continue
				}
				f, err := toFloat(v)
				if err != nil || f < 0 || f > 2 {
					return nil, &CallError{"persona.temperature", "must be a number from 0 to 2"}
				}
				r.Temperature = f
			case "max_tokens":
				if v == nil {
					continue
				}
				f, err := toFloat(v)
				if err != nil || f != math.Trunc(f) || f < 1 || f > MaxUserTokens {
					return nil, &CallError{"persona.max_tokens", fmt.Sprintf("must be an integer from 1 to %d", MaxUserTokens)}
				}
				r.MaxTokens = int(f)
			default:
				return nil, &CallError{"persona." + k, "unknown field (allowed: name, system_prompt, style, temperature, max_tokens)"}
			}
		}
	}
	if h, ok := params["conversation_history"]; ok && h != nil {
		list, ok := h.([]any)
		if !ok || len(list) > MaxHistory {
			return nil, &CallError{"conversation_history", fmt.Sprintf("must be an array of at most %d turns", MaxHistory)}
		}
		total := 0
		for i, e := range list {
			obj, _ := e.(map[string]any)
			role, ok1 := obj["role"].(string)
			content, ok2 := obj["content"].(string)
			if !ok1 || !ok2 {
				return nil, &CallError{fmt.Sprintf("conversation_history[%d]", i), "must be {role, content} with string values"}
			}
			switch role {
			case "user", "assistant", "system", "tool":
			default:
				return nil, &CallError{fmt.Sprintf("conversation_history[%d].role", i), fmt.Sprintf("%q is not user, assistant, system or tool", role)}
			}
			if total += len(content); total > MaxHistoryBytes {
				return nil, &CallError{"conversation_history", fmt.Sprintf("content exceeds %d bytes in all", MaxHistoryBytes)}
			}
			r.History = append(r.History, Turn{role, content})
		}
	}
	if f, ok := params["fault_config"]; ok && f != nil {
		if _, ok := f.(map[string]any); !ok {
			return nil, &CallError{"fault_config", "must be an object"}
		}
	}
	if s, ok := params["scripted"]; ok && s != nil {
		list, err := stringList("scripted", s, MaxScript, MaxPrompt)
		if err != nil {
			return nil, err
		}
		r.Script = list
		if r.Script == nil {
			r.Script = []string{}
		}
	}
	if s, ok := params["stop_tokens"]; ok && s != nil {
		list, err := stringList("stop_tokens", s, MaxStopTokens, MaxStopToken)
		if err != nil {
			return nil, err
		}
		if slices.Contains(list, "") {
			return nil, &CallError{"stop_tokens", "must not hold an empty string"}
		}
		r.StopTokens = list
	}
	// Required as the earlier engine's params were (../shared/sdk-compat.md): the history always (it may be
	// empty: the simulated user speaks first), and for a model's turn a persona with a system prompt, so
	// that no turn is ever asked of a model with a goal the engine made up.
	if h, ok := params["conversation_history"]; !ok || h == nil {
		return nil, &CallError{"conversation_history", "required: an array of {role, content} turns, empty when nothing was said yet"}
	}
	if !r.Scripted() && r.SystemPrompt == "" {
		return nil, &CallError{"persona.system_prompt", "required unless the turn is scripted: the simulated user's goal and situation, as its model's system prompt"}
	}
	return r, nil
}

func stringList(field string, v any, maxN, maxLen int) ([]string, error) {
	list, ok := v.([]any)
	if !ok || len(list) > maxN {
		return nil, &CallError{field, fmt.Sprintf("must be an array of at most %d strings", maxN)}
	}
	out := make([]string, len(list))
	for i, e := range list {
		s, ok := e.(string)
		if !ok || len(s) > maxLen {
			return nil, &CallError{fmt.Sprintf("%s[%d]", field, i), fmt.Sprintf("must be a string of at most %d bytes", maxLen)}
		}
		out[i] = s
	}
	return out, nil
}

// Scripted reports whether the request carries a script (answered with no provider call).
func (r *UserRequest) Scripted() bool { return r.Script != nil }

// UserTurns counts the simulated user's turns so far (role user, as the agent saw them).
func (r *UserRequest) UserTurns() int {
	n := 0
	for _, t := range r.History {
		if t.Role == "user" {
			n++
		}
	}
	return n
}

// ScriptError is a scripted conversation asked for a turn past its script.
type ScriptError struct{ Turn, Len int }

func (e *ScriptError) Error() string {
	return fmt.Sprintf("the script has %d turns and turn %d was asked for: add turns to scripted, or end the conversation with a stop token", e.Len, e.Turn)
}

// ScriptedReply is the next scripted turn: the one after as many turns as the simulated user has had.
func (r *UserRequest) ScriptedReply() (Reply, error) {
	n := r.UserTurns()
	if n >= len(r.Script) {
		return Reply{}, &ScriptError{Turn: n + 1, Len: len(r.Script)}
	}
	return r.Finish(r.Script[n]), nil
}

// System is the simulator model's system prompt: the persona's, with its name and style, and the stop
// tokens it may use.
func (r *UserRequest) System() string {
	var b strings.Builder
	if r.Name != "" {
		fmt.Fprintf(&b, "You are %s. ", r.Name)
	}
	b.WriteString(r.SystemPrompt)
	if r.Style != "" {
		b.WriteString("\n\nStyle: " + r.Style)
	}
	if len(r.StopTokens) > 0 {
		fmt.Fprintf(&b, "\n\nWhen the conversation is over, reply with %s alone.", r.StopTokens[0])
	}
	return b.String()
}

// Message is one message sent to the simulator model.
type Message struct{ Role, Content string }

// opening stands in for the agent when the simulated user speaks first: providers need a user message
// first, and the model must answer as the user.
const opening = "(The conversation starts now. Write your first message to the assistant.)"

// Messages is the history as the simulator model must see it: roles flipped (the agent's turns become
// user, the simulated user's own turns assistant, as openevals and tau2 do), system and tool turns left
// out, consecutive turns of one role joined by a blank line, and an opening user message when the
// simulated user spoke first or nothing was said yet.
func (r *UserRequest) Messages() []Message {
	var out []Message
	for _, t := range r.History {
		var role string
		switch t.Role {
		case "user":
			role = "assistant"
		case "assistant":
			role = "user"
		default:
			continue
		}
		if len(out) > 0 && out[len(out)-1].Role == role {
			out[len(out)-1].Content += "\n\n" + t.Content
			continue
		}
		out = append(out, Message{role, t.Content})
	}
	if len(out) == 0 || out[0].Role != "user" {
		out = append([]Message{{"user", opening}}, out...)
	}
	return out
}

// Reply is a simulated user's turn.
type Reply struct {
	Message    string
	Stop       bool
	StopReason string // stopReason of the token that stopped it: stop, transfer, out-of-scope
}

// Finish reads the model's (or the script's) text: the first stop token it holds ends the conversation,
// and every stop token is removed from the message.
func (r *UserRequest) Finish(text string) Reply {
	rep := Reply{Message: text}
	first := -1
	for _, tok := range r.StopTokens {
		if i := strings.Index(text, tok); i >= 0 && (first < 0 || i < first) {
			first = i
			rep.Stop = true
			rep.StopReason = stopReason(tok)
		}
		rep.Message = strings.ReplaceAll(rep.Message, tok, "")
	}
	rep.Message = strings.TrimSpace(rep.Message)
	return rep
}

// stopReason names a stop token in the answer: the token without the # marks around it, lower case
// ("###STOP###" is "stop"); a token of # marks alone is named by itself ("###").
func stopReason(tok string) string {
	if r := strings.Trim(tok, "#"); r != "" {
		return strings.ToLower(r)
	}
	return tok
}

// CacheKey names a simulated-user turn in cache_dir: the SHA-256 of the canonical JSON of the whole
// request as the provider would receive it, so any change to the persona, history, model or settings is a
// new key.
func (r *UserRequest) CacheKey(provider, model string) string {
	msgs := []any{}
	for _, m := range r.Messages() {
		msgs = append(msgs, map[string]any{"role": m.Role, "content": m.Content})
	}
	stop := make([]any, len(r.StopTokens))
	for i, s := range r.StopTokens {
		stop[i] = s
	}
	c, _ := Canonical(map[string]any{
		"kind": "simulated_user/v1", "provider": provider, "model": model, "system": r.System(),
		"messages": msgs, "temperature": r.Temperature, "max_tokens": r.MaxTokens, "stop_tokens": stop,
	})
	d := sha256.Sum256(c)
	return hex.EncodeToString(d[:])
}
