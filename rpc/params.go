// params.go: exact, typed readers for request params.

package rpc

import (
	"encoding/json"
	"fmt"
	"strconv"
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

func (p params) integer(name string) (int64, error) {
	v, ok := p[name]
	if !ok {
		return 0, fmt.Errorf("missing required field '%s'", name)
	}
	n, ok := v.(json.Number)
	if !ok {
		return 0, fmt.Errorf("field '%s' must be an integer", name)
	}
	i, err := strconv.ParseInt(string(n), 10, 64)
	if err != nil {
		// Accept an integral value written as 1.0 or 1e0.
		f, ferr := strconv.ParseFloat(string(n), 64)
		if ferr != nil || f != float64(int64(f)) {
			return 0, fmt.Errorf("field '%s' must be an integer", name)
		}
		i = int64(f)
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
