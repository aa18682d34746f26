// brute_test.go: every mode, constraint and alignment checked against brute force on seeded random (trace, reference) pairs.

package trajectory

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"attest-engine/tape"
	"attest-engine/testseed"
)

// The pairs are drawn from a PCG seeded by -trajectory.seed (or
// TRAJECTORY_SEED); -trajectory.pairs (or TRAJECTORY_PAIRS) sets how many.
// The default run checks 2,000 (about 2 s); the full check is
//
//	go test ./trajectory -run Brute -trajectory.pairs 100000
var (
	seedFlag  = flag.Uint64("trajectory.seed", 0, "seed of the random pairs (0: TRAJECTORY_SEED or 1)")
	pairsFlag = flag.Int("trajectory.pairs", 0, "number of random pairs (0: TRAJECTORY_PAIRS or 2000)")
)

// fromEnv is the flag's value when set, else the environment variable's
// (testseed: a value that is not a whole number fails the test), else def.
func fromEnv(t *testing.T, flagV uint64, name string, def uint64) uint64 {
	if flagV != 0 {
		return flagV
	}
	return testseed.Uint64(t, name, def)
}

// A generated step: name, type, x (an integer arg) and y (a string arg).
type gStep struct {
	name, typ string
	x         int
	y         string
}

// A generated pattern, with the test's own predicate (match) written apart
// from the package's matchers.
type gPat struct {
	tool, typ string
	matcher   string // "", "exact", "tol", "regex", "any", "ref", "schema"
	k         int    // exact, tol: the value
	min, max  int    // max -1: unbounded
	cost      int
}

const inputV = 1 // the trace's input.v, which "ref" compares x with

func (p gPat) match(s gStep) bool {
	if p.tool != "" && p.tool != s.name || p.typ != "" && p.typ != s.typ {
		return false
	}
	switch p.matcher {
	case "exact":
		return s.x == p.k
	case "tol": // |x − k| ≤ 1
		return s.x >= p.k-1 && s.x <= p.k+1
	case "regex": // ^p
		return strings.HasPrefix(s.y, "p")
	case "ref":
		return s.x == inputV
	case "schema": // maximum 1
		return s.x <= 1
	}
	return true
}

func (p gPat) spec(withCounts bool) map[string]any {
	m := map[string]any{}
	if p.tool != "" {
		m["tool"] = p.tool
	}
	if p.typ != "" {
		m["type"] = p.typ
	}
	switch p.matcher {
	case "exact":
		m["args"] = map[string]any{"x": p.k}
	case "tol":
		m["args"] = map[string]any{"x": map[string]any{"exact": p.k, "tolerance": 1}}
	case "regex":
		m["args"] = map[string]any{"y": map[string]any{"regex": "^p"}}
	case "any":
		m["args"] = map[string]any{"x": map[string]any{"any": true}}
	case "ref":
		m["args"] = map[string]any{"x": map[string]any{"ref": "input.v"}}
	case "schema":
		m["args"] = map[string]any{"x": map[string]any{"schema": map[string]any{"type": "integer", "maximum": 1}}}
	}
	if withCounts {
		m["min"] = p.min
		if p.max < 0 {
			m["max"] = "unbounded"
		} else {
			m["max"] = p.max
		}
		m["cost"] = p.cost
	}
	return m
}

var names = []string{"a", "b", "c", "d"} // d is never named by a pattern

func genSteps(r *rand.Rand) []gStep {
	n := r.IntN(9)
	out := make([]gStep, n)
	for i := range out {
		s := gStep{name: names[r.IntN(4)], typ: "tool_call", x: r.IntN(3), y: []string{"p", "q"}[r.IntN(2)]}
		switch r.IntN(10) {
		case 0:
			s.typ = "llm_call"
		case 1:
			s.typ = "retrieval"
		}
		out[i] = s
	}
	return out
}

