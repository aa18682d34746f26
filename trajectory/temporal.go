// temporal.go: temporal constraints over step patterns: a small fixed vocabulary, each checked in one pass.

package trajectory

import (
	"context"
	"fmt"
	"strings"
)

// Rules of the temporal check. In each, the B (or C) steps are the ones
// constrained; a constraint that finds none of them holds.
var rules = []string{"before", "never_after", "immediately_after", "at_most", "between", "eventually"}

// constraint is one compiled temporal constraint.
type constraint struct {
	rule    string
	a, b, c *Pattern
	n       int // at_most
	tree    bool
	names   map[string]bool
	types   map[string]bool
}

func (k *constraint) String() string {
	switch k.rule {
	case "at_most":
		return fmt.Sprintf("at_most(%d, %s)", k.n, k.a.label())
	case "eventually":
		return fmt.Sprintf("eventually(%s)", k.a.label())
	case "between":
		return fmt.Sprintf("between(%s, %s, %s)", k.a.label(), k.b.label(), k.c.label())
	}
	return fmt.Sprintf("%s(%s, %s)", k.rule, k.a.label(), k.b.label())
}

// compileConstraint reads {rule, a, b?, c?, n?, scope?}.
func (c *compiler) constraint(v any, at string, scope bool) (*constraint, error) {
	m, ok := v.(map[string]any)
	if !ok {
		return nil, specErrorf(fmt.Sprintf("Write '%s' as {\"rule\": \"before\", \"a\": \"lookup_order\", \"b\": \"process_refund\"}.", at),
			"spec field '%s' must be an object, got %s", at, kindOf(v))
	}
	o := obj{at: at, m: m}
	k := &constraint{}
	var err error
	if k.rule, err = o.str("rule", true); err != nil {
		return nil, err
	}
	if k.rule, err = o.oneOf("rule", "", rules...); err != nil {
		return nil, err
	}
	if k.tree, err = readScope(o, scope); err != nil {
		return nil, err
	}
	// Each constraint reads the tool calls plus the steps its own patterns
	// name, so that another constraint's names do not change what
	// "immediately" means here.
	sub := &compiler{opts: c.opts, refs: c.refs, refAt: c.refAt, names: map[string]bool{}, types: map[string]bool{}}
	need := map[string]bool{"a": true}
	switch k.rule {
	case "before", "never_after", "immediately_after":
		need["b"] = true
	case "between":
		need["b"], need["c"] = true, true
	case "at_most":
		if !o.has("n") {
			return nil, o.missing("n")
		}
		n, err := o.integer("n", 0, 0, 10000)
		if err != nil {
			return nil, err
		}
		k.n = int(n)
	}
	for _, f := range []string{"a", "b", "c"} {
		if !need[f] {
			if o.has(f) {
				return nil, specErrorf(fmt.Sprintf("Rule %s takes %s.", k.rule, ruleArgs(k.rule)), "spec field '%s' is not used by rule '%s'", o.name(f), k.rule)
			}
			continue
		}
		if !o.has(f) {
			return nil, o.missing(f)
		}
		p, err := sub.pattern(m[f], o.name(f), false)
		if err != nil {
			return nil, err
		}
		switch f {
		case "a":
			k.a = p
		case "b":
			k.b = p
		case "c":
			k.c = p
		}
	}
	c.refs, c.refAt = sub.refs, sub.refAt
	k.names, k.types = sub.names, sub.types
	for n := range sub.names {
		c.names[n] = true
	}
	return k, nil
}

func ruleArgs(rule string) string {
	switch rule {
	case "at_most":
		return "n and a"
	case "eventually":
		return "a"
	case "between":
		return "a, b and c"
	}
	return "a and b"
}

// violation is where a constraint fails: a position in its sequence
// (len(seq): at the end) and why.
type violation struct {
	k      *constraint
	at     int
	step   *step
	reason string
}

