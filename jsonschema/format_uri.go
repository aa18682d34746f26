// format_uri.go holds the resource identifier formats (validation spec §7.3.5-§7.3.7): uri, uri-reference,
// iri, iri-reference, uuid, uri-template, json-pointer and relative-json-pointer.

package jsonschema

import (
	"strings"
	"unicode/utf8"
)

func isURI(s string) bool          { return checkURIRef(s, false, false) }
func isURIReference(s string) bool { return checkURIRef(s, true, false) }
func isIRI(s string) bool          { return checkURIRef(s, false, true) }
func isIRIReference(s string) bool { return checkURIRef(s, true, true) }

// checkURIRef follows the generic syntax of RFC 3986 §3 (and RFC 3987 §2.2 for IRIs, which admit
// non-ASCII characters where unreserved characters may appear).
func checkURIRef(s string, ref, iri bool) bool {
	if !utf8.ValidString(s) {
		return false
	}
	if i := strings.IndexByte(s, '#'); i >= 0 {
		if !uriChars(s[i+1:], "/?:@", iri) {
			return false
		}
		s = s[:i]
	}
	if i := strings.IndexByte(s, '?'); i >= 0 {
		if !uriChars(s[i+1:], "/?:@", iri) {
			return false
		}
		s = s[:i]
	}
	colon := strings.IndexByte(s, ':')
	slash := strings.IndexByte(s, '/')
	if colon >= 0 && (slash < 0 || colon < slash) {
		if !isScheme(s[:colon]) {
			return false
		}
		s = s[colon+1:]
	} else if !ref {
		return false
	}
	if rest, ok := strings.CutPrefix(s, "//"); ok {
		end := strings.IndexByte(rest, '/')
		if end < 0 {
			end = len(rest)
		}
		if !isAuthority(rest[:end], iri) {
			return false
		}
		s = rest[end:]
	}
	return uriChars(s, "/:@", iri)
}

func isScheme(s string) bool {
	if s == "" || !isASCIILetter(s[0]) {
		return false
	}
	for i := 1; i < len(s); i++ {
		c := s[i]
		if !isASCIILetter(c) && !isDigit(c) && c != '+' && c != '-' && c != '.' {
			return false
		}
	}
	return true
}

// isAuthority checks authority = [ userinfo "@" ] host [ ":" port ] (RFC 3986 §3.2).
func isAuthority(a string, iri bool) bool {
	if i := strings.LastIndexByte(a, '@'); i >= 0 {
		if !uriChars(a[:i], ":", iri) {
			return false
		}
		a = a[i+1:]
	}
	if strings.HasPrefix(a, "[") {
		end := strings.IndexByte(a, ']')
		if end < 0 {
			return false
		}
		lit := a[1:end]
		if !isIPv6(lit) && !isIPvFuture(lit) {
			return false
		}
		a = a[end+1:]
		if a != "" && a[0] != ':' {
			return false
		}
	} else if i := strings.LastIndexByte(a, ':'); i >= 0 {
		if !uriChars(a[:i], "", iri) {
			return false
		}
		a = a[i:]
	} else {
		return uriChars(a, "", iri)
	}
	if a == "" {
		return true
	}
	for i := 1; i < len(a); i++ {
		if !isDigit(a[i]) {
			return false
		}
	}
	return true
}

func isIPvFuture(s string) bool {
	if len(s) < 4 || (s[0] != 'v' && s[0] != 'V') {
		return false
	}
	dot := strings.IndexByte(s, '.')
	return dot > 1 && isHex(s[1:dot]) && dot+1 < len(s) && uriChars(s[dot+1:], ":", false) && !strings.Contains(s[dot+1:], "%")
}

// uriChars checks that s holds only unreserved characters, percent-encodings, sub-delims and the extra
// characters given (RFC 3986 §2); with iri, also non-ASCII characters (RFC 3987 ucschar, iprivate).
func uriChars(s, extra string, iri bool) bool {
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case isASCIILetter(c) || isDigit(c) || strings.IndexByte("-._~!$&'()*+,;=", c) >= 0:
		case strings.IndexByte(extra, c) >= 0:
		case c == '%':
			if i+2 >= len(s) || !isHex(s[i+1:i+3]) {
				return false
			}
			i += 2
		case c >= 0x80 && iri:
			r, size := utf8.DecodeRuneInString(s[i:])
			if r < 0xA0 || (0xFDD0 <= r && r <= 0xFDEF) || r&0xFFFE == 0xFFFE {
				return false
			}
			i += size - 1
		default:
			return false
		}
	}
	return true
}

// isUUID checks RFC 4122 §3's string form: 8-4-4-4-12 hexadecimal digits, any version and variant.
func isUUID(s string) bool {
	if len(s) != 36 {
		return false
	}
	for i := 0; i < len(s); i++ {
		switch i {
		case 8, 13, 18, 23:
			if s[i] != '-' {
				return false
			}
		default:
			if !isHex(s[i : i+1]) {
				return false
			}
		}
	}
	return true
}

// isJSONPointer checks RFC 6901 §3: "~" must start "~0" or "~1".
func isJSONPointer(s string) bool {
	if s != "" && s[0] != '/' {
		return false
	}
	for i := 0; i < len(s); i++ {
		if s[i] == '~' && (i+1 >= len(s) || (s[i+1] != '0' && s[i+1] != '1')) {
			return false
		}
	}
	return utf8.ValidString(s)
}

// isRelativeJSONPointer checks draft-handrews-relative-json-pointer-01 §3: a non-negative integer
// without leading zeros, then "#" or a JSON Pointer.
func isRelativeJSONPointer(s string) bool {
	i := 0
	for i < len(s) && isDigit(s[i]) {
		i++
	}
	if i == 0 || (i > 1 && s[0] == '0') {
		return false
	}
	return s[i:] == "#" || isJSONPointer(s[i:])
}

// isURITemplate checks RFC 6570 §2: literals and expressions "{" [operator] varspec *("," varspec) "}".
func isURITemplate(s string) bool {
	if !utf8.ValidString(s) {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c == '{':
			end := strings.IndexByte(s[i:], '}')
			if end < 0 || !isTemplateExpr(s[i+1:i+end]) {
				return false
			}
			i += end
		case c == '%':
			if i+2 >= len(s) || !isHex(s[i+1:i+3]) {
				return false
			}
			i += 2
		case c <= ' ' || c == 127 || strings.IndexByte("\"%<>\\^`{|}", c) >= 0:
			return false
		}
	}
	return true
}

func isTemplateExpr(e string) bool {
	if e != "" && strings.IndexByte("+#./;?&=,!@|", e[0]) >= 0 {
		e = e[1:]
	}
	if e == "" {
		return false
	}
	for _, spec := range strings.Split(e, ",") {
		name := spec
		if n, ok := strings.CutSuffix(spec, "*"); ok {
			name = n
		} else if n, p, ok := strings.Cut(spec, ":"); ok {
			name = n
			if p == "" || len(p) > 4 || p[0] == '0' || strings.Trim(p, "0123456789") != "" {
				return false
			}
		}
		if !isVarname(name) {
			return false
		}
	}
	return true
}

// isVarname: varchar *( ["."] varchar ), varchar = ALPHA / DIGIT / "_" / pct-encoded.
func isVarname(s string) bool {
	if s == "" || s[0] == '.' || s[len(s)-1] == '.' || strings.Contains(s, "..") {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case isASCIILetter(c) || isDigit(c) || c == '_' || c == '.':
		case c == '%':
			if i+2 >= len(s) || !isHex(s[i+1:i+3]) {
				return false
			}
			i += 2
		default:
			return false
		}
	}
	return true
}