func genPat(r *rand.Rand) gPat {
	p := gPat{cost: 1 + r.IntN(3)}
	if r.IntN(6) > 0 {
		p.tool = names[r.IntN(3)]
	}
	if r.IntN(8) == 0 {
		p.typ = []string{"tool_call", "llm_call"}[r.IntN(2)]
	}
	p.matcher = []string{"", "", "exact", "tol", "regex", "any", "ref", "schema"}[r.IntN(8)]
	p.k = r.IntN(3)
	p.min = r.IntN(3)
	switch r.IntN(4) {
	case 0:
		p.max = -1
	default:
		p.max = max(p.min, 1) + r.IntN(2)
	}
	return p
}

func traceJSON(steps []gStep) []byte {
	var st []any
	for _, s := range steps {
		st = append(st, map[string]any{"type": s.typ, "name": s.name, "args": map[string]any{"x": s.x, "y": s.y}})
	}
	b, _ := json.Marshal(map[string]any{"schema_version": 1, "trace_id": "t", "input": map[string]any{"v": inputV}, "steps": st, "output": map[string]any{"m": "x"}})
	return b
}

// bruteSeq is the sequence rule written again: tool calls by type, and
// steps bearing a name or type a pattern names.
func bruteSeq(steps []gStep, pats []gPat) []int {
	var seq []int
	for i, s := range steps {
		in := s.typ == "tool_call" || s.typ == "retrieval"
		for _, p := range pats {
			in = in || p.tool != "" && p.tool == s.name || p.typ != "" && p.typ == s.typ
		}
		if in {
			seq = append(seq, i)
		}
	}
	return seq
}

// bruteStrict: can patterns i… read exactly steps j… (blocks in order).
func bruteStrict(steps []gStep, seq []int, pats []gPat, i, j int) bool {
	if i == len(pats) {
		return j == len(seq)
	}
	p := pats[i]
	for k := 0; j+k <= len(seq); k++ {
		if p.max >= 0 && k > p.max {
			break
		}
		if k > 0 && !p.match(steps[seq[j+k-1]]) {
			break
		}
		if k >= p.min && bruteStrict(steps, seq, pats, i+1, j+k) {
			return true
		}
	}
	return false
}

// bruteViable: can seq[:L] be read as whole blocks then part of a block.
func bruteViable(steps []gStep, seq []int, pats []gPat, i, j, L int) bool {
	if j == L {
		return true // the prefix is read; the rest can be completed
	}
	if i == len(pats) {
		return false
	}
	p := pats[i]
	for k := 0; j+k <= L; k++ {
		if p.max >= 0 && k > p.max {
			break
		}
		if k > 0 && !p.match(steps[seq[j+k-1]]) {
			break
		}
		if j+k == L && k > 0 {
			return true // a block of pattern i still open at L
		}
		if k >= p.min && bruteViable(steps, seq, pats, i+1, j+k, L) {
			return true
		}
	}
	return false
}

// bruteAssign enumerates every assignment of the steps to patterns they
// match (or none), with matched pattern indexes non-decreasing when
// ordered, loads ≤ max, and calls visit with the loads and unassigned count.
func bruteAssign(steps []gStep, seq []int, pats []gPat, ordered bool, visit func(load []int, free int)) {
	load := make([]int, len(pats))
	var rec func(j, last, free int)
	rec = func(j, last, free int) {
		if j == len(seq) {
			visit(load, free)
			return
		}
		rec(j+1, last, free+1)
		for i, p := range pats {
			if ordered && i < last || !p.match(steps[seq[j]]) || p.max >= 0 && load[i] == p.max {
				continue
			}
			load[i]++
			rec(j+1, i, free)
			load[i]--
		}
	}
	rec(0, 0, 0)
}

func bruteAlign(steps []gStep, seq []int, pats []gPat, ordered bool, u int) (best int) {
	best = math.MaxInt
	bruteAssign(steps, seq, pats, ordered, func(load []int, free int) {
		c := u * free
		for i, p := range pats {
			c += p.cost * max(p.min-load[i], 0)
		}
		best = min(best, c)
	})
	return best
}