// eval checks one constraint in one pass over its sequence: O(n) pattern
// tests of each of its (at most three) patterns, O(n) memory.
func (k *constraint) eval(ctx context.Context, r *run) (*violation, error) {
	all := r.steps(k.tree)
	seq := sequence(all, k.names, k.types)
	var pats []*Pattern
	for _, p := range []*Pattern{k.a, k.b, k.c} {
		if p != nil {
			pats = append(pats, p)
		}
	}
	masks, err := matchMasks(ctx, all, seq, pats, &r.env)
	if err != nil {
		return nil, err
	}
	is := func(j, which int) bool { return masks[j]&(1<<uint(which)) != 0 }
	fail := func(j int, reason string) *violation {
		v := &violation{k: k, at: j, reason: reason}
		if j < len(seq) {
			v.step = &all[seq[j]]
		}
		return v
	}
	name := func(j int) string { return r.describe(&all[seq[j]]) }
	switch k.rule {
	case "before": // every B has an A earlier
		for j := range seq {
			if is(j, 0) && !is(j, 1) {
				return nil, nil // an A before every B still to come
			}
			if is(j, 1) {
				why := fmt.Sprintf("matches %s with no %s before it", k.b.label(), k.a.label())
				if nm, w := nearMiss(all, seq[:j], k.a, &r.env, 0); nm >= 0 {
					why += fmt.Sprintf(" (%s bears its name but %s)", name(nm), w)
				}
				return fail(j, why), nil
			}
		}
	case "never_after": // no B after an A
		firstA := -1
		for j := range seq {
			if firstA >= 0 && is(j, 1) {
				return fail(j, fmt.Sprintf("matches %s after %s at %s", k.b.label(), k.a.label(), name(firstA))), nil
			}
			if firstA < 0 && is(j, 0) {
				firstA = j
			}
		}
	case "immediately_after": // every B right after an A
		for j := range seq {
			if !is(j, 1) || j > 0 && is(j-1, 0) {
				continue
			}
			if j == 0 {
				return fail(j, fmt.Sprintf("matches %s but is the first step read, not right after %s", k.b.label(), k.a.label())), nil
			}
			return fail(j, fmt.Sprintf("matches %s but the step before it, %s, does not match %s", k.b.label(), name(j-1), k.a.label())), nil
		}
	case "at_most":
		count := 0
		var first []string
		for j := range seq {
			if !is(j, 0) {
				continue
			}
			count++
			if count > k.n {
				earlier := ""
				if len(first) > 0 {
					earlier = " (earlier: " + strings.Join(first, ", ") + ")"
				}
				return fail(j, fmt.Sprintf("is occurrence %d of %s, more than %d%s", count, k.a.label(), k.n, earlier)), nil
			}
			if len(first) < 5 {
				first = append(first, fmt.Sprintf("step %d", all[seq[j]].index))
			}
		}
	case "between": // every C inside a window opened by an A and closed by the next B
		lastB := -1
		for j := range seq {
			if is(j, 1) {
				lastB = j
			}
		}
		open := false
		for j := range seq {
			if is(j, 2) {
				switch {
				case !open:
					return fail(j, fmt.Sprintf("matches %s outside any %s … %s window: no %s since the last %s", k.c.label(), k.a.label(), k.b.label(), k.a.label(), k.b.label())), nil
				case lastB <= j:
					return fail(j, fmt.Sprintf("matches %s after %s but no %s closes the window after it", k.c.label(), k.a.label(), k.b.label())), nil
				}
			}
			if is(j, 0) {
				open = true
			} else if is(j, 1) {
				open = false
			}
		}
	case "eventually":
		for j := range seq {
			if is(j, 0) {
				return nil, nil
			}
		}
		if nm, w := nearMiss(all, seq, k.a, &r.env, 0); nm >= 0 {
			return fail(nm, fmt.Sprintf("is the nearest to %s, which no step matches: %s", k.a.label(), w)), nil
		}
		return fail(len(seq), fmt.Sprintf("no step matches %s", k.a.label())), nil
	}
	return nil, nil
}
