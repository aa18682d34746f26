// check.go: the four check kinds: compiling a spec, evaluating it on a trace, and explaining the outcome.

package trajectory

import (
	"context"
	"fmt"
	"strconv"
	"strings"

	"attest-engine/clip"
	"attest-engine/tape"
)

// Kinds are the trace check names this package evaluates; the engine
// advertises them with the capability "trajectory".
var Kinds = []string{"tool_args", "trajectory_match", "trajectory_alignment", "temporal"}

// IsKind reports whether check names one of Kinds.
func IsKind(check string) bool {
	for _, k := range Kinds {
		if k == check {
			return true
		}
	}
	return false
}

// Check is a compiled check. It is immutable and safe for concurrent use.
type Check struct {
	kind       string
	tree       bool
	pats       []*Pattern // the reference, or tool_args' one pattern
	mode       string     // trajectory_match: strict, unordered, subset, superset
	order      string     // trajectory_alignment: ordered, unordered
	threshold  float64
	unexpected float64
	cons       []*constraint
	c          *compiler
}

// Outcome is what a check decides. Failed is set on every failure.
type Outcome struct {
	Pass        bool
	Score       float64
	Explanation string
	Failed      *Failure
}

// Compile reads the spec of a check of Kinds (its "check" member names
// which), or returns a *SpecError.
func Compile(spec map[string]any, opts *Options) (*Check, error) {
	o := obj{m: spec}
	kind, err := o.str("check", true)
	if err != nil {
		return nil, err
	}
	c := &Check{kind: kind, c: newCompiler(opts)}
	if !IsKind(kind) {
		return nil, specErrorf("Use one of "+quoteList(Kinds)+".", "unknown trace check '%s'", kind)
	}
	if c.tree, err = readScope(o, false); err != nil {
		return nil, err
	}
	switch kind {
	case "tool_args":
		if !o.has("tool") {
			return nil, o.missing("tool")
		}
		if !o.has("args") && !o.has("result") {
			return nil, specErrorf("tool_args checks the args (or result) of every call of tool: give 'args' or 'result'.", "missing required spec field 'args'")
		}
		p, err := c.c.pattern(toolArgsPattern(spec), "", false)
		if err != nil {
			return nil, err
		}
		c.pats = []*Pattern{p}
	case "trajectory_match", "trajectory_alignment":
		if err := c.reference(o); err != nil {
			return nil, err
		}
		if kind == "trajectory_match" {
			c.mode, err = o.oneOf("mode", "strict", "strict", "unordered", "subset", "superset")
		} else {
			if c.order, err = o.oneOf("order", "ordered", "ordered", "unordered"); err != nil {
				return nil, err
			}
			if !o.has("threshold") {
				return nil, o.missing("threshold")
			}
			if c.threshold, err = o.number("threshold", 0, 0, 1); err != nil {
				return nil, err
			}
			c.unexpected, err = o.number("unexpected_cost", 1, 0, 1e6)
		}
		if err != nil {
			return nil, err
		}
	case "temporal":
		list, err := o.list("constraints", MaxPatterns)
		if err != nil {
			return nil, err
		}
		for i, v := range list {
			k, err := c.c.constraint(v, fmt.Sprintf("constraints[%d]", i), c.tree)
			if err != nil {
				return nil, err
			}
			c.cons = append(c.cons, k)
		}
	}
	return c, nil
}

// toolArgsPattern is the pattern part of a tool_args spec.
func toolArgsPattern(spec map[string]any) map[string]any {
	p := map[string]any{}
	for _, f := range []string{"tool", "type", "args", "result"} {
		if v, ok := spec[f]; ok {
			p[f] = v
		}
	}
	return p
}

// readScope reads scope: "trace" (the trace's own steps, as the spec's
// checks read them) or "tree" (the trace and its sub-traces, spec §3.3);
// def when absent.
func readScope(o obj, def bool) (bool, error) {
	d := "trace"
	if def {
		d = "tree"
	}
	s, err := o.oneOf("scope", d, "trace", "tree")
	return s == "tree", err
}

func (c *Check) reference(o obj) error {
	list, err := o.list("reference", MaxPatterns)
	if err != nil {
		return err
	}
	for i, v := range list {
		p, err := c.c.pattern(v, fmt.Sprintf("reference[%d]", i), true)
		if err != nil {
			return err
		}
		c.pats = append(c.pats, p)
	}
	if n := stateCount(c.pats); n > MaxStates {
		return specErrorf(fmt.Sprintf("Lower the counts: a reference's patterns together allow at most %d (the sum over patterns of max+1, or min+1 when max is unbounded).", MaxStates),
			"reference too large: its counts sum to %d states, more than %d", n, MaxStates)
	}
	return nil
}

