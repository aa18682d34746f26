// constraint.go: layer 2, exact numeric comparisons on one number of the trace (spec §4).

package assert

import (
	"context"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"sync"

	"attest-engine/clip"
	"attest-engine/jsonschema"
	"attest-engine/tape"
	"attest-engine/trace"
)

// constraintCheck compares the one number its field selects with a bound
// (or two, for between), exactly, with the JSON Schema validator's number
// arithmetic (jsonschema.CompareNumbers).
type constraintCheck struct {
	field    target
	op       string
	value    any    // lt lte gt gte eq: a JSON number
	min, max any    // between
	text     string // "lte 0.01" or "between 100 and 2000", for explanations
}

// Spec §4 Layer 2, "Operators".
var constraintOps = map[string]bool{"lt": true, "lte": true, "gt": true, "gte": true, "eq": true, "between": true}

// compileConstraint reads spec §4 Layer 2: field, operator, value (all but
// between), min and max (between, inclusive), soft (read by the engine).
func compileConstraint(_ *Engine, s spec) (check, error) {
	f, err := parseTarget(s, "field")
	if err != nil {
		return nil, err
	}
	op, err := s.str("operator", true)
	if err != nil {
		return nil, err
	}
	if !constraintOps[op] {
		return nil, specErrorf("Use one of the operators lt, lte, gt, gte, eq, between (spec §4 Layer 2).", "unknown constraint operator '%s'", op)
	}
	c := &constraintCheck{field: f, op: op}
	if op != "between" {
		var vt string
		if c.value, vt, err = specNumber(s, "value", "'value' is required for operator '"+op+"'."); err != nil {
			return nil, err
		}
		c.text = op + " " + vt
		return c, nil
	}
	var lo, hi string
	if c.min, lo, err = specNumber(s, "min", "'min' and 'max' are required for operator 'between'."); err != nil {
		return nil, err
	}
	if c.max, hi, err = specNumber(s, "max", "'min' and 'max' are required for operator 'between'."); err != nil {
		return nil, err
	}
	if cmp, _ := jsonschema.CompareNumbers(c.min, c.max); cmp > 0 {
		return nil, specErrorf("Swap the bounds: 'between' needs min <= max (both inclusive).", "constraint min %s is greater than max %s", lo, hi)
	}
	c.text = fmt.Sprintf("between %s and %s", lo, hi)
	return c, nil
}

// specNumber reads a required numeric spec field exactly, with its text.
func specNumber(s spec, name, detail string) (any, string, error) {
	v, ok := s[name]
	if !ok || v == nil {
		return nil, "", specErrorf(detail, "missing required spec field '%s'", name)
	}
	txt, ok := numberText(v)
	if _, valid := jsonschema.CompareNumbers(v, v); !ok || !valid {
		return nil, "", s.wrongType(name, "a number")
	}
	return v, txt, nil
}

func (c *constraintCheck) eval(_ context.Context, in *input) (outcome, error) {
	var room matchRoom
	ms := c.field.resolve(in, room[:])
	if len(ms) == 0 && !in.steps.Exists() && c.countsSteps() {
		// Spec §3.2: steps may be absent; a trace without steps has none.
		ms = c.field.path.SelectValue(noSteps().Root())
	}
	name := c.field.expr
	switch {
	case len(ms) == 0:
		return outcome{explanation: fmt.Sprintf("%s not found in trace: constraint %s cannot be satisfied.", name, c.text)}, nil
	case len(ms) > 1:
		// A number is needed, not a set: never silently take the first.
		return outcome{explanation: fmt.Sprintf("%s matches %d values (%s), not one number: constraint %s cannot be checked. Narrow the path or count with .length.", name, len(ms), locList(ms), c.text)}, nil
	}
	v := ms[0].Any()
	txt, isNum := numberText(v)
	if _, ok := jsonschema.CompareNumbers(v, v); !isNum || !ok {
		return outcome{explanation: fmt.Sprintf("%s is %s, not a number: constraint %s cannot be satisfied.", name, describeValue(v), c.text)}, nil
	}
	cmp := func(bound any) int { c, _ := jsonschema.CompareNumbers(v, bound); return c }
	var pass bool
	if c.op == "between" {
		pass = cmp(c.min) >= 0 && cmp(c.max) <= 0
	} else {
		pass = holds(c.op, cmp(c.value))
	}
	verdict := "violated"
	if pass {
		verdict = "satisfied"
	}
	// Concatenated, not Sprintf'd: one allocation, on every batch.
	o := outcome{pass: pass, explanation: name + " = " + txt + ", constraint " + c.text + " " + verdict + "."}
	if pass {
		o.score = 1
	}
	return o, nil
}

// holds reports whether a comparison that came out cmp (negative, zero or
// positive) satisfies op, one of spec §4 Layer 2's operators but between.
// trace_tree's aggregate checks compare with it too.
func holds(op string, cmp int) bool {
	switch op {
	case "lt":
		return cmp < 0
	case "lte":
		return cmp <= 0
	case "gt":
		return cmp > 0
	case "gte":
		return cmp >= 0
	case "eq":
		return cmp == 0
	}
	return false
}

// countsSteps reports whether the field is a count over the steps array
// (steps.length, steps[?type=='tool_call'].length).
func (c *constraintCheck) countsSteps() bool {
	s := c.field.path.String()
	return strings.HasPrefix(s, "steps") && strings.HasSuffix(s, ".length") && strings.Count(s, ".length") == 1
}

// describeValue names a non-number for an explanation: a string "abc", null.
func describeValue(v any) string {
	switch v.(type) {
	case nil:
		return "null"
	case string:
		q, _ := json.Marshal(clip.String(v.(string), 60))
		return "the string " + string(q)
	case bool:
		return "the boolean " + jsonText(v)
	case []any:
		return "an array"
	case map[string]any:
		return "an object"
	}
	return trace.Kind(v)
}

// numberText returns the JSON text of a number of the value model.
func numberText(v any) (string, bool) {
	switch n := v.(type) {
	case json.Number:
		return string(n), true
	case float64:
		return strconv.FormatFloat(n, 'g', -1, 64), true
	case int:
		return strconv.Itoa(n), true
	case int64:
		return strconv.FormatInt(n, 10), true
	}
	return "", false
}

// noSteps is a trace with no steps, for paths that count them (spec §3.2:
// steps may be absent).
var noSteps = sync.OnceValue(func() *tape.Doc {
	d, err := tape.Parse([]byte(`{"steps":[]}`))
	if err != nil {
		panic(err)
	}
	return d
})
