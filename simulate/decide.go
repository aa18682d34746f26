// decide.go: the decision function: SHA-256 of the call's identity, read as a uniform number.

package simulate

import (
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"math/bits"
	"strconv"
)

// domain separates this use of SHA-256 from any other; a new version of the function gets a new tag.
const domain = "attest-simulate-v1"

// Key is everything a decision depends on (see the package documentation, "Determinism").
type Key struct {
	Seed       string // the seed's text: a string as given, an integer in decimal
	ScenarioID string
	Tool       string
	Args       []byte // canonical JSON text of the args
	Occurrence int    // 1 for the first call of this tool with these args in the scenario
	Attempt    int    // the SDK's attempt number, else the occurrence
	FaultID    string // "" for decisions that belong to no fault
}

// Digest is SHA-256 over the fields of k, each preceded by its length in bytes as an 8-byte big-endian
// integer: domain, seed, scenario_id, tool, canonical args, occurrence and attempt in decimal, fault id.
func (k *Key) Digest() [32]byte {
	h := sha256.New()
	var n [8]byte
	field := func(s []byte) {
		binary.BigEndian.PutUint64(n[:], uint64(len(s)))
		h.Write(n[:])
		h.Write(s)
	}
	field([]byte(domain))
	field([]byte(k.Seed))
	field([]byte(k.ScenarioID))
	field([]byte(k.Tool))
	field(k.Args)
	field(strconv.AppendInt(nil, int64(k.Occurrence), 10))
	field(strconv.AppendInt(nil, int64(k.Attempt), 10))
	field([]byte(k.FaultID))
	var d [32]byte
	h.Sum(d[:0])
	return d
}

// Fires reports whether a decision with this digest fires at rate: the top 53 bits of the digest's first
// 8 bytes, u = x / 2^53 in [0, 1), fire when u < rate. Rate 0 never fires, rate 1 always does.
func Fires(d [32]byte, rate float64) bool {
	x := binary.BigEndian.Uint64(d[0:8]) >> 11
	return float64(x) < rate*(1<<53) // both sides exact: x < 2^53, and rate·2^53 only shifts the exponent
}

// Pick returns a number from lo to hi inclusive from the digest's bytes 8 to 16: lo + (y·(hi−lo+1)) >> 53
// with y their top 53 bits, so every value is reached and none is favoured by more than 2^-53·span.
func Pick(d [32]byte, lo, hi int) int {
	y := binary.BigEndian.Uint64(d[8:16]) >> 11
	h, l := bits.Mul64(y, uint64(hi-lo+1))
	return lo + int(h<<11|l>>53)
}

// Canary is the marker of an injected text: "CANARY-" and the hex of the digest's bytes 16 to 24.
func Canary(d [32]byte) string { return "CANARY-" + hex.EncodeToString(d[16:24]) }