// Eval evaluates the check on a trace, read in place. Its only error is
// the context's, when the deadline passes during a long evaluation.
func (c *Check) Eval(ctx context.Context, trace tape.Value) (Outcome, error) {
	r := newRun(trace, c.c)
	switch c.kind {
	case "tool_args":
		return c.toolArgs(ctx, r)
	case "temporal":
		return c.temporal(ctx, r)
	}
	all := r.steps(c.tree)
	seq := sequence(all, c.c.names, c.c.types)
	masks, err := matchMasks(ctx, all, seq, c.pats, &r.env)
	if err != nil {
		return Outcome{}, err
	}
	if c.kind == "trajectory_match" && c.mode == "strict" {
		res, err := matchStrict(ctx, c.pats, masks)
		if err != nil {
			return Outcome{}, err
		}
		return c.strict(r, all, seq, masks, res), nil
	}
	var al alignment
	if c.kind == "trajectory_alignment" && c.order == "ordered" {
		al, err = alignOrdered(ctx, c.pats, masks, c.unexpected)
	} else {
		fill, place := true, true
		switch c.mode {
		case "subset":
			fill = false
		case "superset":
			place = false
		}
		u := c.unexpected
		if c.kind == "trajectory_match" {
			u = 1
		}
		_, al, err = alignUnordered(ctx, c.pats, masks, u, fill, place)
	}
	if err != nil {
		return Outcome{}, err
	}
	return c.explainAlignment(r, all, seq, al), nil
}

// toolArgs: every call of the tool matches, and there is at least one.
func (c *Check) toolArgs(ctx context.Context, r *run) (Outcome, error) {
	p := c.pats[0]
	all := r.steps(c.tree)
	var at []string
	for i := range all {
		if i%ctxEvery == ctxEvery-1 {
			if err := ctx.Err(); err != nil {
				return Outcome{}, err
			}
		}
		s := &all[i]
		if s.name != p.Tool || p.Type != "" && s.typ != p.Type {
			continue // with a type, another step of the same name is another thing
		}
		if why := p.why(s, &r.env); why != "" {
			f := r.failAt(s, why)
			prior := ""
			if len(at) > 0 {
				prior = fmt.Sprintf(" (%d earlier %s matched: %s)", len(at), plural(len(at), "call", "calls"), strings.Join(at, ", "))
			}
			return Outcome{Explanation: fmt.Sprintf("Call of %s at %s does not match: %s%s.", p.label(), r.describe(s), why, prior), Failed: f}, nil
		}
		at = appendCapped(at, r.describe(s), len(at))
	}
	if len(at) == 0 {
		what := "'" + p.Tool + "'"
		if p.Type != "" {
			what += " (" + p.Type + ")"
		}
		f := r.failEnd(what + " was never called")
		return Outcome{Explanation: fmt.Sprintf("Tool %s was never called, so its arguments could not be checked.", what), Failed: f}, nil
	}
	if len(at) == 1 {
		return Outcome{Pass: true, Score: 1, Explanation: fmt.Sprintf("The one call of %s matches: %s.", p.label(), at[0])}, nil
	}
	return Outcome{Pass: true, Score: 1, Explanation: fmt.Sprintf("All %d calls of %s match: %s.", len(at), p.label(), strings.Join(at, ", "))}, nil
}

func (c *Check) strict(r *run, all []step, seq []int, masks []uint64, res strictResult) Outcome {
	if res.pass {
		return Outcome{Pass: true, Score: 1, Explanation: fmt.Sprintf("Trajectory matches the reference (strict, %d %s) at %s.",
			len(c.pats), plural(len(c.pats), "pattern", "patterns"), stepList(r, all, seq))}
	}
	var f *Failure
	if res.at < len(seq) {
		s := &all[seq[res.at]]
		reason := ""
		for _, i := range res.expected {
			p := c.pats[i]
			if p.Tool == s.name && (p.Type == "" || p.Type == s.typ) {
				reason = fmt.Sprintf("%s (reference pattern %d %s)", p.why(s, &r.env), i+1, p.label())
				break
			}
		}
		for _, i := range res.full {
			if reason == "" && masks[res.at]&(1<<uint(i)) != 0 {
				p := c.pats[i]
				reason = fmt.Sprintf("one too many: reference pattern %d %s allows at most %d", i+1, p.label(), p.Max)
				if len(res.expected) > 0 {
					reason += "; the reference expects " + patternList(c.pats, res.expected, " or ") + " here"
				}
			}
		}
		if reason == "" {
			if len(res.expected) == 0 {
				reason = "unexpected: the reference is complete before it"
			} else {
				reason = "not expected here: the reference expects " + patternList(c.pats, res.expected, " or ")
			}
		}
		f = r.failAt(s, reason)
	} else {
		p := c.pats[res.missing]
		f = r.failEnd(fmt.Sprintf("%s (pattern %d) occurred %d %s, at least %d required", p.label(), res.missing+1, res.count, plural(res.count, "time", "times"), p.Min))
	}
	return Outcome{Explanation: fmt.Sprintf("Trajectory does not match the reference (strict, %d %s): departs at %s. Steps read: %s.",
		len(c.pats), plural(len(c.pats), "pattern", "patterns"), f, stepList(r, all, seq)), Failed: f}
}

