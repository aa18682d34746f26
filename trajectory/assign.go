// assign.go: order-free matching: steps assigned to patterns within their counts, by augmenting paths over the patterns.

package trajectory

import (
	"context"
	"math/bits"
)

// assignment assigns steps to patterns, each step to at most one pattern
// it matches, pattern i holding load[i] ≤ cap[i] steps. It is a bipartite
// b-matching grown one augmenting path at a time (Kuhn's algorithm), with
// the search run over the P ≤ 64 patterns rather than the steps: pattern a
// can hand a step to pattern b when it holds a step that matches b too, and
// lists[a·P+b] holds those steps (lists[P·P+b]: the free steps matching b),
// so one search costs O(P²) whatever the number of steps, and applying a
// path moves at most P steps, each O(P) to relist.
//
// Worst case, n steps: at most n successful searches (each assigns a step)
// and at most n + P failed ones, so O((n + P) · P²) time; memory O(n · P)
// list entries at most (one per step and pattern it matches), typically one
// per step.
type assignment struct {
	p     int
	mask  []uint64
	owner []int8 // the pattern holding the step, or -1
	load  []int
	cap   []int
	lists [][]int32 // (owner or P) · P + bit → steps
	off   []int32   // step → its first entry in pos
	pos   []int32   // a step's position in the list of each of its bits, in bit order
	par   []int     // search scratch: parent pattern, -1 unvisited
	queue []int
}

func newAssignment(p int, masks []uint64) *assignment {
	a := &assignment{p: p, mask: masks, owner: make([]int8, len(masks)), load: make([]int, p), cap: make([]int, p),
		lists: make([][]int32, (p+1)*p), off: make([]int32, len(masks)), par: make([]int, p), queue: make([]int, 0, p)}
	n := int32(0)
	for s, m := range masks {
		a.off[s] = n
		n += int32(bits.OnesCount64(m))
	}
	a.pos = make([]int32, n)
	for s := range masks {
		a.owner[s] = -1
		a.list(s)
	}
	return a
}

func (a *assignment) key(owner int8, b int) int {
	if owner < 0 {
		return a.p*a.p + b
	}
	return int(owner)*a.p + b
}

// list enters step s in the lists of its owner, one per pattern it matches.
func (a *assignment) list(s int) {
	m, r := a.mask[s], a.off[s]
	for m != 0 {
		b := bits.TrailingZeros64(m)
		m &^= 1 << uint(b)
		k := a.key(a.owner[s], b)
		a.pos[r] = int32(len(a.lists[k]))
		a.lists[k] = append(a.lists[k], int32(s))
		r++
	}
}

// unlist removes step s from the lists of its owner.
func (a *assignment) unlist(s int) {
	m, r := a.mask[s], a.off[s]
	for m != 0 {
		b := bits.TrailingZeros64(m)
		m &^= 1 << uint(b)
		k := a.key(a.owner[s], b)
		l := a.lists[k]
		i := a.pos[r]
		last := int(l[len(l)-1])
		l[i] = int32(last)
		a.pos[a.off[last]+int32(bits.OnesCount64(a.mask[last]&(1<<uint(b)-1)))] = i
		a.lists[k] = l[:len(l)-1]
		r++
	}
}

// move gives step s to pattern to (-1: frees it), keeping loads.
func (a *assignment) move(s int, to int8) {
	a.unlist(s)
	if o := a.owner[s]; o >= 0 {
		a.load[o]--
	}
	a.owner[s] = to
	if to >= 0 {
		a.load[to]++
	}
	a.list(s)
}

// place assigns the free step s, moving steps along a path of patterns to
// one with room, if there is one.
func (a *assignment) place(s int) bool {
	for i := range a.par {
		a.par[i] = -1
	}
	q := a.queue[:0]
	for m := a.mask[s]; m != 0; m &= m - 1 {
		b := bits.TrailingZeros64(m)
		a.par[b] = b // a root
		q = append(q, b)
	}
	for h := 0; h < len(q); h++ {
		x := q[h]
		if a.load[x] < a.cap[x] {
			// Walk back to the root: each pattern on the way hands one
			// step on to the next, from the end of the path.
			for x != a.par[x] {
				from := a.par[x]
				l := a.lists[a.key(int8(from), x)]
				a.move(int(l[len(l)-1]), int8(x))
				x = from
			}
			a.move(s, int8(x))
			return true
		}
		for y := 0; y < a.p; y++ {
			if a.par[y] < 0 && len(a.lists[x*a.p+y]) > 0 {
				a.par[y] = x
				q = append(q, y)
			}
		}
	}
	return false
}

// fill gives pattern i one more step, taken from the free steps through a
// path of patterns that each hand one on, if there is one. Loads other
// than i's do not change.
func (a *assignment) fill(i int) bool {
	for j := range a.par {
		a.par[j] = -1
	}
	a.par[i] = i
	q := append(a.queue[:0], i)
	for h := 0; h < len(q); h++ {
		x := q[h]
		if free := a.lists[a.key(-1, x)]; len(free) > 0 {
			// x takes a free step; each pattern on the way back to i
			// hands one step on to the next.
			s, found := int(free[len(free)-1]), x
			for x != i {
				to := a.par[x]
				l := a.lists[x*a.p+to]
				a.move(int(l[len(l)-1]), int8(to))
				x = to
			}
			a.move(s, int8(found))
			return true
		}
		for y := 0; y < a.p; y++ {
			if a.par[y] < 0 && len(a.lists[y*a.p+x]) > 0 {
				a.par[y] = x
				q = append(q, y)
			}
		}
	}
	return false
}

// fillTo raises pattern i's load to want, as far as it can.
func (a *assignment) fillTo(ctx context.Context, i, want int) error {
	for n := 0; a.load[i] < want; n++ {
		if n%ctxEvery == ctxEvery-1 && ctx.Err() != nil {
			return ctx.Err()
		}
		if !a.fill(i) {
			return nil
		}
	}
	return nil
}

// placeAll places every free step in order, as far as it can.
func (a *assignment) placeAll(ctx context.Context) error {
	for s := range a.mask {
		if s%ctxEvery == ctxEvery-1 && ctx.Err() != nil {
			return ctx.Err()
		}
		if a.owner[s] < 0 && a.mask[s] != 0 {
			a.place(s)
		}
	}
	return nil
}
