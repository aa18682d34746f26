// format_idna.go holds Punycode (RFC 3492) and the IDNA2008 label rules (RFC 5891 §5.4, RFC 5892 and its
// contextual rules, RFC 5893 Bidi rule) used by hostname and idn-hostname. Without Unicode's IDNA and
// joining-type tables in the standard library, the code point classes are approximated from Go's unicode
// categories and scripts; see "Deviations from the specification" in doc.go.

package jsonschema

import (
	"strings"
	"sync"
	"unicode"
	"unicode/utf8"
)

const (
	pcBase, pcTMin, pcTMax, pcSkew, pcDamp = 36, 1, 26, 38, 700
	pcInitialBias, pcInitialN              = 72, 128
	maxPunycodeRunes                       = 256
)

func pcAdapt(delta, numPoints int, first bool) int {
	if first {
		delta /= pcDamp
	} else {
		delta /= 2
	}
	delta += delta / numPoints
	k := 0
	for delta > ((pcBase-pcTMin)*pcTMax)/2 {
		delta /= pcBase - pcTMin
		k += pcBase
	}
	return k + (pcBase-pcTMin+1)*delta/(delta+pcSkew)
}

func pcThreshold(k, bias int) int {
	switch {
	case k <= bias:
		return pcTMin
	case k >= bias+pcTMax:
		return pcTMax
	}
	return k - bias
}

// punycodeDecode decodes the part of an A-label after "xn--".
func punycodeDecode(s string) ([]rune, bool) {
	var out []rune
	rest := s
	if i := strings.LastIndexByte(s, '-'); i >= 0 {
		for j := 0; j < i; j++ {
			if s[j] >= 0x80 {
				return nil, false
			}
			out = append(out, rune(s[j]))
		}
		rest = s[i+1:]
	}
	n, i, bias := pcInitialN, 0, pcInitialBias
	for pos := 0; pos < len(rest); {
		oldi, w := i, 1
		for k := pcBase; ; k += pcBase {
			if pos >= len(rest) {
				return nil, false
			}
			c := rest[pos]
			pos++
			var digit int
			switch {
			case '0' <= c && c <= '9':
				digit = int(c-'0') + 26
			case 'a' <= c && c <= 'z':
				digit = int(c - 'a')
			case 'A' <= c && c <= 'Z':
				digit = int(c - 'A')
			default:
				return nil, false
			}
			if digit > (1<<30-i)/w {
				return nil, false
			}
			i += digit * w
			t := pcThreshold(k, bias)
			if digit < t {
				break
			}
			if w > (1<<30)/(pcBase-t) {
				return nil, false
			}
			w *= pcBase - t
		}
		if len(out) >= maxPunycodeRunes {
			return nil, false
		}
		bias = pcAdapt(i-oldi, len(out)+1, oldi == 0)
		n += i / (len(out) + 1)
		i %= len(out) + 1
		if n > unicode.MaxRune || (0xD800 <= n && n < 0xE000) {
			return nil, false
		}
		out = append(out[:i], append([]rune{rune(n)}, out[i:]...)...)
		i++
	}
	return out, true
}

// punycodeEncode encodes a label (RFC 3492 §6.3), without the "xn--" prefix.
func punycodeEncode(label []rune) string {
	var b strings.Builder
	basic := 0
	for _, r := range label {
		if r < 0x80 {
			b.WriteRune(r)
			basic++
		}
	}
	if basic > 0 {
		b.WriteByte('-')
	}
	n, delta, bias := pcInitialN, 0, pcInitialBias
	for h := basic; h < len(label); {
		m := int(unicode.MaxRune) + 1
		for _, r := range label {
			if int(r) >= n && int(r) < m {
				m = int(r)
			}
		}
		delta += (m - n) * (h + 1)
		n = m
		for _, r := range label {
			if int(r) < n {
				delta++
			}
			if int(r) != n {
				continue
			}
			q := delta
			for k := pcBase; ; k += pcBase {
				t := pcThreshold(k, bias)
				if q < t {
					break
				}
				b.WriteByte(pcDigit(t + (q-t)%(pcBase-t)))
				q = (q - t) / (pcBase - t)
			}
			b.WriteByte(pcDigit(q))
			bias = pcAdapt(delta, h+1, h == basic)
			delta = 0
			h++
		}
		delta++
		n++
	}
	return b.String()
}

func pcDigit(d int) byte {
	if d < 26 {
		return byte('a' + d)
	}
	return byte('0' + d - 26)
}

// isALabel checks an "xn--" label: valid Punycode that re-encodes to itself and decodes to a valid,
// non-ASCII U-label.
func isALabel(label string) (ulabel []rune, ok bool) {
	lower := strings.ToLower(label)
	u, ok := punycodeDecode(lower[4:])
	if !ok || len(u) == 0 || punycodeEncode(u) != lower[4:] {
		return nil, false
	}
	ascii := true
	for _, r := range u {
		if r >= 0x80 {
			ascii = false
		}
	}
	return u, !ascii && isULabel(u)
}

