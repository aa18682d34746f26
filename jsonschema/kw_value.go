// kw_value.go holds the keywords that check a value itself (validation spec §6.1-§6.3, §7): type, enum,
// const, the numeric keywords, the string length keywords, pattern and format.

package jsonschema

import (
	"strings"
	"unicode/utf8"
)

// typeKw (§6.1.1). mask has bit 1<<kind for each allowed kind; integer is a separate bit because it is a
// subset of number.
type typeKw struct {
	at   string
	mask uint8
	want string // for messages, e.g. "number or null"
}

const integerBit = 1 << 7

func (k *typeKw) eval(v *validator, inst any, _ *annot) bool {
	kd := kindOf(inst)
	if k.mask&(1<<kd) != 0 {
		return true
	}
	if kd == kindNumber && k.mask&integerBit != 0 {
		n, _ := numberOf(inst)
		v.work += len(n.text)
		if n.isInteger() {
			return true
		}
		if v.detail {
			v.failf(k.at, "type", "got number %s, want %s", n, k.want)
		}
		return false
	}
	if v.detail {
		v.failf(k.at, "type", "got %s, want %s", kd, k.want)
	}
	return false
}

// enumKw (§6.1.2). Strings are also kept in a set so that long enums of strings stay cheap.
type enumKw struct {
	at     string
	values []any
	strs   map[string]struct{}
	size   int // valueSize(values): what comparing against all of them reads at most
}

func (k *enumKw) eval(v *validator, inst any, _ *annot) bool {
	if s, ok := inst.(string); ok && k.strs != nil {
		v.work += len(s)
		if _, ok := k.strs[s]; ok {
			return true
		}
	} else {
		// Equal reads at most the smaller value, so the enum's own size
		// bounds the work of trying every member.
		v.work += k.size
		for _, e := range k.values {
			if Equal(inst, e) {
				return true
			}
		}
	}
	if v.detail { // display reads the values: not for a verdict only
		v.failf(k.at, "enum", "%s is not one of %s", display(inst, &v.work), display(k.values, &v.work))
	}
	return false
}

// constKw (§6.1.3).
type constKw struct {
	at    string
	value any
	size  int // valueSize(value): what comparing against it reads at most
}

func (k *constKw) eval(v *validator, inst any, _ *annot) bool {
	v.work += k.size
	if Equal(inst, k.value) {
		return true
	}
	if v.detail { // display reads the values: not for a verdict only
		v.failf(k.at, "const", "%s is not the constant %s", display(inst, &v.work), display(k.value, &v.work))
	}
	return false
}

// numericKw holds multipleOf, maximum, exclusiveMaximum, minimum and exclusiveMinimum (§6.2) so that the
// instance number is read once. Every comparison is exact (see number.go).
type numericKw struct {
	at               string
	multipleOf       *number
	multipleDec      decimal
	maximum, minimum *number
	exclMax, exclMin *number
}

func (k *numericKw) eval(v *validator, inst any, _ *annot) bool {
	if kindOf(inst) != kindNumber {
		return true
	}
	n, _ := numberOf(inst)
	v.work += len(n.text)
	ok := true
	fail := func(kw, format string, bound *number) {
		ok = false
		if v.detail {
			v.failf(k.at, kw, format, n, bound)
		}
	}
	if k.minimum != nil && cmpNumber(n, *k.minimum) < 0 {
		fail("minimum", "%s is less than minimum %s", k.minimum)
	}
	if k.maximum != nil && cmpNumber(n, *k.maximum) > 0 {
		fail("maximum", "%s exceeds maximum %s", k.maximum)
	}
	if k.exclMin != nil && cmpNumber(n, *k.exclMin) <= 0 {
		fail("exclusiveMinimum", "%s is not greater than exclusiveMinimum %s", k.exclMin)
	}
	if k.exclMax != nil && cmpNumber(n, *k.exclMax) >= 0 {
		fail("exclusiveMaximum", "%s is not less than exclusiveMaximum %s", k.exclMax)
	}
	if k.multipleOf != nil && !isMultiple(n.dec(), k.multipleDec) {
		fail("multipleOf", "%s is not a multiple of %s", k.multipleOf)
	}
	return ok
}

// lengthKw holds minLength and maxLength (§6.3.1, §6.3.2): lengths count Unicode code points; -1 means
// absent.
type lengthKw struct {
	at       string
	min, max int
}

func (k *lengthKw) eval(v *validator, inst any, _ *annot) bool {
	s, isStr := inst.(string)
	if !isStr {
		return true
	}
	// A code point takes one to four bytes, so the byte length often settles it without counting.
	if (k.min <= 0 || (len(s)+3)/4 >= k.min) && (k.max < 0 || len(s) <= k.max) {
		return true
	}
	v.work += len(s)
	n := utf8.RuneCountInString(s)
	switch {
	case k.min >= 0 && n < k.min:
		if v.detail {
			v.failf(k.at, "minLength", "%s has %d %s, want at least %d", quote(s), n, plural(n, "character", "characters"), k.min)
		}
		return false
	case k.max >= 0 && n > k.max:
		if v.detail {
			v.failf(k.at, "maxLength", "%s has %d %s, want at most %d", quote(s), n, plural(n, "character", "characters"), k.max)
		}
		return false
	}
	return true
}

// patternKw (§6.3.3): the pattern is not anchored, it may match anywhere.
type patternKw struct {
	at      string
	re      *matcher
	pattern string
}

func (k *patternKw) eval(v *validator, inst any, _ *annot) bool {
	s, isStr := inst.(string)
	if !isStr || v.match(k.re, s) {
		return true
	}
	if v.detail {
		v.failf(k.at, "pattern", "%s does not match pattern %s", quote(s), quote(k.pattern))
	}
	return false
}

// formatKw (§7) as an assertion: only compiled when format is asserted and the format is known.
type formatKw struct {
	format
	at   string
	name string
}

func (k *formatKw) eval(v *validator, inst any, _ *annot) bool {
	s, isStr := inst.(string)
	if !isStr {
		return true
	}
	v.work += k.perByte * len(s)
	if k.check(s) {
		return true
	}
	if v.detail {
		v.failf(k.at, "format", "%s is not a valid %s", quote(s), k.name)
	}
	return false
}

// typeNames renders a type list for messages: "string", "number or null", "array, object or null".
func typeNames(names []string) string {
	switch len(names) {
	case 0:
		return "nothing"
	case 1:
		return names[0]
	}
	return strings.Join(names[:len(names)-1], ", ") + " or " + names[len(names)-1]
}
