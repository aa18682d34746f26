// scrub_test.go: the API key is removed from replies and errors in every form a provider can echo it in.

package provider

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"
)

// scrubSecret has characters that base64 and percent-encoding change.
const scrubSecret = "sk-proj-Ab3+/x_Y~9zQ0-echoed.KEY"

// keyForms are the ways a provider may carry the key inside text, each
// with its reason.
func keyForms(secret string) []struct{ name, text string } {
	var out []struct{ name, text string }
	add := func(name, text string) { out = append(out, struct{ name, text string }{name, text}) }
	add("raw", secret)
	add("query escaped", url.QueryEscape(secret))
	add("path escaped", url.PathEscape(secret))
	add("every byte percent-encoded, lower-case hex", percentAll(secret, "%%%02x"))
	add("every byte percent-encoded, upper-case hex", percentAll(secret, "%%%02X"))
	add("JSON \\u escapes (a reply holding JSON text)", percentAll(secret, `\u%04x`))
	encs := []struct {
		name string
		enc  *base64.Encoding
	}{{"std", base64.StdEncoding}, {"std raw", base64.RawStdEncoding}, {"url", base64.URLEncoding}, {"url raw", base64.RawURLEncoding}}
	for _, e := range encs {
		for _, prefix := range []string{"", "B", "Be", "Bearer "} { // alignments 0, 1, 2, and 7 ≡ 1
			add(fmt.Sprintf("base64 %s after %d bytes", e.name, len(prefix)), e.enc.EncodeToString([]byte(prefix+secret+"\n")))
			add(fmt.Sprintf("base64 %s after %d bytes, at the end", e.name, len(prefix)), e.enc.EncodeToString([]byte(prefix+secret)))
		}
	}
	return out
}

func percentAll(s, format string) string {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		fmt.Fprintf(&b, format, s[i])
	}
	return b.String()
}

// leaks says which form of secret text still holds, or "".
func leaks(text, secret string) string {
	for _, f := range keyForms(secret) {
		if strings.Contains(text, f.text) {
			return f.name
		}
	}
	if plain, _ := unescapeText(text); strings.Contains(plain, secret) {
		return "after unescaping"
	}
	plain, _ := unescapeText(text)
	for _, frag := range base64Fragments(secret) {
		if strings.Contains(text, frag) || strings.Contains(plain, frag) {
			return "a base64 fragment"
		}
	}
	return ""
}

func TestScrubKeyForms(t *testing.T) {
	for _, f := range keyForms(scrubSecret) {
		text := "before " + f.text + " after"
		got := scrubKey(text, scrubSecret)
		if l := leaks(got, scrubSecret); l != "" {
			t.Errorf("%s: %q scrubbed to %q, which still holds the key (%s)", f.name, text, got, l)
		}
		if !strings.HasPrefix(got, "before ") || !strings.HasSuffix(got, " after") || !strings.Contains(got, redacted) {
			t.Errorf("%s: %q scrubbed to %q: want the text around the key kept and the key marked", f.name, text, got)
		}
	}
	keep := []struct{ text, reason string }{
		{"The answer confirms the refund (ORD-1) within 5 days.", "no key"},
		{`50% of the text \u00e9 and a \n`, "escapes that decode to no key"},
		{"sk-proj-Ab3+/x_Y~9zQ0-echoed", "a prefix of the key is not the key"},
		{base64.StdEncoding.EncodeToString([]byte("an unrelated secret of some length")), "other base64"},
	}
	for _, k := range keep {
		if got := scrubKey(k.text, scrubSecret); got != k.text {
			t.Errorf("%s: %q scrubbed to %q, want it unchanged", k.reason, k.text, got)
		}
	}
	if got := scrubKey("a k b", "k"); got != "a [redacted] b" {
		t.Errorf("a 1-byte key: %q", got)
	}
	if got := scrub("ollama said ollama", "ollama"); got != "[redacted] said [redacted]" {
		t.Errorf("an error quoting a short key: %q, want it removed", got)
	}
	if got := scrubReply("The cart is EMPTY, as ollama said.", "EMPTY"); got != "The cart is EMPTY, as ollama said." {
		t.Errorf("a reply with a placeholder key of %d bytes (< %d): %q, want it unchanged", len("EMPTY"), minEncodedKey, got)
	}
	if got := scrubReply("key sk-no-key-required", "sk-no-key-required"); got != "key [redacted]" {
		t.Errorf("a reply with an %d-byte key: %q", len("sk-no-key-required"), got)
	}
	if got := scrubKey("a "+base64.StdEncoding.EncodeToString([]byte("short")), "short"); got != "a c2hvcnQ=" {
		t.Errorf("a key under %d bytes is not looked for in base64 (its fragments match ordinary text): %q", minEncodedKey, got)
	}
}

