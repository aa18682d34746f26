// simuser_echo_test.go: a simulated user's endpoint that echoes the key around a stop token does not get the key into the answer.

package rpc

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"attest-engine/assert"
	"attest-engine/provider"
)

// TestSimulatedUserEchoedKeyAcrossStopToken: an endpoint that echoes its
// key with a stop token inside it ("sk-…###STOP###…") sends a reply with no
// whole key in it, which the reply's scrub leaves; removing the stop token
// then joins the two halves. The message answered must not hold the key,
// nor its URL-encoded form joined the same way.
func TestSimulatedUserEchoedKeyAcrossStopToken(t *testing.T) {
	const key = "sk-echo0123456789SECRETxyz"
	for _, reply := range []string{
		`sk-echo0123###STOP###456789SECRETxyz`,
		`sk-echo0123###TRANSFER###456789SECRETxyz done`,
		`sk%2Decho0123###STOP###456789SECRETxyz`,
	} {
		srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			w.Write([]byte(`{"choices":[{"message":{"content":"` + reply + `"}}],"usage":{"prompt_tokens":1,"completion_tokens":1}}`))
		}))
		cfg := assert.Config{Settings: provider.Settings{Getenv: func(k string) string {
			switch k {
			case "OPENAI_BASE_URL":
				return srv.URL
			case "OPENAI_API_KEY":
				return key
			}
			return ""
		}}}
		ss := newSession(t, cfg)
		ss.ask(t, `{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"sdk_name":"t","sdk_version":"0","protocol_version":1,"required_capabilities":[],"preferred_encoding":"json"}}`)
		ans := ss.ask(t, `{"jsonrpc":"2.0","id":1,"method":"generate_user_message","params":{"persona":{"name":"Dana","system_prompt":"You want a refund."},"conversation_history":[]}}`)
		srv.Close()
		if strings.Contains(ans, "456789SECRET") || !strings.Contains(ans, `"stop":true`) {
			t.Errorf("reply %q: the answer holds the key, or no stop: %s", reply, ans)
		}
	}
}
