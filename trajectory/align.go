// align.go: graded alignment: the cheapest way to read the trace as the reference, ordered (edit distance) or not (optimal assignment).

package trajectory

import (
	"context"
	"math"
	"math/bits"
	"sort"
)

// event is one entry of an alignment: step seq[at] matched to pattern p,
// or unexpected (p < 0); or n missing occurrences of pattern p where the
// trace had reached seq position at (missing > 0).
type event struct {
	at, p, missing int
}

// alignment is an optimal alignment and its cost: Σ Cost_i per missing
// required occurrence of pattern i, plus the unexpected cost per step not
// matched to a pattern.
type alignment struct {
	cost   float64
	events []event // in trace order
}

// Back-pointer codes of the ordered alignment (two bits per state and step).
const (
	fromSkip  = 0 // the step was unexpected: same state one step earlier
	fromMatch = 1 // the step matched: count one lower one step earlier
	fromSelf  = 2 // the step matched an unbounded pattern at its count K
	fromClose = 3 // pattern i-1 was closed at this step (its count in arg)
)

// alignOrdered finds a minimum-cost ordered alignment: an edit distance
// between the steps and the reference where a step may match the pattern
// it is read against (cost 0) or be unexpected (cost u), and a pattern
// closes with its missing occurrences paid (Cost_i each below Min_i). Steps
// matched to one pattern need not be adjacent; patterns are read in order.
//
// Dynamic programming over the steps and the S ≤ MaxStates count states of
// states(): O(n · S) time, O(S) for the costs and, to recover the
// alignment, two bits per step and state plus one byte per step and
// pattern: n · (S/4 + P) bytes, linear in the trace (≤ 3.2 MB at 10,000
// steps and S = 1,024).
func alignOrdered(ctx context.Context, pats []*Pattern, masks []uint64, u float64) (alignment, error) {
	st := layout(pats)
	m, n, S := len(pats), len(masks), st.base[len(pats)]+1
	inf := math.Inf(1)
	cur, next := make([]float64, S), make([]float64, S)
	// miss[s]: what closing pattern i at state s = (i, k) costs, Cost_i ·
	// (Min_i − k) below Min_i, 0 from there.
	miss := make([]float64, S)
	for i, p := range pats {
		for k := 0; k <= st.k[i]; k++ {
			miss[st.base[i]+k] = p.Cost * float64(max(p.Min-k, 0))
		}
	}
	stride := (S + 3) / 4
	back := make([]byte, (n+1)*stride)
	arg := make([]uint8, (n+1)*m)
	set := func(col, s int, code byte) {
		b := &back[col*stride+s/4]
		sh := uint(s%4) * 2
		*b = *b&^(3<<sh) | code<<sh
	}
	get := func(col, s int) byte { return back[col*stride+s/4] >> (uint(s%4) * 2) & 3 }
	closeCol := func(col int, c []float64) {
		for i := range pats {
			b, e := st.base[i], st.base[i+1]
			best, bk := inf, 0
			cs, ms := c[b:e], miss[b:e]
			for k, v := range cs {
				if v += ms[k]; v < best {
					best, bk = v, k
				}
			}
			if best < c[e] {
				c[e] = best
				set(col, e, fromClose)
				arg[col*m+i] = uint8(bk)
			}
		}
	}
	for s := range cur {
		cur[s] = inf
	}
	cur[0] = 0
	closeCol(0, cur)
	for j, mask := range masks {
		if j%ctxEvery == ctxEvery-1 {
			if err := ctx.Err(); err != nil {
				return alignment{}, err
			}
		}
		col := j + 1
		for s := range next {
			next[s] = cur[s] + u // unexpected (code 0)
		}
		for mm := mask; mm != 0; mm &= mm - 1 {
			i := bits.TrailingZeros64(mm)
			b := st.base[i]
			for k := 0; k <= st.k[i]; k++ {
				v := cur[b+k]
				if v == inf {
					continue
				}
				t, code := b+k+1, byte(fromMatch)
				if k == st.k[i] {
					if !st.unb[i] {
						continue
					}
					t, code = b+k, fromSelf
				}
				if v < next[t] {
					next[t] = v
					set(col, t, code)
				}
			}
		}
		closeCol(col, next)
		cur, next = next, cur
	}
	// Trace back from the final state at the end.
	a := alignment{cost: cur[S-1]}
	s := S - 1
	for col := n; col >= 0; {
		code := get(col, s)
		// The pattern a state belongs to (the final state: m).
		i := sort.Search(m+1, func(i int) bool { return st.base[i] > s }) - 1
		switch {
		case code == fromClose && s == st.base[i] && i > 0:
			k := int(arg[col*m+i-1])
			if miss := pats[i-1].Min - k; miss > 0 {
				a.events = append(a.events, event{at: col, p: i - 1, missing: miss})
			}
			s = st.base[i-1] + k
		case col == 0:
			col = -1 // the start state
		case code == fromSkip:
			a.events = append(a.events, event{at: col - 1, p: -1})
			col--
		case code == fromMatch:
			a.events = append(a.events, event{at: col - 1, p: i})
			s--
			col--
		default: // fromSelf
			a.events = append(a.events, event{at: col - 1, p: i})
			col--
		}
	}
	for l, r := 0, len(a.events)-1; l < r; l, r = l+1, r-1 {
		a.events[l], a.events[r] = a.events[r], a.events[l]
	}
	return a, nil
}