// TestEchoedKeyScrubbed: a stand-in provider that echoes the request's key
// into a successful judge reason or chat reply, in every form: what the
// engine reads back holds no copy of it, and an error body with a base64
// copy is scrubbed too.
func TestEchoedKeyScrubbed(t *testing.T) {
	for _, kind := range []string{"openai", "anthropic"} {
		for _, f := range keyForms(scrubSecret) {
			t.Run(kind+"/"+f.name, func(t *testing.T) {
				srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
					key := strings.TrimPrefix(r.Header.Get("Authorization"), "Bearer ") + r.Header.Get("X-Api-Key")
					echo := strings.ReplaceAll(f.text, scrubSecret, key)
					if strings.Contains(r.URL.RawQuery, "fail") {
						w.WriteHeader(http.StatusBadRequest)
						json.NewEncoder(w).Encode(map[string]any{"error": map[string]any{"message": "bad key " + echo}})
						return
					}
					// The reply is JSON text: a \u form is JSON's escape of the key, not text about it.
					text := `{"score": 0.9, "reason": "Your key is ` + echo + `"}`
					if f.name == "raw" { // the reply's JSON written with \u escapes, as some encoders do
						text = strings.ReplaceAll(text, "sk-", `\u0073k-`)
					}
					if kind == "anthropic" {
						json.NewEncoder(w).Encode(map[string]any{"content": []any{map[string]any{"type": "text", "text": text}}})
						return
					}
					json.NewEncoder(w).Encode(map[string]any{"choices": []any{map[string]any{"message": map[string]any{"content": text}}}})
				}))
				defer srv.Close()
				env := envOf("OPENAI_BASE_URL", srv.URL, "OPENAI_API_KEY", scrubSecret)
				if kind == "anthropic" {
					env = envOf("ANTHROPIC_BASE_URL", srv.URL, "ANTHROPIC_API_KEY", scrubSecret)
				}
				p, err := New(Settings{Getenv: env})
				if err != nil {
					t.Fatal(err)
				}
				ctx := context.Background()
				text, _, err := p.Judge().Complete(ctx, "m", "system", "user", true)
				if err != nil {
					t.Fatal(err)
				}
				if l := leaks(text, scrubSecret); l != "" || !strings.Contains(text, redacted) {
					t.Errorf("judge reply %q holds the key (%s) or no mark", text, l)
				}
				var verdict struct{ Reason string }
				if json.Unmarshal([]byte(text), &verdict) != nil || leaks(verdict.Reason, scrubSecret) != "" {
					t.Errorf("the verdict's reason %q (from %q) holds the key", verdict.Reason, text)
				}
				text, _, err = p.Judge().Chat(ctx, "simulated user", "m", "system", []Message{{"user", "hi"}}, 0, 50)
				if err != nil || leaks(text, scrubSecret) != "" {
					t.Errorf("simulated user reply %q (%v) holds the key", text, err)
				}
				p.judge.base += "/x?fail=1#"
				_, _, err = p.Judge().Complete(ctx, "m", "system", "user", true)
				if err == nil || leaks(err.Error(), scrubSecret) != "" {
					t.Errorf("error %v holds the key", err)
				}
			})
		}
	}
}

// FuzzScrubKey: whatever the text, the scrubbed text holds no copy of the
// key, raw, escaped or base64, and text with no copy comes back unchanged.
func FuzzScrubKey(f *testing.F) {
	for _, form := range keyForms(scrubSecret) {
		f.Add("x " + form.text + " y")
	}
	f.Add(`%%%7\u00\\u0073k-proj`)
	f.Add("")
	f.Fuzz(func(t *testing.T, text string) {
		got := scrubKey(text, scrubSecret)
		if l := leaks(got, scrubSecret); l != "" {
			t.Fatalf("%q scrubbed to %q: holds the key (%s)", text, got, l)
		}
		if leaks(text, scrubSecret) == "" && got != text {
			t.Fatalf("%q holds no key, scrubbed to %q", text, got)
		}
	})
}
