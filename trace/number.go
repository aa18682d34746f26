// number.go: exact integer tests on decoded numbers, and how values are shown in messages.

package trace

import (
	"attest-engine/clip"
	"attest-engine/jsonschema"
	"attest-engine/tape"
)

// bigInt stands for every integer too large to matter: integer clamps to it.
const bigInt = 1 << 62

// integer reports whether v is a number with an integral value, and that
// value clamped to ±bigInt. json.Number text is read exactly (by
// jsonschema.Integer), so 1.0000000000000000001 is not an integer although
// its float64 is.
func integer(v any) (int64, bool) {
	n, ok := jsonschema.Integer(v)
	return max(-bigInt, min(bigInt, n)), ok
}

// describe shows a value in a message: numbers and strings as themselves,
// clipped, other values by their JSON type.
func describe(v tape.Value) string {
	switch v.Kind() {
	case tape.Number:
		return clipped(string(v.Text()))
	case tape.String:
		return "string " + quote(string(v.Bytes()))
	}
	return kindName(v.Kind())
}

// quote puts a value from the trace between single quotes, as the spec's
// messages do, clipped so that a message stays short.
func quote(s string) string { return "'" + clipped(s) + "'" }

// clipped is s as a message shows it: at most 64 bytes (package clip).
func clipped(s string) string { return clip.String(s, 64) }