func bruteMode(steps []gStep, seq []int, pats []gPat, mode string) bool {
	ok := false
	bruteAssign(steps, seq, pats, false, func(load []int, free int) {
		good := true
		for i, p := range pats {
			switch mode {
			case "unordered", "superset":
				good = good && load[i] >= p.min
			}
		}
		if mode != "superset" {
			good = good && free == 0
		}
		ok = ok || good
	})
	return ok
}

// bruteTemporal returns the position in seq of the first violation, len(seq)
// for one at the end, -1 when the constraint holds.
func bruteTemporal(steps []gStep, seq []int, rule string, n int, a, b, c gPat) int {
	A := func(k int) bool { return a.match(steps[seq[k]]) }
	B := func(k int) bool { return b.match(steps[seq[k]]) }
	C := func(k int) bool { return c.match(steps[seq[k]]) }
	for k := range seq {
		switch rule {
		case "before":
			if B(k) {
				found := false
				for i := 0; i < k; i++ {
					found = found || A(i)
				}
				if !found {
					return k
				}
			}
		case "never_after":
			if B(k) {
				for i := 0; i < k; i++ {
					if A(i) {
						return k
					}
				}
			}
		case "immediately_after":
			if B(k) && (k == 0 || !A(k-1)) {
				return k
			}
		case "at_most":
			count := 0
			for i := 0; i <= k; i++ {
				if A(i) {
					count++
				}
			}
			if A(k) && count > n {
				return k
			}
		case "between":
			if !C(k) {
				continue
			}
			inside := false
			for i := 0; i < k; i++ {
				if !A(i) {
					continue
				}
				closed := false
				for l := i + 1; l < k; l++ {
					closed = closed || B(l)
				}
				inside = inside || !closed
			}
			after := false
			for j := k + 1; j < len(seq); j++ {
				after = after || B(j)
			}
			if !inside || !after {
				return k
			}
		}
	}
	if rule == "eventually" {
		for k := range seq {
			if A(k) {
				return -1
			}
		}
		// The nearest: the first step bearing A's name (and type) that A rejects.
		if a.tool != "" || a.typ != "" {
			for k := range seq {
				s := steps[seq[k]]
				if (a.tool == "" || s.name == a.tool) && (a.typ == "" || s.typ == a.typ) {
					return k
				}
			}
		}
		return len(seq)
	}
	return -1
}

func compileJSON(t testing.TB, spec map[string]any) *Check {
	t.Helper()
	b, _ := json.Marshal(spec)
	var m map[string]any
	d := json.NewDecoder(strings.NewReader(string(b)))
	d.UseNumber()
	if err := d.Decode(&m); err != nil {
		t.Fatal(err)
	}
	c, err := Compile(m, nil)
	if err != nil {
		t.Fatalf("%s: %v", b, err)
	}
	return c
}

// position is where a Failure points in seq (len(seq) at the end).
func position(steps []gStep, seq []int, f *Failure) int {
	if f == nil {
		return -1
	}
	if f.AtEnd {
		return len(seq)
	}
	for k, i := range seq {
		if i == f.Step {
			return k
		}
	}
	return -2
}

