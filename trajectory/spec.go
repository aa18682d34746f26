// spec.go: reading a check's spec: typed, exact field readers and the error they return.

package trajectory

import (
	"encoding/json"
	"fmt"
	"strconv"

	"attest-engine/clip"
	"attest-engine/jsonschema"
)

// SpecError is a spec that cannot be compiled: the engine answers it with
// ASSERTION_ERROR (spec §5, 1002). Msg is the wire message, Detail what to do.
type SpecError struct{ Msg, Detail string }

func (e *SpecError) Error() string { return e.Msg }

func specErrorf(detail, format string, args ...any) error {
	return &SpecError{Msg: fmt.Sprintf(format, args...), Detail: detail}
}

// obj reads the members of a spec object; at names it in messages
// ("reference[2].args"). Member names match exactly; unknown members are
// ignored (spec §6: "Ignore unknown fields in all SDK requests"), and null
// means "use the default", as everywhere in assertion specs.
type obj struct {
	at string
	m  map[string]any
}

func (o obj) name(field string) string {
	if o.at == "" {
		return field
	}
	return o.at + "." + field
}

func (o obj) has(field string) bool { return o.m[field] != nil }

func (o obj) missing(field string) error {
	return specErrorf(fmt.Sprintf("Add '%s' to the assertion spec.", o.name(field)), "missing required spec field '%s'", o.name(field))
}

func (o obj) wrongType(field, want string) error {
	return specErrorf(fmt.Sprintf("Set '%s' to %s.", o.name(field), want), "spec field '%s' must be %s, got %s", o.name(field), want, kindOf(o.m[field]))
}

// str reads a string; a required one must be non-empty.
func (o obj) str(field string, required bool) (string, error) {
	v := o.m[field]
	if v == nil {
		if required {
			return "", o.missing(field)
		}
		return "", nil
	}
	s, ok := v.(string)
	if !ok {
		return "", o.wrongType(field, "a string")
	}
	if s == "" {
		return "", specErrorf(fmt.Sprintf("Set '%s' to a non-empty string, or leave it out.", o.name(field)), "spec field '%s' must not be empty", o.name(field))
	}
	return s, nil
}

// integer reads an integer in [lo, hi] (2.0 and 2e0 are 2), def when absent.
func (o obj) integer(field string, def, lo, hi int64) (int64, error) {
	v := o.m[field]
	if v == nil {
		return def, nil
	}
	n, ok := jsonschema.Integer(v)
	if !ok || n < lo || n > hi {
		return 0, specErrorf(fmt.Sprintf("Set '%s' to an integer from %d to %d.", o.name(field), lo, hi),
			"spec field '%s' must be an integer from %d to %d, got %s", o.name(field), lo, hi, text(v))
	}
	return n, nil
}

// number reads a finite number in [lo, hi], def when absent.
func (o obj) number(field string, def, lo, hi float64) (float64, error) {
	v := o.m[field]
	if v == nil {
		return def, nil
	}
	f, ok := jsonschema.Float(v)
	if !ok || f < lo || f > hi {
		return 0, specErrorf(fmt.Sprintf("Set '%s' to a number from %s to %s.", o.name(field), fmtNum(lo), fmtNum(hi)),
			"spec field '%s' must be a number from %s to %s, got %s", o.name(field), fmtNum(lo), fmtNum(hi), text(v))
	}
	return f, nil
}

func (o obj) boolean(field string) (bool, error) {
	v := o.m[field]
	if v == nil {
		return false, nil
	}
	b, ok := v.(bool)
	if !ok {
		return false, o.wrongType(field, "true or false")
	}
	return b, nil
}

// object reads a member that must be an object (absent: nil).
func (o obj) object(field string) (obj, bool, error) {
	v := o.m[field]
	if v == nil {
		return obj{}, false, nil
	}
	m, ok := v.(map[string]any)
	if !ok {
		return obj{}, false, o.wrongType(field, "an object")
	}
	return obj{at: o.name(field), m: m}, true, nil
}

// list reads a member that must be a non-empty array of at most max entries.
func (o obj) list(field string, max int) ([]any, error) {
	v := o.m[field]
	if v == nil {
		return nil, o.missing(field)
	}
	l, ok := v.([]any)
	if !ok {
		return nil, o.wrongType(field, "a list")
	}
	if len(l) == 0 {
		return nil, specErrorf(fmt.Sprintf("List at least one entry in '%s'.", o.name(field)), "spec field '%s' must not be empty", o.name(field))
	}
	if len(l) > max {
		return nil, specErrorf(fmt.Sprintf("Split the check: '%s' holds at most %d entries.", o.name(field), max),
			"spec field '%s' has %d entries, more than %d", o.name(field), len(l), max)
	}
	return l, nil
}

// oneOf reads a string among the allowed values, def when absent.
func (o obj) oneOf(field, def string, allowed ...string) (string, error) {
	v := o.m[field]
	if v == nil {
		return def, nil
	}
	s, ok := v.(string)
	if ok {
		for _, a := range allowed {
			if s == a {
				return s, nil
			}
		}
	}
	return "", specErrorf(fmt.Sprintf("Set '%s' to one of %s.", o.name(field), quoteList(allowed)),
		"spec field '%s' must be one of %s, got %s", o.name(field), quoteList(allowed), text(v))
}

func fmtNum(f float64) string { return strconv.FormatFloat(f, 'g', -1, 64) }

// kindOf names the JSON type of a decoded value.
func kindOf(v any) string {
	switch v.(type) {
	case nil:
		return "null"
	case bool:
		return "a boolean"
	case string:
		return "a string"
	case json.Number, float64, int, int64:
		return "a number"
	case []any:
		return "a list"
	case map[string]any:
		return "an object"
	}
	return fmt.Sprintf("%T", v)
}

// text is v's compact JSON text, cut to 80 bytes, for messages.
func text(v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		return fmt.Sprintf("%v", v)
	}
	return clip.String(string(b), 80)
}

func quoteList(l []string) string {
	b := []byte{}
	for i, s := range l {
		if i > 0 {
			b = append(b, ", "...)
		}
		b = append(b, '\'')
		b = append(b, s...)
		b = append(b, '\'')
	}
	return string(b)
}
