// strict.go: which patterns each step matches, and strict matching of a reference with counts, as an NFA.

package trajectory

import (
	"context"
	"fmt"
	"math/bits"
	"strings"
)

// ctxEvery is how many steps a loop walks between two looks at the batch's
// deadline: every loop over the steps stops when the deadline passes.
const ctxEvery = 256

// matchMasks returns, for each step of seq, the set of patterns it matches
// (bit i: pats[i]). Patterns are looked up by tool name, so a step is
// tested against the patterns naming it and the patterns naming no tool:
// O(|seq| · P) tests at worst, each costing what its matchers read.
func matchMasks(ctx context.Context, all []step, seq []int, pats []*Pattern, e *env) ([]uint64, error) {
	byName := map[string][]int{}
	var wild []int
	for i, p := range pats {
		if p.Tool == "" {
			wild = append(wild, i)
		} else {
			byName[p.Tool] = append(byName[p.Tool], i)
		}
	}
	masks := make([]uint64, len(seq))
	for k, si := range seq {
		if k%ctxEvery == ctxEvery-1 {
			if err := ctx.Err(); err != nil {
				return nil, err
			}
		}
		s := &all[si]
		var m uint64
		for _, i := range byName[s.name] {
			if pats[i].matches(s, e) {
				m |= 1 << uint(i)
			}
		}
		for _, i := range wild {
			if pats[i].matches(s, e) {
				m |= 1 << uint(i)
			}
		}
		masks[k] = m
	}
	return masks, nil
}

// states lays out the NFA (and the alignment's) states: pattern i has the
// counts 0..K_i of its occurrences so far, K_i = Max, or Min when Max is
// unbounded (count K_i then means "K_i or more"); one last state follows
// the last pattern. Σ(K_i+1) ≤ MaxStates, checked at compile.
type states struct {
	base []int // first state of pattern i; base[m] is the final state
	k    []int // K_i
	unb  []bool
}

func layout(pats []*Pattern) states {
	st := states{base: make([]int, len(pats)+1), k: make([]int, len(pats)), unb: make([]bool, len(pats))}
	n := 0
	for i, p := range pats {
		st.base[i] = n
		st.k[i] = p.Max
		if p.Max == Unbounded {
			st.k[i], st.unb[i] = p.Min, true
		}
		n += st.k[i] + 1
	}
	st.base[len(pats)] = n
	return st
}

func stateCount(pats []*Pattern) int {
	n := 0
	for _, p := range pats {
		if p.Max == Unbounded {
			n += p.Min + 1
		} else {
			n += p.Max + 1
		}
	}
	return n
}

// strictResult is the verdict of a strict match: pass, or the position in
// seq where no reading of the reference continues (len(seq): the trace
// ended first), with the patterns that were possible there.
type strictResult struct {
	pass     bool
	at       int
	expected []int // patterns that could have matched the step at 'at'
	full     []int // patterns at their max there
	missing  int   // at the end: the furthest pattern not yet complete
	count    int   // how often it occurred
}

// matchStrict runs the reference as an NFA over the steps: the trace
// matches when it is p_1^{k_1} … p_m^{k_m} with Min_i ≤ k_i ≤ Max_i, every
// step of block i matching p_i. One pass, O(|seq| · S) time for S ≤
// MaxStates states, O(S) memory besides the masks; the first step that no
// state can take is where the trace departs (every shorter prefix can still
// be completed, so it is the longest viable prefix).
func matchStrict(ctx context.Context, pats []*Pattern, masks []uint64) (strictResult, error) {
	st := layout(pats)
	m := len(pats)
	cur := make([]bool, st.base[m]+1)
	next := make([]bool, len(cur))
	cur[0] = true
	closeStates(st, pats, cur)
	for at, mask := range masks {
		if at%ctxEvery == ctxEvery-1 {
			if err := ctx.Err(); err != nil {
				return strictResult{}, err
			}
		}
		clear(next)
		any := false
		for mm := mask; mm != 0; mm &= mm - 1 {
			i := bits.TrailingZeros64(mm)
			b := st.base[i]
			for c := 0; c <= st.k[i]; c++ {
				if !cur[b+c] {
					continue
				}
				switch {
				case c < st.k[i]:
					next[b+c+1], any = true, true
				case st.unb[i]:
					next[b+c], any = true, true
				}
			}
		}
		if !any {
			return strictResult{at: at, expected: open(st, cur), full: full(st, cur)}, nil
		}
		cur, next = next, cur
		closeStates(st, pats, cur)
	}
	if cur[st.base[m]] {
		return strictResult{pass: true, at: len(masks)}, nil
	}
	// The trace ended inside the reference: name the furthest pattern reached.
	r := strictResult{at: len(masks), missing: -1}
	for i := m - 1; i >= 0 && r.missing < 0; i-- {
		for c := st.k[i]; c >= 0; c-- {
			if cur[st.base[i]+c] {
				r.missing, r.count = i, c
				break
			}
		}
	}
	return r, nil
}

// closeStates adds, in pattern order, the move from pattern i with at least
// Min_i occurrences to pattern i+1 with none.
func closeStates(st states, pats []*Pattern, cur []bool) {
	for i, p := range pats {
		for c := p.Min; c <= st.k[i]; c++ {
			if cur[st.base[i]+c] {
				cur[st.base[i+1]] = true
				break
			}
		}
	}
}

// open lists the patterns a next step could match from the states in cur.
func open(st states, cur []bool) []int {
	var out []int
	for i := range st.k {
		for c := 0; c <= st.k[i]; c++ {
			if cur[st.base[i]+c] && (c < st.k[i] || st.unb[i]) {
				out = append(out, i)
				break
			}
		}
	}
	return out
}

// full lists the patterns that are at their (finite) max in cur.
func full(st states, cur []bool) []int {
	var out []int
	for i := range st.k {
		if !st.unb[i] && cur[st.base[i]+st.k[i]] {
			out = append(out, i)
		}
	}
	return out
}

// nearMiss returns the first step of seq bearing pattern p's tool name (and
// type) that p rejects, and why: the step that was meant, with what was
// wrong. -1 when there is none.
func nearMiss(all []step, seq []int, p *Pattern, e *env, from int) (int, string) {
	if p.Tool == "" && p.Type == "" {
		return -1, ""
	}
	for k := from; k < len(seq); k++ {
		s := &all[seq[k]]
		if (p.Tool == "" || s.name == p.Tool) && (p.Type == "" || s.typ == p.Type) {
			if why := p.why(s, e); why != "" {
				return k, why
			}
		}
	}
	return -1, ""
}

// patternList names patterns: "'a' (pattern 1) or 'b' (pattern 3)".
func patternList(pats []*Pattern, idx []int, sep string) string {
	parts := make([]string, 0, len(idx))
	for n, i := range idx {
		if n == 5 {
			parts = append(parts, fmt.Sprintf("%d more", len(idx)-5))
			break
		}
		parts = append(parts, fmt.Sprintf("%s (pattern %d)", pats[i].label(), i+1))
	}
	return strings.Join(parts, sep)
}

// maskList lists the patterns of a mask.
func maskList(mask uint64) []int {
	var out []int
	for mask != 0 {
		i := bits.TrailingZeros64(mask)
		out = append(out, i)
		mask &^= 1 << uint(i)
	}
	return out
}
