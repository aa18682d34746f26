// regex_test.go checks the bit-parallel matcher against the regexp package on many strings.

package jsonschema

import (
	"math/rand/v2"
	"regexp"
	"testing"
)

func TestGlushkovAgreesWithRegexp(t *testing.T) {
	patterns := []string{
		`^RFD-\d+$`, `^[^@]+@[^@]+$`, `a*`, `^a*$`, `^$`, `^`, `$`, `ab|cd`, `^(ab|cd)+$`, `x?y`, `^a{2,3}$`,
		`^[a-z]{0,2}b$`, `(a|b)*c`, `^(a|)+$`, `\d`, `^\p{L}+$`, `é+`, `^.b`, `[^a]`, `^(?:x|y(z))?$`,
		`^SKU-[A-Z0-9]+$`, `a.c`, `^\s*$`,
	}
	alphabet := []rune{'a', 'b', 'c', 'd', 'x', 'y', 'z', '0', '5', '-', '@', 'R', 'F', 'D', 'é', '\n', ' ', 'S', 'K', 'U'}
	rng := rand.New(rand.NewPCG(1, 2))
	for _, p := range patterns {
		re, _, err := compileECMA(p)
		if err != nil {
			t.Fatalf("%s: %v", p, err)
		}
		g := buildGlushkov(re.String())
		if g == nil {
			t.Errorf("%s: expected the fast matcher to apply", p)
			continue
		}
		inputs := []string{"", "RFD-001", "a@b", "ab", "aa", "aaa", "c", "ac", "x", "y", "yz", "é", "a\nc"}
		for range 3000 {
			n := rng.IntN(7)
			r := make([]rune, n)
			for i := range r {
				r[i] = alphabet[rng.IntN(len(alphabet))]
			}
			inputs = append(inputs, string(r))
		}
		for _, s := range inputs {
			if got, want := g.match(s), re.MatchString(s); got != want {
				t.Errorf("pattern %q on %q: fast matcher says %v, regexp says %v", p, s, got, want)
			}
		}
	}
	if buildGlushkov(regexp.MustCompile(`\bx`).String()) != nil {
		t.Error("word boundaries must fall back to regexp")
	}
}
