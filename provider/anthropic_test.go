// anthropic_test.go: decoding Anthropic Messages API responses and errors, and fuzzing the decoders.

package provider

import "testing"

func TestDecodeAnthropic(t *testing.T) {
	tests := []struct {
		body, want, why string
		ok              bool
		u               Usage
	}{
		{`{"id":"msg_1","type":"message","role":"assistant","content":[{"type":"text","text":"{\"score\": 0.7, \"reason\": \"ok\"}"}],"model":"claude-haiku-4-5","stop_reason":"end_turn","stop_sequence":null,"usage":{"input_tokens":12,"output_tokens":9}}`,
			`{"score": 0.7, "reason": "ok"}`, "text block and usage", true, Usage{12, 9}},
		{`{"content":[{"type":"thinking","thinking":"hmm"},{"type":"text","text":"a"},{"type":"text","text":"b"}]}`, "ab", "text blocks joined, others skipped", true, Usage{}},
		{`{"content":[]}`, "", "no text", false, Usage{}},
		{`{"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}`, "", "an error body is not a message", false, Usage{}},
	}
	for _, tc := range tests {
		got, u, err := decodeAnthropic([]byte(tc.body))
		if (err == nil) != tc.ok || got != tc.want || (tc.ok && u != tc.u) {
			t.Errorf("%s: %q %v %v", tc.why, got, u, err)
		}
	}
	if got := anthropicErrText([]byte(`{"type":"error","error":{"type":"rate_limit_error","message":"Number of request tokens has exceeded your rate limit."}}`)); got != "Number of request tokens has exceeded your rate limit." {
		t.Errorf("Anthropic's error body: %q", got)
	}
}

func FuzzAnthropicDecoders(f *testing.F) {
	for _, s := range []string{
		`{"id":"msg_1","type":"message","role":"assistant","content":[{"type":"text","text":"hi"}],"usage":{"input_tokens":1,"output_tokens":1}}`,
		`{"type":"error","error":{"type":"api_error","message":"Internal server error"}}`,
		`{"content":[{"type":"text"}]}`, `{}`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		if _, u, err := decodeAnthropic(body); err == nil && (u.In < 0 || u.Out < 0) {
			t.Fatalf("negative usage %v", u)
		}
		anthropicErrText(body)
	})
}
