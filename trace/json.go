// json.go: the engine's JSON decoder: one pass, exact keys, bounded depth, exact numbers.

package trace

import (
	"attest-engine/tape"
)

// MaxDepth bounds the nesting of arrays and objects in any decoded document
// (tape.MaxDepth).
const MaxDepth = tape.MaxDepth

// SyntaxError reports input that is not one well-formed JSON value.
type SyntaxError = tape.SyntaxError

// DuplicateKeyError reports an object that names the same member twice.
type DuplicateKeyError = tape.DuplicateKeyError

// Decode parses data, which must hold exactly one JSON value with optional
// surrounding white space, into the engine's value model: nil, bool, string,
// json.Number, []any and map[string]any (tape.Parse, then Value.Any).
//
// On a duplicate member name Decode returns the value together with a
// *DuplicateKeyError (the later member wins, as in encoding/json); on any
// other problem it returns nil and a *SyntaxError.
func Decode(data []byte) (any, error) {
	doc, err := tape.Parse(data)
	if doc == nil {
		return nil, err
	}
	v := doc.Root().Any()
	doc.Release()
	return v, err
}
