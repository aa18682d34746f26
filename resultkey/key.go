// key.go: the two keys and the label a person reads beside an assertion key.

package resultkey

import (
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"unicode/utf8"

	"attest-engine/simulate"
)

// Domain strings: the first field of every key's hash, so that no
// assertion key can equal a case key's hash, and a later rule can take a
// new version.
const (
	assertionDomain = "attest-assertion-key-v1"
	caseDomain      = "attest-case-key-v1"
)

// Prefixes of the keys' text: 3 bytes, then 32 hex digits.
const (
	AssertionPrefix = "ak_"
	CasePrefix      = "ck_"
)

// Len is the length in bytes of every key.
const Len = 3 + 32

// The hash of a key: SHA-256 over its fields, each as uint64_be(len) ||
// bytes, laid out in one buffer (field), then cut to 16 bytes and written
// in hex after the prefix (finish): two allocations, the buffer and the key.

func field[T string | []byte](buf []byte, f T) []byte {
	buf = binary.BigEndian.AppendUint64(buf, uint64(len(f)))
	return append(buf, f...)
}

func finish(prefix string, buf []byte) string {
	sum := sha256.Sum256(buf)
	var out [Len]byte
	copy(out[:], prefix)
	hex.Encode(out[len(prefix):], sum[:16])
	return string(out[:])
}

// AssertionOf is the assertion key of an assertion whose spec's canonical
// text (simulate.Canonical) is canonicalSpec.
func AssertionOf(typ string, canonicalSpec []byte, agentID, name string) string {
	buf := make([]byte, 0, 5*8+len(assertionDomain)+len(typ)+len(canonicalSpec)+len(agentID)+len(name))
	buf = field(field(field(field(field(buf, assertionDomain), typ), canonicalSpec), agentID), name)
	return finish(AssertionPrefix, buf)
}

// Assertion is the assertion key of an assertion of type typ with spec
// (the decoder's value model: map[string]any, []any, json.Number or
// float64, …), scoped to agentID ("" for the trace) and named name (a watch
// suite's name, "" where there is none). It fails only for a spec that has
// no canonical text (nesting beyond 512 levels, a number beyond the double
// range).
func Assertion(typ string, spec any, agentID, name string) (string, error) {
	c, err := simulate.Canonical(spec)
	if err != nil {
		return "", err
	}
	return AssertionOf(typ, c, agentID, name), nil
}

// CaseOf is the case key of a trace of agentID whose input's canonical
// text is canonicalInput (nil or empty when the trace has no input).
func CaseOf(agentID string, canonicalInput []byte) string {
	buf := make([]byte, 0, 4*8+len(caseDomain)+len("trace")+len(agentID)+len(canonicalInput))
	buf = field(field(field(field(buf, caseDomain), "trace"), agentID), canonicalInput)
	return finish(CasePrefix, buf)
}

// Case is the case key of a trace of agentID with input (the decoder's
// value model); hasInput false when the trace has no input member.
func Case(agentID string, input any, hasInput bool) (string, error) {
	if !hasInput {
		return CaseOf(agentID, nil), nil
	}
	c, err := simulate.Canonical(input)
	if err != nil {
		return "", err
	}
	return CaseOf(agentID, c), nil
}

// Scenario is the case key of every run of the simulated scenario id; the
// run's repeat index is kept beside it.
func Scenario(id string) string {
	buf := make([]byte, 0, 3*8+len(caseDomain)+len("scenario")+len(id))
	return finish(CasePrefix, field(field(field(buf, caseDomain), "scenario"), id))
}

// LabelMax bounds a label's bytes (Label).
const LabelMax = 160

// Label is how a person names an assertion key where the key itself says
// nothing: the name when there is one, else the type and the spec's
// canonical text, cut to LabelMax bytes on a character boundary with "…".
func Label(typ string, canonicalSpec []byte, name string) string {
	if name != "" {
		return clip(name)
	}
	return clip(typ + " " + string(canonicalSpec))
}

func clip(s string) string {
	if len(s) <= LabelMax {
		return s
	}
	const ell = "…"
	cut := LabelMax - len(ell)
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return s[:cut] + ell
}