// alignUnordered finds a minimum-cost assignment of steps to patterns, in
// any order: a weighted b-matching. Its optimum is found greedily: the
// sets of pattern occurrences that steps can fill at once form a
// transversal matroid, so filling the required occurrences (worth Cost_i + u
// each) in decreasing order of Cost_i, then the optional ones (worth u),
// each when an augmenting path allows, is optimal (Edmonds' greedy theorem
// for matroids). The same assignment decides the order-free modes:
// superset (every Min met), subset (every step placed within Max) and
// unordered (both). O((n + P) · P²) time (assignment).
func alignUnordered(ctx context.Context, pats []*Pattern, masks []uint64, u float64, fillRequired, placeSteps bool) (*assignment, alignment, error) {
	p := len(pats)
	a := newAssignment(p, masks)
	order := make([]int, p)
	for i := range order {
		order[i] = i
	}
	sort.SliceStable(order, func(x, y int) bool { return pats[order[x]].Cost > pats[order[y]].Cost })
	if fillRequired {
		for _, i := range order {
			a.cap[i] = pats[i].Min
			if err := a.fillTo(ctx, i, pats[i].Min); err != nil {
				return nil, alignment{}, err
			}
		}
	}
	if placeSteps {
		for i, pt := range pats {
			a.cap[i] = pt.Max
			if pt.Max == Unbounded {
				a.cap[i] = len(masks)
			}
		}
		if err := a.placeAll(ctx); err != nil {
			return nil, alignment{}, err
		}
	}
	var al alignment
	for s := range masks {
		if o := a.owner[s]; o >= 0 {
			al.events = append(al.events, event{at: s, p: int(o)})
		} else {
			al.cost += u
			al.events = append(al.events, event{at: s, p: -1})
		}
	}
	for i, pt := range pats {
		if miss := pt.Min - a.load[i]; miss > 0 {
			al.cost += pt.Cost * float64(miss)
			al.events = append(al.events, event{at: len(masks), p: i, missing: miss})
		}
	}
	return a, al, nil
}

// maxCost is the cost of matching nothing: every required occurrence
// missing and every step unexpected; the score is 1 − cost/maxCost.
func maxCost(pats []*Pattern, n int, u float64) float64 {
	c := u * float64(n)
	for _, p := range pats {
		c += p.Cost * float64(p.Min)
	}
	return c
}

func score(cost, worst float64) float64 {
	if worst <= 0 {
		return 1
	}
	return math.Max(0, 1-cost/worst)
}
