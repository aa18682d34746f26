// spec.go: typed, exact readers for an assertion's spec object.

package assert

import (
	"fmt"

	"attest-engine/jsonschema"
	"attest-engine/trace"
)

// spec reads fields of an assertion spec. Field names match exactly, unknown
// fields are ignored (spec §6), and JSON null means "use the default"
// (../shared/sdk-compat.md: SDKs send `model: null`).
type spec map[string]any

// has reports whether name is present and not null.
func (s spec) has(name string) bool { return s[name] != nil }

func (s spec) missing(name string) error {
	return specErrorf(fmt.Sprintf("Add the '%s' field to the assertion spec.", name), "missing required spec field '%s'", name)
}

func (s spec) wrongType(name, want string) error {
	return specErrorf(fmt.Sprintf("Set '%s' to %s in the assertion spec.", name, want), "spec field '%s' must be %s, got %s", name, want, trace.Kind(s[name]))
}

// str reads a string field; a required one must also be non-empty.
func (s spec) str(name string, required bool) (string, error) {
	v, ok := s[name]
	if !ok || v == nil {
		if required {
			return "", s.missing(name)
		}
		return "", nil
	}
	str, ok := v.(string)
	if !ok {
		return "", s.wrongType(name, "a string")
	}
	if required && str == "" {
		return "", specErrorf(fmt.Sprintf("Set '%s' to a non-empty string.", name), "spec field '%s' must not be empty", name)
	}
	return str, nil
}

// strs reads a list of strings; a required list must be non-empty.
func (s spec) strs(name string, required bool) ([]string, error) {
	v, ok := s[name]
	if !ok || v == nil {
		if required {
			return nil, s.missing(name)
		}
		return nil, nil
	}
	list, ok := v.([]any)
	if !ok {
		return nil, s.wrongType(name, "a list of strings")
	}
	if required && len(list) == 0 {
		return nil, specErrorf(fmt.Sprintf("List at least one entry in '%s'.", name), "spec field '%s' must not be empty", name)
	}
	out := make([]string, len(list))
	for i, e := range list {
		str, ok := e.(string)
		if !ok {
			return nil, specErrorf(fmt.Sprintf("Every entry of '%s' must be a string.", name), "spec field '%s' entry %d must be a string, got %s", name, i, trace.Kind(e))
		}
		out[i] = str
	}
	return out, nil
}

// num reads a finite number; ok is false when the field is absent or null.
func (s spec) num(name string) (f float64, ok bool, err error) {
	v, present := s[name]
	if !present || v == nil {
		return 0, false, nil
	}
	f, isNum := jsonschema.Float(v)
	if !isNum {
		return 0, false, s.wrongType(name, "a number")
	}
	return f, true, nil
}

// boolean reads a bool field, def when absent or null.
func (s spec) boolean(name string, def bool) (bool, error) {
	v, ok := s[name]
	if !ok || v == nil {
		return def, nil
	}
	b, ok := v.(bool)
	if !ok {
		return false, s.wrongType(name, "true or false")
	}
	return b, nil
}