func TestBruteForce(t *testing.T) {
	seed := fromEnv(t, *seedFlag, "TRAJECTORY_SEED", 1)
	pairs := int(fromEnv(t, uint64(max(*pairsFlag, 0)), "TRAJECTORY_PAIRS", 2000))
	r := rand.New(rand.NewPCG(seed, 0x7a7a))
	ctx := context.Background()
	disagree := 0
	report := func(format string, args ...any) {
		disagree++
		if disagree <= 10 {
			t.Errorf("seed %d: "+format, append([]any{seed}, args...)...)
		}
	}
	for n := 0; n < pairs; n++ {
		steps := genSteps(r)
		pats := make([]gPat, 1+r.IntN(4))
		for i := range pats {
			pats[i] = genPat(r)
		}
		doc, err := tape.Parse(traceJSON(steps))
		if err != nil {
			t.Fatal(err)
		}
		root := doc.Root()
		ref := make([]any, len(pats))
		for i, p := range pats {
			ref[i] = p.spec(true)
		}
		seq := bruteSeq(steps, pats)
		desc := func() string { return fmt.Sprintf("pair %d: steps %+v reference %+v", n, steps, pats) }

		for _, mode := range []string{"strict", "unordered", "subset", "superset"} {
			o, err := compileJSON(t, map[string]any{"check": "trajectory_match", "mode": mode, "reference": ref}).Eval(ctx, root)
			if err != nil {
				t.Fatal(err)
			}
			var want bool
			if mode == "strict" {
				want = bruteStrict(steps, seq, pats, 0, 0)
			} else {
				want = bruteMode(steps, seq, pats, mode)
			}
			if o.Pass != want || o.Pass != (o.Failed == nil) {
				report("%s: %s: pass %v, brute force %v (%s)", desc(), mode, o.Pass, want, o.Explanation)
				continue
			}
			if mode == "strict" && !want {
				L := 0
				for L < len(seq) && bruteViable(steps, seq, pats, 0, 0, L+1) {
					L++
				}
				if got := position(steps, seq, o.Failed); got != L {
					report("%s: strict departs at %d, brute force %d (%s)", desc(), got, L, o.Explanation)
				}
			}
		}
		for _, order := range []string{"ordered", "unordered"} {
			u := r.IntN(3)
			o, err := compileJSON(t, map[string]any{"check": "trajectory_alignment", "order": order, "threshold": 1, "unexpected_cost": u, "reference": ref}).Eval(ctx, root)
			if err != nil {
				t.Fatal(err)
			}
			cost := bruteAlign(steps, seq, pats, order == "ordered", u)
			worst := u * len(seq)
			for _, p := range pats {
				worst += p.cost * p.min
			}
			want := 1.0
			if worst > 0 {
				want = 1 - float64(cost)/float64(worst)
			}
			if o.Score != want {
				report("%s: %s alignment (u %d) score %v, brute force %v (cost %d of %d) (%s)", desc(), order, u, o.Score, want, cost, worst, o.Explanation)
			}
			if msg := checkEvents(t, root, ref, pats, steps, seq, order == "ordered", u, cost); msg != "" {
				report("%s: %s alignment (u %d): %s", desc(), order, u, msg)
			}
			if o.Pass != (want == 1) || o.Pass != (o.Failed == nil) {
				report("%s: %s alignment pass %v with score %v, failed %+v", desc(), order, o.Pass, o.Score, o.Failed)
			}
		}
		// One constraint of each rule, on patterns drawn afresh (no counts).
		for _, rule := range rules {
			a, b, c := genPat(r), genPat(r), genPat(r)
			k := map[string]any{"rule": rule, "a": a.spec(false)}
			used := []gPat{a}
			nMax := r.IntN(3)
			switch rule {
			case "before", "never_after", "immediately_after":
				k["b"] = b.spec(false)
				used = append(used, b)
			case "between":
				k["b"], k["c"] = b.spec(false), c.spec(false)
				used = append(used, b, c)
			case "at_most":
				k["n"] = nMax
			}
			o, err := compileJSON(t, map[string]any{"check": "temporal", "constraints": []any{k}}).Eval(ctx, root)
			if err != nil {
				t.Fatal(err)
			}
			cseq := bruteSeq(steps, used)
			want := bruteTemporal(steps, cseq, rule, nMax, a, b, c)
			if got := position(steps, cseq, o.Failed); got != want || o.Pass != (want < 0) {
				report("%s: %s(a %+v, b %+v, c %+v, n %d): pass %v at %d, brute force %d (%s)", desc(), rule, a, b, c, nMax, o.Pass, got, want, o.Explanation)
			}
		}
		// tool_args: every step bearing the tool's name (and its type, when
		// the pattern gives one) matches, and there is one.
		p := genPat(r)
		if p.tool == "" {
			p.tool = "a"
		}
		if p.matcher == "" {
			p.matcher = "any"
		}
		spec := p.spec(false)
		spec["check"] = "tool_args"
		o, err := compileJSON(t, spec).Eval(ctx, root)
		if err != nil {
			t.Fatal(err)
		}
		want, at, calls := true, -1, 0
		for i, s := range steps {
			if s.name != p.tool || p.typ != "" && s.typ != p.typ {
				continue
			}
			calls++
			if !p.match(s) {
				want, at = false, i
				break
			}
		}
		if calls == 0 {
			want = false
		}
		if o.Pass != want || !want && at >= 0 && (o.Failed == nil || o.Failed.Step != at) {
			report("%s: tool_args %+v: pass %v (%+v), brute force %v at %d", desc(), p, o.Pass, o.Failed, want, at)
		}
	}
	if disagree > 0 {
		t.Fatalf("%d disagreements with brute force in %d pairs (seed %d)", disagree, pairs, seed)
	}
	t.Logf("%d pairs (seed %d): 0 disagreements", pairs, seed)
}

