// signflip_test.go: the sign-flip test's draws taken four magnitudes a step against one magnitude a step.

package rundiff

import (
	"math"
	"math/bits"
	"math/rand/v2"
	"slices"
	"testing"
)

// signFlipOneStep is signFlip with one step per distinct magnitude (no lookup of four at once): the
// reference TestSignFlipSteps holds signFlip to.
func signFlipOneStep(diffs []float64, rng *rand.Rand) (down, up float64) {
	abs := make([]float64, 0, len(diffs))
	obs, total := 0.0, 0.0
	for _, d := range diffs {
		if d != 0 {
			abs = append(abs, math.Abs(d))
			obs += d
			total += math.Abs(d)
		}
	}
	if len(abs) == 0 {
		return 1, 1 // no pair moved: nothing suggests a change
	}
	// The sums are compared with a tolerance: a permuted sum equal to the observed one in exact arithmetic
	// may differ from it in the last bits of sums as large as the magnitudes' total.
	tol := 1e-9 * (1 + total)
	if len(abs) <= exactFlips {
		le, ge, n := 0, 0, 1<<len(abs)
		for mask := range n {
			s := 0.0
			for i, a := range abs {
				if mask&(1<<i) != 0 {
					s -= a
				} else {
					s += a
				}
			}
			if s <= obs+tol {
				le++
			}
			if s >= obs-tol {
				ge++
			}
		}
		return float64(le) / float64(n), float64(ge) / float64(n)
	}
	slices.Sort(abs)
	var vals []float64
	var counts []int
	for i, a := range abs {
		if i > 0 && a == abs[i-1] {
			counts[len(counts)-1]++
			continue
		}
		vals = append(vals, a)
		counts = append(counts, 1)
	}
	le, ge := 0, 0
	leAt, geAt := 0, 0 // the draws after which a direction stopped, 0 while it draws
	var word uint64
	left := 0 // unused bits in word
	for draw := 1; draw <= signFlipResamples && (leAt == 0 || geAt == 0); draw++ {
		s := 0.0
		for j, v := range vals {
			c, minus := counts[j], 0
			for c > 0 {
				if left == 0 {
					word, left = rng.Uint64(), 64
				}
				k := min(c, left)
				if k == 64 {
					minus += bits.OnesCount64(word)
					word = 0
				} else {
					minus += bits.OnesCount64(word & (1<<k - 1))
					word >>= k
				}
				left -= k
				c -= k
			}
			s += v * float64(counts[j]-2*minus)
		}
		if leAt == 0 && s <= obs+tol {
			if le++; le == signFlipStop {
				leAt = draw
			}
		}
		if geAt == 0 && s >= obs-tol {
			if ge++; ge == signFlipStop {
				geAt = draw
			}
		}
	}
	p := func(count, at int) float64 {
		if at > 0 {
			return float64(signFlipStop) / float64(at)
		}
		return float64(1+count) / float64(1+signFlipResamples)
	}
	return p(le, leAt), p(ge, geAt)
}

// TestSignFlipSteps: signFlip gives the p-values the one-step-a-magnitude draws give, to the bit, on keys
// of 17 to 20,000 pairs whose scores are continuous, in thousandths, in tenths (their differences mostly
// distinct in floating point), a rubric's quarters (exactly equal), a mix, with and without a drop, each
// way; and the draws take the same bits (the generator is left in the same state).
func TestSignFlipSteps(t *testing.T) {
	rng := rand.New(rand.NewPCG(simSeed(t), 37))
	kinds := map[string]func() float64{
		"continuous":  func() float64 { return rng.Float64() },
		"thousandths": func() float64 { return math.Round(rng.Float64()*1000) / 1000 },
		"tenths":      func() float64 { return math.Round(rng.Float64()*10) / 10 },
		"quarters":    func() float64 { return float64(rng.IntN(5)) / 4 },
		"mixed": func() float64 {
			if rng.IntN(2) == 0 {
				return float64(rng.IntN(5)) / 4
			}
			return rng.Float64()
		},
	}
	for name, score := range kinds {
		for _, n := range []int{17, 50, 333, 2000, 20_000} {
			for _, drop := range []float64{0, 0.02, 0.1} {
				if n == 20_000 && drop > 0 && name != "thousandths" {
					continue // the whole 20,000 draws: one kind is enough
				}
				d := make([]float64, n)
				for i := range d {
					b := score()
					d[i] = max(0, min(1, score()-drop)) - b
					if rng.IntN(3) == 0 {
						d[i] = 0
					}
				}
				seed := rng.Uint64()
				r1, r2 := rand.New(rand.NewPCG(seed, 1)), rand.New(rand.NewPCG(seed, 1))
				down, up := signFlip(slices.Clone(d), r1)
				wantDown, wantUp := signFlipOneStep(slices.Clone(d), r2)
				if down != wantDown || up != wantUp || r1.Uint64() != r2.Uint64() {
					t.Errorf("%s, %d pairs, drop %g: p %g and %g, one step a magnitude %g and %g", name, n, drop, down, up, wantDown, wantUp)
				}
			}
		}
	}
}

// BenchmarkSignFlipDropped: one graded key of 20,000 pairs whose mean score dropped by 0.05 (its p-value
// toward a drop is small, so that direction draws all 20,000 times), its scores continuous, in thousandths
// or in tenths, by signFlip (draws=lookup) and by one step a magnitude (draws=grouped, the reference):
//
//	go test ./rundiff -run '^$' -bench SignFlipDropped -benchtime 2x -count 6 | tee sf.txt
//	benchstat -col /draws sf.txt
func BenchmarkSignFlipDropped(b *testing.B) {
	for _, kind := range []struct {
		name  string
		scale float64 // scores rounded to 1/scale; 0: not rounded
	}{{"continuous", 0}, {"thousandths", 1000}, {"tenths", 10}} {
		rng := rand.New(rand.NewPCG(7, 7))
		d := make([]float64, 20_000)
		for i := range d {
			base, head := rng.Float64(), max(0, rng.Float64()-0.05)
			if kind.scale > 0 {
				base, head = math.Round(base*kind.scale)/kind.scale, math.Round(head*kind.scale)/kind.scale
			}
			d[i] = head - base
		}
		for _, draws := range []struct {
			name string
			f    func([]float64, *rand.Rand) (float64, float64)
		}{{"grouped", signFlipOneStep}, {"lookup", signFlip}} {
			b.Run("scores="+kind.name+"/draws="+draws.name, func(b *testing.B) {
				for b.Loop() {
					if down, _ := draws.f(d, rand.New(rand.NewPCG(1, 1))); down > 0.01 {
						b.Fatalf("p %g toward a drop of 0.05", down)
					}
				}
			})
		}
	}
}