// explainAlignment turns an alignment into the outcome of
// trajectory_alignment, or of an order-free trajectory_match mode. The
// departure named is the earliest step that costs: an unexpected step, or
// where a missing pattern was due (its near miss when a step bears its
// name, else where the alignment closed it: the end, for an order-free one).
func (c *Check) explainAlignment(r *run, all []step, seq []int, al alignment) Outcome {
	var unexpected, missing []string
	matched, nUnexp, nMiss := 0, 0, 0
	departAt, departWhy := len(seq)+1, ""
	for _, ev := range al.events {
		switch {
		case ev.missing > 0:
			p := c.pats[ev.p]
			if !c.countsMissing(p) {
				continue
			}
			nMiss += ev.missing
			missing = appendCapped(missing, fmt.Sprintf("%s (pattern %d) ×%d", p.label(), ev.p+1, ev.missing), len(missing))
			at, why := nearMiss(all, seq, p, &r.env, 0)
			if at < 0 {
				at = ev.at
				why = fmt.Sprintf("expected %s (pattern %d): %d of %d required %s missing", p.label(), ev.p+1, ev.missing, p.Min, plural(p.Min, "occurrence", "occurrences"))
			} else {
				why = fmt.Sprintf("%s (reference pattern %d %s)", why, ev.p+1, p.label())
			}
			if at < departAt {
				departAt, departWhy = at, why
			}
		case ev.p < 0:
			if !c.countsUnexpected() {
				continue
			}
			nUnexp++
			unexpected = appendCapped(unexpected, r.describe(&all[seq[ev.at]]), len(unexpected))
			if ev.at < departAt {
				departAt, departWhy = ev.at, ""
			}
		default:
			matched++
		}
	}
	var f *Failure
	switch {
	case departAt > len(seq):
	case departAt == len(seq):
		f = r.failEnd(departWhy)
	default:
		s := &all[seq[departAt]]
		if departWhy == "" {
			departWhy = c.unexpectedWhy(r, s)
		}
		f = r.failAt(s, departWhy)
	}
	summary := fmt.Sprintf("%d of %d %s matched", matched, len(seq), plural(len(seq), "step", "steps"))
	if nMiss > 0 {
		summary += fmt.Sprintf("; missing %d: %s", nMiss, strings.Join(missing, ", "))
	}
	if nUnexp > 0 {
		summary += fmt.Sprintf("; unexpected %d: %s", nUnexp, strings.Join(unexpected, ", "))
	}
	patterns := fmt.Sprintf("%d %s", len(c.pats), plural(len(c.pats), "pattern", "patterns"))
	if c.kind == "trajectory_alignment" {
		sc := score(al.cost, maxCost(c.pats, len(seq), c.unexpected))
		o := Outcome{Score: sc, Pass: sc >= c.threshold}
		verdict := "≥"
		if !o.Pass {
			verdict = "<"
		}
		o.Explanation = fmt.Sprintf("Alignment score %s %s threshold %s (%s, %s): %s.", fmtScore(sc), verdict, fmtNum(c.threshold), c.order, patterns, summary)
		if !o.Pass {
			if f == nil { // not reached: a score below the threshold has a cost, so a departure
				f = r.failEnd("the alignment has a cost")
			}
			o.Failed = f
			o.Explanation += " Departs at " + f.String() + "."
		}
		return o
	}
	if f == nil {
		return Outcome{Pass: true, Score: 1, Explanation: fmt.Sprintf("Trajectory matches the reference (%s, %s): %s.", c.mode, patterns, summary)}
	}
	return Outcome{Failed: f, Explanation: fmt.Sprintf("Trajectory does not match the reference (%s, %s): departs at %s. %s.", c.mode, patterns, f, upperFirst(summary))}
}

// countsMissing: a missing occurrence costs, except in subset mode (the
// reference may be used in part) and for an alignment pattern of cost 0.
func (c *Check) countsMissing(p *Pattern) bool {
	if c.kind == "trajectory_alignment" {
		return p.Cost > 0
	}
	return c.mode != "subset"
}

// countsUnexpected: in superset mode extra steps are allowed.
func (c *Check) countsUnexpected() bool {
	if c.kind == "trajectory_alignment" {
		return c.unexpected > 0
	}
	return c.mode != "superset"
}

