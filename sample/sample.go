// sample.go: the consistent-probability sampling rule.

package sample

import (
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"fmt"
	"math/big"
	"strings"
)

// maxR is 2⁵⁶: randomness values are in [0, maxR).
const maxR = uint64(1) << 56

// Rate is a sampling rate, held as its rejection threshold.
type Rate struct {
	text      string
	threshold uint64 // keep iff R >= threshold; 0 keeps all, maxR none
}

// All keeps every trace.
var All = Rate{text: "1", threshold: 0}

// ParseRate reads a rate in [0, 1] written as a decimal number.
func ParseRate(s string) (Rate, error) {
	r, ok := new(big.Rat).SetString(strings.TrimSpace(s))
	if !ok || r.Sign() < 0 || r.Cmp(big.NewRat(1, 1)) > 0 || strings.ContainsAny(s, "/") {
		return Rate{}, fmt.Errorf("sample rate %q: want a decimal number from 0 to 1", s)
	}
	// T = round((1 − rate)·2⁵⁶), halves up.
	t := new(big.Rat).Sub(big.NewRat(1, 1), r)
	t.Mul(t, new(big.Rat).SetInt(new(big.Int).SetUint64(maxR)))
	num, den := t.Num(), t.Denom()
	q, m := new(big.Int).QuoRem(num, den, new(big.Int))
	if new(big.Int).Mul(m, big.NewInt(2)).Cmp(den) >= 0 {
		q.Add(q, big.NewInt(1))
	}
	return Rate{text: s, threshold: q.Uint64()}, nil
}

func (r Rate) String() string { return r.text }

// Threshold is the rejection threshold T, for tests and logs.
func (r Rate) Threshold() uint64 { return r.threshold }

// Keep reports whether the trace with this id is sampled.
func (r Rate) Keep(id string) bool {
	if r.threshold == 0 {
		return true
	}
	return Randomness(id) >= r.threshold
}

// Randomness is the id's 56 random bits: the last 56 bits of a 32-hex-digit
// trace id, else the first 56 bits of SHA-256(id).
func Randomness(id string) uint64 {
	if len(id) == 32 {
		var b [16]byte
		if _, err := hex.Decode(b[:], []byte(id)); err == nil {
			return binary.BigEndian.Uint64(b[8:]) & (maxR - 1)
		}
	}
	sum := sha256.Sum256([]byte(id))
	return binary.BigEndian.Uint64(sum[:8]) >> 8
}
