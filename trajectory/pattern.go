// pattern.go: step patterns and argument matchers: what a step must be to match, and why it does not.

package trajectory

import (
	"errors"
	"fmt"
	"math"
	"regexp"
	"sort"
	"strings"

	"attest-engine/clip"
	"attest-engine/jsonpath"
	"attest-engine/jsonschema"
	"attest-engine/tape"
)

// Limits of a check's spec (docs/security.md lists them with the others).
const (
	MaxPatterns = 64   // patterns in a reference; constraints in a temporal check
	MaxCount    = 64   // a pattern's min and a finite max
	MaxStates   = 1024 // Σ over a reference's patterns of (max+1), or (min+1) when max is unbounded
	MaxMembers  = 64   // args and result members a pattern lists
	MaxRefs     = 64   // distinct ref paths in one check
	maxRegexLen = 4096 // the default Regexp bound when the caller gives none
)

// Unbounded is a pattern's Max when any number of occurrences is allowed.
const Unbounded = -1

// Options supply the bounded compilers the engine already has, so that a
// check's regexes, schemas and paths are bounded exactly as elsewhere.
// A nil field falls back to a plain compiler (tests, fuzzing).
type Options struct {
	Regexp func(pattern string) (*regexp.Regexp, error)
	Schema func(schema any) (*jsonschema.Schema, error)
	Path   func(expr string) (*jsonpath.Path, error)
}

// matcherKind is one of the six ways an argument is matched.
type matcherKind uint8

const (
	mExact matcherKind = iota
	mSubset
	mRegex
	mSchema
	mAny
	mRef
)

var matcherNames = []string{"exact", "subset", "regex", "schema", "any", "ref"}

// matcher matches one member of a step's args or result.
type matcher struct {
	kind   matcherKind
	value  any     // exact, subset: the expected value
	tol    float64 // exact, ref: numbers within tol match; <0: none given
	source string  // regex: the pattern; ref: the path as written
	re     *regexp.Regexp
	schema *jsonschema.Schema
	ref    int // index of the ref path in the check's list
}

type member struct {
	name string
	m    matcher
}

// Pattern is one compiled step pattern.
type Pattern struct {
	Tool     string // "" matches any step name
	Type     string // "" matches any step type
	args     []member
	result   []member
	Min, Max int     // occurrences in a reference; Max may be Unbounded
	Cost     float64 // the cost of one missing required occurrence (alignment)
}

// compiler holds what one check's patterns share while they compile.
type compiler struct {
	opts  Options
	refs  []*jsonpath.Path
	refAt map[string]int
	names map[string]bool // step names the patterns list
	types map[string]bool // step types the patterns list
}

func newCompiler(opts *Options) *compiler {
	c := &compiler{refAt: map[string]int{}, names: map[string]bool{}, types: map[string]bool{}}
	if opts != nil {
		c.opts = *opts
	}
	return c
}

// pattern reads a step pattern: a tool name as a string, or an object
// {tool?, type?, args?, result?} with, in a reference, {min?, max?,
// optional?, cost?}.
func (c *compiler) pattern(v any, at string, inReference bool) (*Pattern, error) {
	if s, ok := v.(string); ok {
		if s == "" {
			return nil, specErrorf(fmt.Sprintf("Name a tool in '%s', or give a pattern object.", at), "spec field '%s' must not be empty", at)
		}
		c.names[s] = true
		return &Pattern{Tool: s, Min: 1, Max: 1, Cost: 1}, nil
	}
	m, ok := v.(map[string]any)
	if !ok {
		return nil, specErrorf(fmt.Sprintf("Set '%s' to a tool name or a pattern object {tool, type, args, result}.", at),
			"spec field '%s' must be a tool name or a pattern object, got %s", at, kindOf(v))
	}
	o := obj{at: at, m: m}
	p := &Pattern{Cost: 1}
	var err error
	if p.Tool, err = o.str("tool", false); err != nil {
		return nil, err
	}
	if p.Type, err = o.str("type", false); err != nil {
		return nil, err
	}
	if p.Tool != "" {
		c.names[p.Tool] = true
	}
	if p.Type != "" {
		c.types[p.Type] = true
	}
	if p.args, err = c.members(o, "args"); err != nil {
		return nil, err
	}
	if p.result, err = c.members(o, "result"); err != nil {
		return nil, err
	}
	if !inReference {
		for _, f := range []string{"min", "max", "optional", "cost"} {
			if o.has(f) {
				return nil, specErrorf("min, max, optional and cost belong to the patterns of a reference (trajectory_match, trajectory_alignment); say how often with at_most or a reference.",
					"spec field '%s' is only allowed in a reference pattern", o.name(f))
			}
		}
		p.Min, p.Max = 1, 1
		return p, nil
	}
	return p, c.counts(o, p)
}

