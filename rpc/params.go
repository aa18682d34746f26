// params.go: exact, typed readers for request params.

package rpc

import (
	"fmt"

	"attest-engine/jsonschema"
)

// params reads the fields of a params object. Names match exactly; unknown
// fields are ignored (spec §6).
type params map[string]any

func (p params) str(name string) (string, error) {
	v, ok := p[name]
	if !ok {
		return "", fmt.Errorf("missing required field '%s'", name)
	}
	s, ok := v.(string)
	if !ok {
		return "", fmt.Errorf("field '%s' must be a string", name)
	}
	return s, nil
}

// integer reads an integral number, exactly as JSON Schema reads "integer"
// (1.0 and 1e0 are 1; 1.0000000000000000001 is no integer), clamped to int64.
func (p params) integer(name string) (int64, error) {
	v, ok := p[name]
	if !ok {
		return 0, fmt.Errorf("missing required field '%s'", name)
	}
	i, ok := jsonschema.Integer(v)
	if !ok {
		return 0, fmt.Errorf("field '%s' must be an integer", name)
	}
	return i, nil
}

func (p params) strs(name string) ([]string, error) {
	v, ok := p[name]
	if !ok {
		return nil, fmt.Errorf("missing required field '%s'", name)
	}
	list, ok := v.([]any)
	if !ok {
		return nil, fmt.Errorf("field '%s' must be a list of strings", name)
	}
	out := make([]string, len(list))
	for i, e := range list {
		s, ok := e.(string)
		if !ok {
			return nil, fmt.Errorf("field '%s' must be a list of strings", name)
		}
		out[i] = s
	}
	return out, nil
}
