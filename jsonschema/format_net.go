// format_net.go holds the Internet formats (validation spec §7.3.2-§7.3.4): email, idn-email, hostname,
// ipv4 and ipv6.

package jsonschema

import (
	"net/netip"
	"strings"
	"unicode/utf8"
)

// isLDHLabel checks an RFC 1123 label: letters, digits and hyphens, not starting or ending with a hyphen,
// at most 63 octets, and not a reserved "??--" label (RFC 5891 §4.2.3.1) unless it is an A-label.
func isLDHLabel(l string) bool {
	if l == "" || len(l) > 63 || l[0] == '-' || l[len(l)-1] == '-' {
		return false
	}
	for i := 0; i < len(l); i++ {
		c := l[i]
		if !isASCIILetter(c) && !isDigit(c) && c != '-' {
			return false
		}
	}
	return !(len(l) >= 4 && l[2] == '-' && l[3] == '-')
}

// isHostname checks format "hostname" (RFC 1123 §2.1, RFC 5890 §2.3.2.1): ASCII labels separated by dots,
// at most 253 octets; "xn--" labels must be valid A-labels.
func isHostname(s string) bool {
	if s == "" || len(s) > 253 {
		return false
	}
	labels := strings.Split(s, ".")
	var ulabels [][]rune
	for _, l := range labels {
		if len(l) >= 4 && strings.EqualFold(l[:4], "xn--") {
			u, ok := isALabel(l)
			if !ok || len(l) > 63 {
				return false
			}
			ulabels = append(ulabels, u)
			continue
		}
		if !isLDHLabel(l) {
			return false
		}
		ulabels = append(ulabels, []rune(l))
	}
	for _, u := range ulabels {
		if isRTLLabel(u) {
			for _, u := range ulabels {
				if !bidiOK(u) {
					return false
				}
			}
			break
		}
	}
	return true
}

// isIPv4 checks RFC 2673 §3.2 dotted-quad: four decimal octets without leading zeros.
func isIPv4(s string) bool {
	if len(s) > len("255.255.255.255") {
		return false
	}
	for i := range 4 {
		p, rest, dot := strings.Cut(s, ".")
		if dot != (i < 3) {
			return false
		}
		s = rest
		if p == "" || len(p) > 3 || (len(p) > 1 && p[0] == '0') {
			return false
		}
		n := 0
		for i := 0; i < len(p); i++ {
			if !isDigit(p[i]) {
				return false
			}
			n = n*10 + int(p[i]-'0')
		}
		if n > 255 {
			return false
		}
	}
	return true
}

// isIPv6 checks RFC 4291 §2.2 text forms (no zone identifier).
func isIPv6(s string) bool {
	if !strings.Contains(s, ":") || strings.ContainsAny(s, "%") {
		return false
	}
	a, err := netip.ParseAddr(s)
	return err == nil && a.Is6()
}

// isEmail checks format "email": an RFC 5321 §4.1.2 Mailbox (dot-string or quoted local part, then a
// domain or an address literal).
func isEmail(s string) bool { return checkMailbox(s, false) }

// isIDNEmail checks format "idn-email": RFC 6531 §3.3, which admits UTF-8 in the local part and
// internationalized domain names.
func isIDNEmail(s string) bool { return checkMailbox(s, true) }

func checkMailbox(s string, intl bool) bool {
	if !utf8.ValidString(s) {
		return false
	}
	at := strings.LastIndexByte(s, '@')
	if at <= 0 || at == len(s)-1 {
		return false
	}
	local, domain := s[:at], s[at+1:]
	if !isLocalPart(local, intl) {
		return false
	}
	if strings.HasPrefix(domain, "[") && strings.HasSuffix(domain, "]") {
		lit := domain[1 : len(domain)-1]
		if v6, ok := strings.CutPrefix(lit, "IPv6:"); ok {
			return isIPv6(v6)
		}
		return isIPv4(lit)
	}
	if intl {
		return isIDNHostname(domain)
	}
	return isHostname(domain)
}

func isLocalPart(l string, intl bool) bool {
	if strings.HasPrefix(l, `"`) {
		// quoted-string: qtextSMTP or quoted-pair ("\" followed by a printable character).
		if len(l) < 2 || !strings.HasSuffix(l, `"`) {
			return false
		}
		body := l[1 : len(l)-1]
		for i := 0; i < len(body); i++ {
			c := body[i]
			switch {
			case c == '\\':
				i++
				if i >= len(body) || body[i] < 32 || body[i] == 127 {
					return false
				}
			case c == '"':
				return false
			case c >= 0x80:
				if !intl {
					return false
				}
			case c < 32 || c == 127:
				return false
			}
		}
		return true
	}
	if l == "" || l[0] == '.' || l[len(l)-1] == '.' || strings.Contains(l, "..") {
		return false
	}
	for _, r := range l {
		switch {
		case r >= 0x80:
			if !intl {
				return false
			}
		case isASCIILetter(byte(r)) || isDigit(byte(r)) || r == '.' || strings.ContainsRune("!#$%&'*+-/=?^_`{|}~", r):
		default:
			return false
		}
	}
	return true
}
