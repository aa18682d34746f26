package history

import (
	"crypto/sha256"
	"encoding/binary"
)

// prng is the tests' deterministic generator: SHA-256 in counter mode over a
// seed string (the house rule: nothing seeded comes from math/rand). Block i
// is SHA-256(seed ‖ uint64 i), read as four little-endian uint64s.
type prng struct {
	seed []byte
	ctr  uint64
	buf  [4]uint64
	left int
}

func newPRNG(seed string) *prng { return &prng{seed: []byte(seed)} }

func (p *prng) Uint64() uint64 {
	if p.left == 0 {
		var c [8]byte
		binary.LittleEndian.PutUint64(c[:], p.ctr)
		p.ctr++
		h := sha256.New()
		h.Write(p.seed)
		h.Write(c[:])
		sum := h.Sum(nil)
		for i := range p.buf {
			p.buf[i] = binary.LittleEndian.Uint64(sum[8*i:])
		}
		p.left = 4
	}
	p.left--
	return p.buf[p.left]
}

// Float64 is uniform in [0, 1).
func (p *prng) Float64() float64 { return float64(p.Uint64()>>11) / (1 << 53) }

// Intn is uniform in [0, n) (n small: the modulo bias is negligible).
func (p *prng) Intn(n int) int { return int(p.Uint64() % uint64(n)) }