// counts reads min, max, optional and cost. Defaults: exactly once;
// optional: true is min 0; max defaults to min (at least 1); max
// "unbounded" allows any number.
func (c *compiler) counts(o obj, p *Pattern) error {
	optional, err := o.boolean("optional")
	if err != nil {
		return err
	}
	def := int64(1)
	if optional {
		def = 0
	}
	if optional && o.has("min") {
		return specErrorf("Give either optional: true (min 0) or min, not both.", "spec fields '%s' and '%s' are both set", o.name("optional"), o.name("min"))
	}
	lo, err := o.integer("min", def, 0, MaxCount)
	if err != nil {
		return err
	}
	p.Min = int(lo)
	p.Max = max(p.Min, 1)
	if s, ok := o.m["max"].(string); ok {
		if s != "unbounded" {
			return specErrorf(fmt.Sprintf("Set '%s' to an integer from 1 to %d, or \"unbounded\".", o.name("max"), MaxCount),
				"spec field '%s' must be an integer from 1 to %d or \"unbounded\", got %s", o.name("max"), MaxCount, text(s))
		}
		p.Max = Unbounded
	} else if o.has("max") {
		hi, err := o.integer("max", 1, 1, MaxCount)
		if err != nil {
			return specErrorf(fmt.Sprintf("Set '%s' to an integer from 1 to %d, or \"unbounded\".", o.name("max"), MaxCount),
				"spec field '%s' must be an integer from 1 to %d or \"unbounded\", got %s", o.name("max"), MaxCount, text(o.m["max"]))
		}
		if int(hi) < p.Min {
			return specErrorf("Set max to min or more.", "spec field '%s' (%d) is less than min (%d)", o.name("max"), hi, p.Min)
		}
		p.Max = int(hi)
	}
	p.Cost, err = o.number("cost", 1, 0, 1e6)
	return err
}

// members reads args or result: member name → matcher.
func (c *compiler) members(o obj, field string) ([]member, error) {
	m, ok, err := o.object(field)
	if err != nil || !ok {
		return nil, err
	}
	if len(m.m) > MaxMembers {
		return nil, specErrorf(fmt.Sprintf("A pattern lists at most %d members in '%s'.", MaxMembers, m.at),
			"spec field '%s' lists %d members, more than %d", m.at, len(m.m), MaxMembers)
	}
	names := make([]string, 0, len(m.m))
	for n := range m.m {
		names = append(names, n)
	}
	sort.Strings(names) // a fixed order: the first mismatch named is the same every time
	out := make([]member, len(names))
	for i, n := range names {
		mt, err := c.matcher(m.m[n], m.name(n))
		if err != nil {
			return nil, err
		}
		out[i] = member{n, mt}
	}
	return out, nil
}

// matcher reads one member's matcher: a value that is not an object is
// matched exactly; an object names exactly one of exact, subset, regex,
// schema, any, ref (with tolerance beside exact or ref).
func (c *compiler) matcher(v any, at string) (matcher, error) {
	m, isObj := v.(map[string]any)
	if !isObj {
		return matcher{kind: mExact, value: v, tol: -1}, nil
	}
	bad := func(why string) (matcher, error) {
		return matcher{}, specErrorf(fmt.Sprintf("Write '%s' as a value (matched exactly) or an object with one of exact, subset, regex, schema, any, ref (tolerance only beside exact or ref); an object value is written {\"exact\": {...}} or {\"subset\": {...}}.", at),
			"spec field '%s' is not a matcher: %s", at, why)
	}
	kind, n := -1, 0
	for i, name := range matcherNames {
		if _, ok := m[name]; ok {
			kind, n = i, n+1
		}
	}
	_, hasTol := m["tolerance"]
	switch {
	case n == 0:
		return bad("it names none of exact, subset, regex, schema, any, ref")
	case n > 1:
		return bad("it names more than one of exact, subset, regex, schema, any, ref")
	case len(m) != n+b2i(hasTol):
		return bad("it has members besides its matcher and tolerance")
	case hasTol && kind != int(mExact) && kind != int(mRef):
		return bad("tolerance goes with exact or ref only")
	}
	o := obj{at: at, m: m}
	mt := matcher{kind: matcherKind(kind), tol: -1}
	if hasTol {
		t, err := o.number("tolerance", 0, 0, math.MaxFloat64)
		if err != nil {
			return matcher{}, err
		}
		mt.tol = t
	}
	arg := m[matcherNames[kind]]
	switch mt.kind {
	case mExact:
		mt.value = arg
	case mSubset:
		if _, ok := arg.(map[string]any); !ok {
			return matcher{}, o.wrongType("subset", "an object (its members must be present and equal; nested objects as subsets too)")
		}
		mt.value = arg
	case mAny:
		if arg != true {
			return matcher{}, o.wrongType("any", "true")
		}
	case mRegex:
		s, ok := arg.(string)
		if !ok {
			return matcher{}, o.wrongType("regex", "a string (an RE2 pattern)")
		}
		re, err := c.regexp(s)
		if err != nil {
			return matcher{}, err
		}
		mt.source, mt.re = s, re
	case mSchema:
		switch arg.(type) {
		case map[string]any, bool:
		default:
			return matcher{}, o.wrongType("schema", "a JSON Schema (an object or a boolean)")
		}
		s, err := c.schema(arg)
		if err != nil {
			return matcher{}, err
		}
		mt.schema = s
	case mRef:
		s, ok := arg.(string)
		if !ok || s == "" {
			return matcher{}, o.wrongType("ref", "a JSONPath into the trace, such as input.order_id")
		}
		i, err := c.ref(s)
		if err != nil {
			return matcher{}, err
		}
		mt.source, mt.ref = s, i
	}
	return mt, nil
}

