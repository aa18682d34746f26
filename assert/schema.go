// schema.go: layer 1, schema validation of a trace value against JSON Schema 2020-12 (spec §4).

package assert

import (
	"context"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"

	"attest-engine/clip"
	"attest-engine/jsonpath"
	"attest-engine/jsonschema"
)

// schemaCheck validates every value its target selects against one schema,
// compiled once (the engine's compile cache keeps the check).
type schemaCheck struct {
	target target
	schema *jsonschema.Schema
}

// compileSchema reads spec §4 Layer 1: target (JSONPath) and schema (a JSON
// Schema Draft 2020-12 document; a boolean schema is one too).
func compileSchema(e *Engine, s spec) (check, error) {
	t, err := parseTarget(s, "target")
	if err != nil {
		return nil, err
	}
	raw, ok := s["schema"]
	if !ok || raw == nil {
		return nil, s.missing("schema")
	}
	switch raw.(type) {
	case map[string]any, bool:
	default:
		return nil, s.wrongType("schema", "a JSON Schema object")
	}
	// Spec §5: "malformed JSON Schema" is an ASSERTION_ERROR; the compile
	// error (an unresolvable $ref, a bad keyword value or pattern) says
	// where.
	sch, err := jsonschema.Compile(raw, &jsonschema.Options{Loader: e.cfg.SchemaLoader})
	if err != nil {
		msg := strings.TrimPrefix(err.Error(), "jsonschema: compile ")
		return nil, specErrorf(fmt.Sprintf("The schema could not be compiled: %s. Fix the schema in the assertion spec; $ref outside the schema resolves only through the engine's schema_dirs.", msg),
			"malformed JSON Schema: %s", clip.String(msg, 200))
	}
	return &schemaCheck{target: t, schema: sch}, nil
}

func (c *schemaCheck) eval(_ context.Context, in *input) (outcome, error) {
	var room matchRoom
	ms := c.target.resolve(in, room[:])
	if len(ms) == 0 {
		return outcome{explanation: c.target.notFound()}, nil
	}
	// Every match is checked (never just the first); the first failing one
	// in document order is named.
	var failed []jsonpath.ValueMatch
	for _, m := range ms {
		if !c.valid(m) {
			failed = append(failed, m)
		}
	}
	if len(failed) == 0 {
		return outcome{pass: true, score: 1, explanation: c.subject(in, ms, false, " matches schema: all required fields present, types valid.")}, nil
	}
	first := failed[0]
	why := "instance is invalid"
	v := first.Any()
	if verr := c.schema.Validate(v); verr != nil {
		why = describeUnit(verr, v)
	}
	exp := fmt.Sprintf("%s failed schema validation: %s.", c.subject(in, failed[:1], true, ""), why)
	if len(ms) > 1 {
		exp += fmt.Sprintf(" %d of %d matches failed: %s.", len(failed), len(ms), locList(failed))
	}
	return outcome{explanation: exp}, nil
}

// valid is the schema's verdict on m: read in place, without decoding it,
// unless m is a number made by .length, which has no Value.
func (c *schemaCheck) valid(m jsonpath.ValueMatch) bool {
	if m.Value.Exists() {
		return c.schema.ValidValue(m.Value)
	}
	return c.schema.Valid(m.Any())
}

// subject names what was validated, as spec §2.2 does: "Tool result for
// 'lookup_order'" when every match is the args or result of steps with one
// name and type, the location or path as written otherwise. A failure
// names the failing step's location when the path can select several.
// The subject comes with rest appended: one string for the explanation.
func (c *schemaCheck) subject(in *input, ms []jsonpath.ValueMatch, failing bool, rest string) string {
	var small [8]int
	kind, part, name, idx := "", "", "", small[:0]
	for i, m := range ms {
		k, p, n, ok := stepPart(in, m)
		if !ok || (i > 0 && (k != kind || p != part || n != name)) {
			kind = ""
			break
		}
		kind, part, name = k, p, n
		idx = append(idx, m.Step)
	}
	if kind == "" {
		if len(ms) == 1 {
			return c.target.name(ms[0]) + rest
		}
		return fmt.Sprintf("%s (all %d matches)", c.target.expr, len(ms)) + rest
	}
	var where string
	switch {
	case failing && !c.target.path.IsSingular():
		where = " (" + ms[0].Location() + ")"
	case len(ms) > 1:
		where = fmt.Sprintf(" (%d steps: %s)", len(ms), intList(idx))
	case !c.target.path.IsSingular() && stepsNamed(in, name) > 1:
		where = fmt.Sprintf(" (steps[%d])", ms[0].Step)
	}
	return kind + " " + part + " for '" + name + "'" + where + rest
}