// idnaExceptions is RFC 5892 §2.6: 'P' PVALID, 'D' DISALLOWED, 'O' CONTEXTO.
var idnaExceptions = sync.OnceValue(func() map[rune]byte {
	return map[rune]byte{
		0x00DF: 'P', 0x03C2: 'P', 0x06FD: 'P', 0x06FE: 'P', 0x0F0B: 'P', 0x3007: 'P',
		0x00B7: 'O', 0x0375: 'O', 0x05F3: 'O', 0x05F4: 'O', 0x30FB: 'O',
		0x0640: 'D', 0x07FA: 'D', 0x302E: 'D', 0x302F: 'D', 0x3031: 'D', 0x3032: 'D', 0x3033: 'D',
		0x3034: 'D', 0x3035: 'D', 0x303B: 'D',
	}
})

// viramas are code points with Canonical_Combining_Class Virama (RFC 5892 Appendix A.1, A.2).
var viramas = sync.OnceValue(func() map[rune]bool {
	return map[rune]bool{
		0x094D: true, 0x09CD: true, 0x0A4D: true, 0x0ACD: true, 0x0B4D: true, 0x0BCD: true, 0x0C4D: true,
		0x0CCD: true, 0x0D3B: true, 0x0D3C: true, 0x0D4D: true, 0x0DCA: true, 0x0E3A: true, 0x0EBA: true,
		0x0F84: true, 0x1039: true, 0x103A: true, 0x1714: true, 0x1734: true, 0x17D2: true, 0x1A60: true,
		0x1B44: true, 0x1BAA: true, 0x1BAB: true, 0x1BF2: true, 0x1BF3: true, 0x2D7F: true, 0xA806: true,
		0xA8C4: true, 0xA953: true, 0xA9C0: true, 0xAAF6: true, 0xABED: true,
	}
})

// idnaValid approximates PVALID (RFC 5892 §2-§3) for a code point that is not an exception.
func idnaValid(r rune) bool {
	switch {
	case r < 0x80:
		return ('a' <= r && r <= 'z') || ('0' <= r && r <= '9') || r == '-'
	case 0x1100 <= r && r <= 0x11FF, 0xA960 <= r && r <= 0xA97F, 0xD7B0 <= r && r <= 0xD7FF:
		return false // OldHangulJamo
	case 0xFE00 <= r && r <= 0xFE0F, 0xE0100 <= r && r <= 0xE01EF, 0x180B <= r && r <= 0x180D:
		return false // default ignorable
	case unicode.IsUpper(r), unicode.IsTitle(r):
		return false // changes under case folding (Unstable)
	}
	return unicode.In(r, unicode.Ll, unicode.Lo, unicode.Lm, unicode.Mn, unicode.Mc, unicode.Nd)
}

func isMark(r rune) bool { return unicode.In(r, unicode.Mn, unicode.Mc, unicode.Me) }

// isULabel checks a U-label against RFC 5891 §5.4 and the contextual rules of RFC 5892 Appendix A.
func isULabel(u []rune) bool {
	if len(u) == 0 || len(u) > 63 || u[0] == '-' || u[len(u)-1] == '-' {
		return false
	}
	if len(u) >= 4 && u[2] == '-' && u[3] == '-' {
		return false
	}
	if isMark(u[0]) {
		return false
	}
	if len("xn--"+punycodeEncode(u)) > 63 {
		return false
	}
	hasArabicIndic, hasExtArabicIndic := false, false
	for i, r := range u {
		switch {
		case 0x0660 <= r && r <= 0x0669:
			hasArabicIndic = true
			continue
		case 0x06F0 <= r && r <= 0x06F9:
			hasExtArabicIndic = true
			continue
		case r == 0x200D: // ZERO WIDTH JOINER: after a virama
			if i == 0 || !viramas()[u[i-1]] {
				return false
			}
			continue
		case r == 0x200C: // ZERO WIDTH NON-JOINER: after a virama, or between joining letters
			if !zwnjAllowed(u, i) {
				return false
			}
			continue
		}
		switch idnaExceptions()[r] {
		case 'P':
			continue
		case 'D':
			return false
		case 'O':
			if !contextOK(u, i) {
				return false
			}
			continue
		}
		if !idnaValid(r) {
			return false
		}
	}
	return !(hasArabicIndic && hasExtArabicIndic)
}

func contextOK(u []rune, i int) bool {
	switch u[i] {
	case 0x00B7: // MIDDLE DOT between two 'l'
		return i > 0 && i+1 < len(u) && u[i-1] == 'l' && u[i+1] == 'l'
	case 0x0375: // GREEK LOWER NUMERAL SIGN followed by Greek
		return i+1 < len(u) && unicode.Is(unicode.Greek, u[i+1])
	case 0x05F3, 0x05F4: // HEBREW GERESH, GERSHAYIM preceded by Hebrew
		return i > 0 && unicode.Is(unicode.Hebrew, u[i-1])
	case 0x30FB: // KATAKANA MIDDLE DOT with some Hiragana, Katakana or Han in the label
		for _, r := range u {
			if r != 0x30FB && (unicode.Is(unicode.Hiragana, r) || unicode.Is(unicode.Katakana, r) || unicode.Is(unicode.Han, r)) {
				return true
			}
		}
		return false
	}
	return false
}