func b2i(b bool) int {
	if b {
		return 1
	}
	return 0
}

func (c *compiler) regexp(s string) (*regexp.Regexp, error) {
	if c.opts.Regexp != nil {
		return c.opts.Regexp(s)
	}
	if len(s) > maxRegexLen {
		return nil, specErrorf("Shorten the regex.", "invalid regex: pattern too large (%d bytes)", len(s))
	}
	re, err := regexp.Compile(s)
	if err != nil {
		return nil, specErrorf("Fix the regex: RE2 syntax.", "invalid regex '%s'", clip.String(s, 200))
	}
	return re, nil
}

func (c *compiler) schema(v any) (*jsonschema.Schema, error) {
	if c.opts.Schema != nil {
		return c.opts.Schema(v)
	}
	s, err := jsonschema.Compile(v, nil)
	if err != nil {
		msg := strings.TrimPrefix(err.Error(), "jsonschema: compile ")
		return nil, specErrorf("Fix the schema in the assertion spec.", "malformed JSON Schema: %s", clip.String(msg, 200))
	}
	return s, nil
}

func (c *compiler) ref(expr string) (int, error) {
	if i, ok := c.refAt[expr]; ok {
		return i, nil
	}
	if len(c.refs) == MaxRefs {
		return 0, specErrorf(fmt.Sprintf("A check names at most %d distinct ref paths; split it.", MaxRefs), "too many ref paths (more than %d)", MaxRefs)
	}
	var p *jsonpath.Path
	var err error
	if c.opts.Path != nil {
		p, err = c.opts.Path(expr)
	} else if p, err = jsonpath.Parse(expr); err != nil {
		var se *jsonpath.SyntaxError
		detail := "A ref is a JSONPath of the supported subset, such as input.order_id or steps[?name=='lookup_order'].result.id."
		if errors.As(err, &se) {
			detail = fmt.Sprintf("Syntax error at offset %d: %s. %s", se.Offset, se.Msg, detail)
		}
		err = specErrorf(detail, "unsupported JSONPath expression '%s'", clip.String(expr, 200))
	}
	if err != nil {
		return 0, err
	}
	c.refAt[expr] = len(c.refs)
	c.refs = append(c.refs, p)
	return len(c.refs) - 1, nil
}

// env is what matching reads besides the step: the values each ref path
// selects in the trace, computed once per evaluation.
type env struct {
	refs [][]any
}

// matches reports whether st matches p.
func (p *Pattern) matches(st *step, e *env) bool {
	if p.Tool != "" && st.name != p.Tool || p.Type != "" && st.typ != p.Type {
		return false
	}
	return membersMatch(p.args, st.args, e) && membersMatch(p.result, st.result, e)
}

func membersMatch(ms []member, v tape.Value, e *env) bool {
	for i := range ms {
		if ok, _ := ms[i].m.test(v.Get(ms[i].name), e); !ok {
			return false
		}
	}
	return true
}

// why says why st does not match p ("" when it does): the first of name,
// type, args and result members (in name order) that fails.
func (p *Pattern) why(st *step, e *env) string {
	switch {
	case p.Tool != "" && st.name != p.Tool:
		return fmt.Sprintf("name '%s', not '%s'", clip.String(st.name, 80), clip.String(p.Tool, 80))
	case p.Type != "" && st.typ != p.Type:
		return fmt.Sprintf("type %s, not %s", clip.String(st.typ, 80), clip.String(p.Type, 80))
	}
	for _, part := range []struct {
		field string
		ms    []member
		v     tape.Value
	}{{"args", p.args, st.args}, {"result", p.result, st.result}} {
		v := part.v
		for i := range part.ms {
			if ok, why := part.ms[i].m.test(v.Get(part.ms[i].name), e); !ok {
				return part.field + "." + clip.String(part.ms[i].name, 80) + " " + why
			}
		}
	}
	return ""
}