// stepKinds names a step's args or result in explanations, by step type.
var stepKinds = map[string]string{"tool_call": "Tool", "retrieval": "Retrieval", "agent_call": "Agent call", "llm_call": "LLM call"}

// stepPart reports whether m is exactly steps[i].args or steps[i].result
// (the very value, not an equal one), and if so how to name it: ("Tool",
// "result", "lookup_order").
func stepPart(in *input, m jsonpath.ValueMatch) (kind, part, name string, ok bool) {
	if m.Step < 0 || m.Step >= in.steps.Len() || !m.Value.Exists() {
		return "", "", "", false
	}
	st := in.step(m.Step)
	switch m.Value {
	case st.Get("args"):
		part = "args"
	case st.Get("result"):
		part = "result"
	default:
		return "", "", "", false
	}
	name = st.Get("name").Str()
	k, known := stepKinds[st.Get("type").Str()]
	if !known {
		k = "Step"
	}
	return k, part, name, name != ""
}

// describeUnit renders the most useful failing unit (the one Summary picks)
// as spec §4's example does: "confidence = 1.23 exceeds maximum 1.0", the
// instance location as a dotted path relative to the target.
func describeUnit(verr *jsonschema.ValidationError, inst any) string {
	sum := verr.Summary()
	for _, u := range verr.Units {
		if !strings.HasPrefix(sum, u.String()) {
			continue
		}
		rest := strings.TrimPrefix(sum, u.String())
		loc, val := dotted(u.InstanceLocation, inst)
		switch {
		case loc == "":
			return u.Message + rest
		case startsWithValue(u.Message, val):
			return loc + " = " + u.Message + rest
		default:
			return loc + ": " + u.Message + rest
		}
	}
	return sum
}

// dotted turns a JSON Pointer into instance into a short-form path
// (confidence, items[2].id, ['odd key']) and returns the value there.
func dotted(ptr string, inst any) (string, any) {
	if ptr == "" {
		return "", inst
	}
	var b strings.Builder
	v := inst
	for _, tok := range strings.Split(ptr[1:], "/") {
		tok = strings.ReplaceAll(strings.ReplaceAll(tok, "~1", "/"), "~0", "~")
		switch x := v.(type) {
		case []any:
			i, err := strconv.Atoi(tok)
			if err != nil || i < 0 || i >= len(x) {
				return strings.TrimPrefix(ptr, "/"), nil
			}
			fmt.Fprintf(&b, "[%d]", i)
			v = x[i]
		case map[string]any:
			if plainName(tok) {
				if b.Len() > 0 {
					b.WriteByte('.')
				}
				b.WriteString(tok)
			} else {
				q, _ := json.Marshal(tok)
				b.WriteString("[" + string(q) + "]")
			}
			v = x[tok]
		default:
			return strings.TrimPrefix(ptr, "/"), nil
		}
	}
	return b.String(), v
}

func plainName(s string) bool {
	if s == "" || s == "length" {
		return false
	}
	for i, r := range s {
		if !(r == '_' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || i > 0 && r >= '0' && r <= '9') {
			return false
		}
	}
	return true
}

// startsWithValue reports whether a unit's message opens with the value it
// is about ("1.23 exceeds maximum 1.0"), so "loc = message" reads right.
func startsWithValue(msg string, v any) bool {
	switch x := v.(type) {
	case json.Number:
		return strings.HasPrefix(msg, string(x)+" ")
	case string:
		return strings.HasPrefix(msg, `"`)
	}
	return false
}

// stepsNamed counts the steps called name.
func stepsNamed(in *input, name string) int {
	n := 0
	for st := range in.steps.Elems() {
		if st.Get("name").Is(name) {
			n++
		}
	}
	return n
}