// zwnjAllowed is RFC 5892 Appendix A.1 with joining types approximated: Arabic-script and Syriac letters
// join on both sides (D), non-spacing marks are transparent (T).
func zwnjAllowed(u []rune, i int) bool {
	if i > 0 && viramas()[u[i-1]] {
		return true
	}
	joins := func(r rune) bool {
		return unicode.IsLetter(r) && (unicode.Is(unicode.Arabic, r) || unicode.Is(unicode.Syriac, r) || unicode.Is(unicode.Nko, r))
	}
	j := i - 1
	for j >= 0 && unicode.Is(unicode.Mn, u[j]) {
		j--
	}
	k := i + 1
	for k < len(u) && unicode.Is(unicode.Mn, u[k]) {
		k++
	}
	return j >= 0 && k < len(u) && joins(u[j]) && joins(u[k])
}

// bidiClass approximates the Unicode Bidi_Class of code points allowed in labels: 'L', 'R' (Hebrew and
// other right-to-left scripts), 'A' (AL: Arabic letters), 'N' (AN: Arabic-Indic digits), 'E' (EN),
// 'S' (ES, the hyphen), 'B' (BN, the joiners), 'M' (NSM).
func bidiClass(r rune) byte {
	switch {
	case '0' <= r && r <= '9', 0x06F0 <= r && r <= 0x06F9:
		return 'E'
	case 0x0660 <= r && r <= 0x0669:
		return 'N'
	case r == '-':
		return 'S'
	case r == 0x200C || r == 0x200D:
		return 'B'
	case unicode.Is(unicode.Mn, r) || unicode.Is(unicode.Me, r):
		return 'M'
	case unicode.Is(unicode.Hebrew, r), unicode.Is(unicode.Nko, r):
		return 'R'
	case unicode.Is(unicode.Arabic, r), unicode.Is(unicode.Syriac, r), unicode.Is(unicode.Thaana, r):
		return 'A'
	}
	return 'L'
}

// isRTLLabel reports whether a label holds right-to-left characters (RFC 5893 §1.4).
func isRTLLabel(u []rune) bool {
	for _, r := range u {
		if c := bidiClass(r); c == 'R' || c == 'A' || c == 'N' {
			return true
		}
	}
	return false
}

// bidiOK is the Bidi Rule of RFC 5893 §2 for one label of a domain name that has right-to-left labels.
func bidiOK(u []rune) bool {
	if len(u) == 0 {
		return false
	}
	first := bidiClass(u[0])
	end := len(u) - 1
	for end > 0 && bidiClass(u[end]) == 'M' {
		end--
	}
	last := bidiClass(u[end])
	switch first {
	case 'R', 'A':
		hasEN, hasAN := false, false
		for _, r := range u {
			switch bidiClass(r) {
			case 'L':
				return false
			case 'E':
				hasEN = true
			case 'N':
				hasAN = true
			}
		}
		return !(hasEN && hasAN) && strings.IndexByte("RAEN", last) >= 0
	case 'L':
		for _, r := range u {
			if c := bidiClass(r); c == 'R' || c == 'A' || c == 'N' {
				return false
			}
		}
		return last == 'L' || last == 'E'
	}
	return false
}

// isIDNHostname checks format "idn-hostname" (validation spec §7.3.3, RFC 5890): labels separated by
// any of the four IDNA full stops (RFC 3490 §3.1), each an LDH label, an A-label or a U-label.
func isIDNHostname(s string) bool {
	// Every code point takes at least one octet of the A-label form, which is at most 253 octets: a
	// longer name is refused before it is split and decoded.
	if s == "" || !utf8.ValidString(s) || utf8.RuneCountInString(s) > 253 {
		return false
	}
	var parts [][]rune
	cur := []rune{}
	for _, r := range s {
		if r == '.' || r == 0x3002 || r == 0xFF0E || r == 0xFF61 {
			parts = append(parts, cur)
			cur = []rune{}
			continue
		}
		cur = append(cur, r)
	}
	parts = append(parts, cur)
	total := len(parts) - 1
	rtl := false
	var ulabels [][]rune
	for _, p := range parts {
		if len(p) == 0 {
			return false
		}
		label := string(p)
		ascii := len(label) == len(p)
		switch {
		case ascii && len(label) >= 4 && strings.EqualFold(label[:4], "xn--"):
			u, ok := isALabel(label)
			if !ok {
				return false
			}
			ulabels = append(ulabels, u)
			total += len(label)
		case ascii:
			if !isLDHLabel(label) {
				return false
			}
			ulabels = append(ulabels, p)
			total += len(label)
		default:
			if !isULabel(p) {
				return false
			}
			ulabels = append(ulabels, p)
			total += len("xn--" + punycodeEncode(p))
		}
	}
	if total > 253 {
		return false
	}
	for _, u := range ulabels {
		if isRTLLabel(u) {
			rtl = true
		}
	}
	if rtl {
		for _, u := range ulabels {
			if !bidiOK(u) {
				return false
			}
		}
	}
	return true
}
