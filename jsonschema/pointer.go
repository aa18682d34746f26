// pointer.go holds URI resolution (RFC 3986) and JSON Pointer (RFC 6901) helpers.

package jsonschema

import (
	"net/url"
	"strconv"
	"strings"
)

// resolveURI resolves ref against base (RFC 3986 §5.2) and splits off the fragment, which is returned
// percent-decoded.
func resolveURI(base, ref string) (uri, fragment string, err error) {
	r, err := url.Parse(ref)
	if err != nil {
		return "", "", err
	}
	if !r.IsAbs() {
		b, err := url.Parse(base)
		if err != nil {
			return "", "", err
		}
		r = b.ResolveReference(r)
	}
	fragment = r.Fragment
	r.Fragment, r.RawFragment = "", ""
	return r.String(), fragment, nil
}

// fragmentURI joins an absolute URI and a JSON Pointer into a URI with the pointer as fragment, escaping
// what a fragment cannot hold (RFC 6901 §6).
func fragmentURI(uri, ptr string) string {
	return uri + "#" + (&url.URL{Fragment: ptr}).EscapedFragment()
}

var ptrEscaper = strings.NewReplacer("~", "~0", "/", "~1")
var ptrUnescaper = strings.NewReplacer("~1", "/", "~0", "~")

// escapeToken escapes one reference token of a JSON Pointer (RFC 6901 §3).
func escapeToken(s string) string {
	if !strings.ContainsAny(s, "~/") {
		return s
	}
	return ptrEscaper.Replace(s)
}

// lookupPointer walks the JSON Pointer ptr (already relative to v) through a decoded document.
func lookupPointer(v any, ptr string) (any, bool) {
	if ptr == "" {
		return v, true
	}
	if ptr[0] != '/' {
		return nil, false
	}
	for _, tok := range strings.Split(ptr[1:], "/") {
		tok = ptrUnescaper.Replace(tok)
		switch x := v.(type) {
		case map[string]any:
			e, ok := x[tok]
			if !ok {
				return nil, false
			}
			v = e
		case []any:
			i, err := strconv.Atoi(tok)
			if err != nil || i < 0 || i >= len(x) || (len(tok) > 1 && tok[0] == '0') {
				return nil, false
			}
			v = x[i]
		default:
			return nil, false
		}
	}
	return v, true
}

// splitToken splits a non-empty JSON Pointer into its first reference token, as written (still escaped),
// and the rest: "/a/b" into "a" and "/b".
func splitToken(ptr string) (tok, rest string) {
	if i := strings.IndexByte(ptr[1:], '/'); i >= 0 {
		return ptr[1 : i+1], ptr[i+1:]
	}
	return ptr[1:], ""
}