// checkEvents checks the alignment itself, not only its cost: every matched
// step matches its pattern, ordered alignments keep pattern order, loads stay
// within max, the missing counts are min − load, and the events add up to
// the brute-force optimum.
func checkEvents(t *testing.T, root tape.Value, ref []any, pats []gPat, steps []gStep, seq []int, ordered bool, u, want int) string {
	c := compileJSON(t, map[string]any{"check": "trajectory_alignment", "threshold": 1, "reference": ref})
	r := newRun(root, c.c)
	all := r.steps(false)
	masks, err := matchMasks(context.Background(), all, sequence(all, c.c.names, c.c.types), c.pats, &r.env)
	if err != nil {
		t.Fatal(err)
	}
	var al alignment
	if ordered {
		al, err = alignOrdered(context.Background(), c.pats, masks, float64(u))
	} else {
		_, al, err = alignUnordered(context.Background(), c.pats, masks, float64(u), true, true)
	}
	if err != nil {
		t.Fatal(err)
	}
	load := make([]int, len(pats))
	last, cost, seen := 0, 0, map[int]bool{}
	for _, ev := range al.events {
		switch {
		case ev.missing > 0:
			cost += pats[ev.p].cost * ev.missing
		case ev.p < 0:
			cost += u
			seen[ev.at] = true
		default:
			if !pats[ev.p].match(steps[seq[ev.at]]) {
				return fmt.Sprintf("step %d matched to pattern %d, which it does not match", ev.at, ev.p)
			}
			if ordered && ev.p < last {
				return fmt.Sprintf("pattern %d after pattern %d", ev.p, last)
			}
			last = ev.p
			load[ev.p]++
			seen[ev.at] = true
		}
	}
	for i, p := range pats {
		if p.max >= 0 && load[i] > p.max {
			return fmt.Sprintf("pattern %d holds %d steps, max %d", i, load[i], p.max)
		}
	}
	for i, p := range pats {
		miss := 0
		for _, ev := range al.events {
			if ev.missing > 0 && ev.p == i {
				miss += ev.missing
			}
		}
		if miss != max(p.min-load[i], 0) {
			return fmt.Sprintf("pattern %d: %d missing, but load %d of min %d", i, miss, load[i], p.min)
		}
	}
	if len(seen) != len(seq) {
		return fmt.Sprintf("%d of %d steps accounted for", len(seen), len(seq))
	}
	if cost != want || float64(cost) != al.cost {
		return fmt.Sprintf("events cost %d (alignment says %v), optimum %d", cost, al.cost, want)
	}
	return ""
}
