// scrub.go: removing the API key from provider text the engine quotes or keeps: raw, escaped, URL-encoded, base64.

package provider

import (
	"encoding/base64"
	"regexp"
	"slices"
	"strings"
	"sync"
	"unicode/utf8"
)

// redacted replaces each copy of a key.
const redacted = "[redacted]"

// minEncodedKey is the shortest key also looked for in base64: a shorter
// key's base64 fragments are so short that ordinary text would match them.
// Real keys are far longer (OpenAI's and Anthropic's run past 40 bytes).
const minEncodedKey = 8

// keyLike matches API-key-shaped tokens that providers echo back in part
// ("Incorrect API key provided: sk-abc***xyz").
var keyLike = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`\b(sk-|sk_|key-)[A-Za-z0-9_\-*]{4,}`) })

// scrub removes the API key (scrubKey), and anything shaped like a key,
// from text that is about to be quoted in an error: keys never reach logs,
// errors or explanations.
func scrub(text, secret string) string {
	return keyLike().ReplaceAllString(scrubKey(text, secret), "${1}"+redacted)
}

// scrubReply removes the endpoint's key from a successful reply before
// anyone reads it (a judge's verdict and reason, a simulated user's turn):
// a provider or gateway that echoes the request's key into the text it
// returns must not put the key into answers, reports or cache_dir. Only
// the key itself is removed, not other key-shaped text, which a judge may
// quote from the output it judges. Embedding replies are numbers only. A
// key shorter than minEncodedKey is left in replies.
func scrubReply[T any](v T, secret string) T {
	if len(secret) < minEncodedKey {
		// A placeholder, not a secret: local servers take any key, and
		// their users set "ollama", "EMPTY" or "dummy", words a reply may
		// well hold. Errors still have it removed (scrub).
		return v
	}
	if s, ok := any(v).(string); ok {
		return any(scrubKey(s, secret)).(T)
	}
	return v
}

// scrubKey replaces every copy of secret in text by "[redacted]": as
// written; with any of its characters percent-encoded (%73, either case)
// or JSON-escaped (\u0073, and \/), as a URL or a JSON string inside the
// reply would carry it; and, for a key of minEncodedKey bytes or more, in
// base64 (standard and URL alphabets, padded or not) at each of the three
// byte alignments the key can have inside a longer encoded text: the
// characters that depend on the key's bytes alone are looked for, so
// base64("Bearer " + key) is caught as well as base64(key). The replaced
// span is the whole source of the match in text, escapes included.
//
// Time and memory are linear in len(text) (a fixed number of substring
// searches of a text at most as long, and its offsets).
func scrubKey(text, secret string) string {
	if secret == "" || text == "" {
		return text
	}
	needles := []string{secret}
	if len(secret) >= minEncodedKey {
		needles = append(needles, base64Fragments(secret)...)
	}
	// Looked for as written too: an escape can swallow the start of a
	// base64 fragment ("%c2stc..." unescapes to "\xc2stc...").
	spans := find(nil, text, nil, needles)
	if plain, at := unescapeText(text); at != nil {
		spans = find(spans, plain, at, needles)
	}
	if len(spans) == 0 {
		return text
	}
	slices.SortFunc(spans, func(a, b [2]int) int { return a[0] - b[0] })
	var b strings.Builder
	last := 0
	for _, s := range spans {
		if s[0] < last { // overlaps the span just replaced
			last = max(last, s[1])
			continue
		}
		b.WriteString(text[last:s[0]])
		b.WriteString(redacted)
		last = s[1]
	}
	b.WriteString(text[last:])
	return b.String()
}

// find appends the spans in the source of each needle found in text, text
// being the unescaped source when at is not nil.
func find(spans [][2]int, text string, at []int, needles []string) [][2]int {
	for _, n := range needles {
		for i := 0; ; {
			j := strings.Index(text[i:], n)
			if j < 0 {
				break
			}
			start, end := i+j, i+j+len(n)
			spans = append(spans, [2]int{offset(at, start), offset(at, end)})
			i = start + 1
		}
	}
	return spans
}

// offset maps an offset in the unescaped text to one in the source (at is
// nil when nothing was unescaped).
func offset(at []int, i int) int {
	if at == nil {
		return i
	}
	return at[i]
}

// base64Fragments are the base64 characters of secret that do not depend
// on the bytes around it, at byte offsets 0, 1 and 2 modulo 3, in the
// standard and the URL alphabets. Padding is never part of a fragment, so
// padded and unpadded encodings both contain it.
func base64Fragments(secret string) []string {
	var out []string
	for pad := 0; pad < 3; pad++ {
		src := append(make([]byte, pad), secret...)
		enc := base64.RawStdEncoding.EncodeToString(src)
		// Character k holds bits [6k, 6k+6) of src; the key's bits are
		// [8·pad, 8·len(src)).
		from, to := (8*pad+5)/6, 8*len(src)/6
		frag := enc[from:to]
		url := strings.NewReplacer("+", "-", "/", "_").Replace(frag)
		out = append(out, frag)
		if url != frag {
			out = append(out, url)
		}
	}
	return out
}

// unescapeText is text with its percent-escapes (%XX) and JSON string
// escapes (\uXXXX, \/, \") decoded, and for each byte of the result the
// offset in text where the source of that byte starts, plus len(text) at
// the end. Anything else (a malformed escape, other backslash escapes) is
// kept as written. Text with neither '%' nor '\' comes back as it is, with
// a nil offset table.
func unescapeText(text string) (string, []int) {
	if !strings.ContainsAny(text, `%\`) {
		return text, nil
	}
	out := make([]byte, 0, len(text))
	at := make([]int, 0, len(text)+1)
	for i := 0; i < len(text); {
		c := text[i]
		switch {
		case c == '%' && i+2 < len(text) && isHex(text[i+1]) && isHex(text[i+2]):
			out = append(out, unhex(text[i+1])<<4|unhex(text[i+2]))
			at = append(at, i)
			i += 3
			continue
		case c == '\\' && i+1 < len(text) && (text[i+1] == '/' || text[i+1] == '"'):
			out = append(out, text[i+1])
			at = append(at, i)
			i += 2
			continue
		case c == '\\' && i+5 < len(text) && text[i+1] == 'u' &&
			isHex(text[i+2]) && isHex(text[i+3]) && isHex(text[i+4]) && isHex(text[i+5]):
			r := rune(unhex(text[i+2]))<<12 | rune(unhex(text[i+3]))<<8 | rune(unhex(text[i+4]))<<4 | rune(unhex(text[i+5]))
			n := len(out)
			out = utf8.AppendRune(out, r)
			for range len(out) - n {
				at = append(at, i)
			}
			i += 6
			continue
		}
		out = append(out, c)
		at = append(at, i)
		i++
	}
	at = append(at, len(text))
	return string(out), at
}

func isHex(c byte) bool {
	return '0' <= c && c <= '9' || 'a' <= c && c <= 'f' || 'A' <= c && c <= 'F'
}

func unhex(c byte) byte {
	switch {
	case c <= '9':
		return c - '0'
	case c <= 'F':
		return c - 'A' + 10
	}
	return c - 'a' + 10
}