// unexpectedWhy says why a step was left unmatched: the pattern bearing
// its name rejects it, or that pattern has all the occurrences it allows,
// or no pattern names it.
func (c *Check) unexpectedWhy(r *run, s *step) string {
	for i, p := range c.pats {
		if p.Tool != s.name {
			continue
		}
		if why := p.why(s, &r.env); why != "" {
			return fmt.Sprintf("%s (reference pattern %d %s)", why, i+1, p.label())
		}
		if p.Max != Unbounded {
			return fmt.Sprintf("one call too many: reference pattern %d %s allows at most %d", i+1, p.label(), p.Max)
		}
		return fmt.Sprintf("matches reference pattern %d %s, but not in its place in the reference", i+1, p.label())
	}
	if c.order == "ordered" {
		return "not in the reference here"
	}
	return "no pattern of the reference names it"
}

func (c *Check) temporal(ctx context.Context, r *run) (Outcome, error) {
	var vs []*violation
	for _, k := range c.cons {
		v, err := k.eval(ctx, r)
		if err != nil {
			return Outcome{}, err
		}
		if v != nil {
			vs = append(vs, v)
		}
	}
	if len(vs) == 0 {
		names := make([]string, 0, len(c.cons))
		for i, k := range c.cons {
			names = appendCapped(names, k.String(), i)
		}
		if len(c.cons) == 1 {
			return Outcome{Pass: true, Score: 1, Explanation: fmt.Sprintf("The temporal constraint holds: %s.", names[0])}, nil
		}
		return Outcome{Pass: true, Score: 1, Explanation: fmt.Sprintf("All %d temporal constraints hold: %s.", len(c.cons), strings.Join(names, "; "))}, nil
	}
	// The failure named is the earliest step, in execution order, at which a
	// constraint breaks (ties: the first constraint listed).
	first := vs[0]
	if len(vs) > 1 {
		order := map[[2]int]int{}
		for i, s := range r.steps(true) {
			order[[2]int{s.trace, s.index}] = i
		}
		rank := func(v *violation) int {
			if v.step == nil {
				return 1 << 30
			}
			// A step of the trace's own steps is found in the tree by its
			// index; traces are collected in the same order both ways.
			return order[[2]int{v.step.trace, v.step.index}]
		}
		for _, v := range vs[1:] {
			if rank(v) < rank(first) {
				first = v
			}
		}
	}
	var parts []string
	for i, v := range vs {
		at := "at the end of the trace:"
		if v.step != nil {
			at = r.describe(v.step)
		}
		parts = appendCapped(parts, fmt.Sprintf("%s: %s %s", v.k, at, v.reason), i)
	}
	var f *Failure
	if first.step != nil {
		f = r.failAt(first.step, first.reason)
	} else {
		f = r.failEnd(first.reason)
	}
	head := "Temporal constraint violated"
	if len(c.cons) > 1 {
		head = fmt.Sprintf("%d of %d temporal constraints violated", len(vs), len(c.cons))
	}
	return Outcome{Failed: f, Explanation: head + ": " + strings.Join(parts, "; ") + "."}, nil
}

// maxListed caps the entries of a list in an explanation.
const maxListed = 10

// appendCapped appends s while the list (of n entries so far) is short,
// then one "…" entry.
func appendCapped(l []string, s string, n int) []string {
	switch {
	case n < maxListed:
		return append(l, s)
	case n == maxListed:
		return append(l, "…")
	}
	return l
}

// stepList names the steps read: ['a', 'b'] at steps [1, 2].
func stepList(r *run, all []step, seq []int) string {
	if len(seq) == 0 {
		return "no steps"
	}
	var names, idx []string
	for k, i := range seq {
		if k == 20 {
			names, idx = append(names, "…"), append(idx, fmt.Sprintf("… %d more", len(seq)-20))
			break
		}
		s := &all[i]
		names = append(names, "'"+clip.String(s.name, 80)+"'")
		loc := strconv.Itoa(s.index)
		if s.trace != 0 {
			loc = r.traces[s.trace].prefix + "steps[" + loc + "]"
		}
		idx = append(idx, loc)
	}
	return "[" + strings.Join(names, ", ") + "] at steps [" + strings.Join(idx, ", ") + "]"
}

func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}

// fmtScore prints a score as the spec's examples do (0.91, 1.0), to 4 decimals at most.
func fmtScore(f float64) string {
	s := strconv.FormatFloat(f, 'f', 4, 64)
	s = strings.TrimRight(strings.TrimRight(s, "0"), ".")
	if !strings.Contains(s, ".") {
		s += ".0"
	}
	return s
}

func upperFirst(s string) string {
	if s == "" {
		return s
	}
	return strings.ToUpper(s[:1]) + s[1:]
}
