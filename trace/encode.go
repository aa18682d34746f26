// encode.go: the compact text of a decoded value, for Validate to read onto a tape.

package trace

import (
	"bytes"
	"encoding/json"
)

// encode returns the compact JSON text of v as encoding/json writes it,
// HTML escaping off (so '<' keeps its one byte and sizes are the
// value's own). Validate is off the hot path (validate_trace_tree, and a
// document that names a member twice), so the standard encoder, key sorting
// and all, is fast enough; a value it cannot encode (a NaN, a cycle, an
// invalid json.Number) is an error.
func encode(v any) ([]byte, error) {
	var w bytes.Buffer
	enc := json.NewEncoder(&w)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return w.Bytes(), nil
}