// hasMembers reports whether p looks past a step's name and type.
func (p *Pattern) hasMembers() bool { return len(p.args)+len(p.result) > 0 }

// test matches one member's value; when it fails, why completes
// "args.<name> …".
func (m *matcher) test(v tape.Value, e *env) (ok bool, why string) {
	if !v.Exists() {
		return false, "is missing"
	}
	if m.kind == mAny {
		return true, ""
	}
	got := v.Any()
	switch m.kind {
	case mExact:
		if m.equal(got, m.value) {
			return true, ""
		}
		return false, fmt.Sprintf("%s ≠ %s%s", quote(got), quote(m.value), m.tolText())
	case mSubset:
		if at, ok := subset(got, m.value, ""); !ok {
			return false, fmt.Sprintf("%s is not a superset of %s (at %s)", quote(got), quote(m.value), clip.String(at, 120))
		}
		return true, ""
	case mRegex:
		s, isStr := got.(string)
		if !isStr {
			return false, fmt.Sprintf("is %s, not a string matching regex '%s'", kindOf(got), clip.String(m.source, 80))
		}
		if !m.re.MatchString(s) {
			return false, fmt.Sprintf("%s does not match regex '%s'", quote(got), clip.String(m.source, 80))
		}
		return true, ""
	case mSchema:
		if m.schema.Valid(got) {
			return true, ""
		}
		sum := "invalid"
		if err := m.schema.Validate(got); err != nil {
			sum = err.Summary()
		}
		return false, fmt.Sprintf("%s fails the schema: %s", quote(got), clip.String(sum, 160))
	case mRef:
		vals := e.refs[m.ref]
		if len(vals) == 0 {
			return false, fmt.Sprintf("%s, but ref %s selects nothing in the trace", quote(got), clip.String(m.source, 120))
		}
		for _, want := range vals {
			if m.equal(got, want) {
				return true, ""
			}
		}
		if len(vals) == 1 {
			return false, fmt.Sprintf("%s ≠ %s %s%s", quote(got), clip.String(m.source, 120), quote(vals[0]), m.tolText())
		}
		shown := make([]string, 0, 3)
		for i, v := range vals {
			if i == 3 {
				shown = append(shown, "…")
				break
			}
			shown = append(shown, quote(v))
		}
		return false, fmt.Sprintf("%s is none of the %d values of %s (%s)%s", quote(got), len(vals), clip.String(m.source, 120), strings.Join(shown, ", "), m.tolText())
	}
	return false, "cannot be matched"
}

func (m *matcher) tolText() string {
	if m.tol < 0 {
		return ""
	}
	return " (tolerance " + fmtNum(m.tol) + ")"
}

// equal compares by value (numbers exactly, 1 = 1.0), or within the
// tolerance when one is given and both are numbers.
func (m *matcher) equal(got, want any) bool {
	if m.tol >= 0 {
		a, okA := jsonschema.Float(got)
		b, okB := jsonschema.Float(want)
		if okA && okB {
			return math.Abs(a-b) <= m.tol
		}
	}
	return jsonschema.Equal(got, want)
}

// subset reports whether every member of want is in got with an equal
// value, nested objects compared as subsets too; at names the first
// member that is not.
func subset(got, want any, at string) (string, bool) {
	w, wObj := want.(map[string]any)
	g, gObj := got.(map[string]any)
	if !wObj || !gObj {
		if at == "" {
			at = "the top"
		}
		return at, jsonschema.Equal(got, want)
	}
	names := make([]string, 0, len(w))
	for n := range w {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		gv, ok := g[n]
		p := n
		if at != "" {
			p = at + "." + n
		}
		if !ok {
			return p, false
		}
		if where, ok := subset(gv, w[n], p); !ok {
			return where, false
		}
	}
	return at, true
}

// quote shows a value in an explanation: strings in single quotes, the
// rest as compact JSON, cut to 80 bytes.
func quote(v any) string {
	if s, ok := v.(string); ok {
		return "'" + clip.String(s, 80) + "'"
	}
	return text(v)
}

// label names a pattern in explanations: its tool (or "any step"), its type,
// and the members it checks.
func (p *Pattern) label() string {
	s := p.Tool
	if s == "" {
		s = "any step"
	}
	if p.Type != "" {
		s += " (" + p.Type + ")"
	}
	if p.hasMembers() {
		var parts []string
		for _, m := range p.args {
			parts = append(parts, "args."+m.name)
		}
		for _, m := range p.result {
			parts = append(parts, "result."+m.name)
		}
		s += " with " + strings.Join(parts, ", ")
	}
	return "'" + clip.String(s, 200) + "'"
}
