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

// hashFields is SHA-256 over each field as uint64_be(len) || bytes, cut to
// 16 bytes and written in hex after prefix.
func hashFields(prefix string, fields ...[]byte) string {
	h := sha256.New()
	var n [8]byte
	for _, f := range fields {
		binary.BigEndian.PutUint64(n[:], uint64(len(f)))
		h.Write(n[:])
		h.Write(f)
	}
	var sum [sha256.Size]byte
	out := make([]byte, len(prefix), Len)
	copy(out, prefix)
	return string(hex.AppendEncode(out, h.Sum(sum[:0])[:16]))
}

// AssertionOf is the assertion key of an assertion whose spec's canonical
// text (simulate.Canonical) is canonicalSpec.
func AssertionOf(typ string, canonicalSpec []byte, agentID, name string) string {
	return hashFields(AssertionPrefix, []byte(assertionDomain), []byte(typ), canonicalSpec, []byte(agentID), []byte(name))
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
	return hashFields(CasePrefix, []byte(caseDomain), []byte("trace"), []byte(agentID), canonicalInput)
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
	return hashFields(CasePrefix, []byte(caseDomain), []byte("scenario"), []byte(id))
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
