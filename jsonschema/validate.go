// validate.go holds the compiled graph's node type and the evaluator: Validate, Valid, the dynamic scope,
// annotation collection for unevaluated*, and the limits that keep evaluation bounded.

package jsonschema

import (
	"fmt"
	"math/bits"
	"sort"
	"strconv"
	"strings"
	"sync"
)

// Limits that keep a hostile schema or instance from hanging or exhausting memory during evaluation.
const (
	maxEvalDepth = 1000     // nested schema evaluations on one path
	maxEvalSteps = 10000000 // steps in one validation (catches exponential $ref fan-out and repeated work)
	maxUnits     = 1000     // error units kept in one ValidationError
	maxUnitBytes = 1 << 20  // bytes of locations and messages recorded in one validation
)

// Work is counted in eighths of a step: a schema evaluation costs stepWork, and so does each failure met
// in detail mode and each comparison made ordering members for it; a boolean schema's evaluation costs
// one, as does each member, item, name, enum value, $ref frame or string byte a keyword reads. Counting
// what keywords read as well as evaluations is what bounds a schema that repeats linear work (a long
// anyOf of patterns, say) over a large instance.
const (
	stepWork    = 8
	maxEvalWork = maxEvalSteps * stepWork
)

// node is one compiled schema (object or boolean).
type node struct {
	isBool, val bool
	loc         string // absolute location (URI with pointer fragment); "" under the placeholder base
	res         *resource
	kws         []keyword      // evaluation order: see compile.go
	vkws        []valueKeyword // kws again, when the schema is read in place (value.go)
	needAnn     bool           // has unevaluatedProperties/unevaluatedItems, so evaluation collects annotations
}

// keyword is one compiled keyword (or a group of keywords that share work, such as the numeric ones).
// eval reports whether inst satisfies it; in detail mode it records units for every failure.
type keyword interface {
	eval(v *validator, inst any, ann *annot) bool
}

// child is a subschema with its keyword-location suffix relative to the parent, e.g. "/properties/name".
type child struct {
	n   *node
	tok string
}

// annot collects the annotations unevaluatedProperties and unevaluatedItems depend on (core spec
// §11.2, §11.3): which properties and items of the current instance were evaluated by successful
// subschemas.
type annot struct {
	props    map[string]struct{}
	allProps bool
	items    int              // items [0, items) were evaluated
	allItems bool             // every item was evaluated
	idx      map[int]struct{} // items evaluated one by one (contains)
}

func (a *annot) addProp(k string) {
	if a.allProps {
		return
	}
	if a.props == nil {
		a.props = map[string]struct{}{}
	}
	a.props[k] = struct{}{}
}

func (a *annot) hasProp(k string) bool {
	if a.allProps {
		return true
	}
	_, ok := a.props[k]
	return ok
}

func (a *annot) addIndex(i int) {
	if a.idx == nil {
		a.idx = map[int]struct{}{}
	}
	a.idx[i] = struct{}{}
}

func (a *annot) hasItem(i int) bool {
	if a.allItems || i < a.items {
		return true
	}
	_, ok := a.idx[i]
	return ok
}

func (a *annot) merge(b *annot) {
	if b.allProps {
		a.allProps, a.props = true, nil
	} else if !a.allProps {
		for k := range b.props {
			a.addProp(k)
		}
	}
	a.allItems = a.allItems || b.allItems
	a.items = max(a.items, b.items)
	for i := range b.idx {
		a.addIndex(i)
	}
}

// instTok is one step of the instance location: a property name, or an index when idx >= 0.
type instTok struct {
	key string
	idx int
}

type refFrame struct {
	n         *node
	instDepth int
}

// validator is the per-call evaluation state; it is pooled so that Valid does not allocate.
type validator struct {
	detail    bool // build units (Validate) rather than only a verdict (Valid)
	dynamic   bool
	units     []Unit
	kwPath    []string
	instPath  []instTok
	scope     []*resource // dynamic scope, outermost first (core spec §7.1)
	refs      []refFrame  // $ref frames on the current path, for loop detection
	instDepth int
	depth     int
	work      int   // see stepWork
	unitBytes int   // recorded in units, including those later dropped by anyOf, oneOf, not, if and contains
	fatal     *Unit // evaluation had to stop: the instance is reported invalid
	tapeMemo        // what ValidValue reads once per call (value.go)
}

var validatorPool = sync.Pool{New: func() any { return new(validator) }}

func getValidator(s *Schema, detail bool) *validator {
	v := validatorPool.Get().(*validator)
	v.detail, v.dynamic = detail, s.dynamic
	return v
}

func putValidator(v *validator) {
	if cap(v.units) > 4*maxUnits || cap(v.kwPath) > 4*maxEvalDepth || cap(v.refs) > 4*maxEvalDepth {
		return
	}
	// Popped slots still point into the caller's instance and schema; clear them so that a pooled
	// validator does not keep those alive.
	if len(v.units) > 0 {
		clear(v.units)
		v.units = v.units[:0]
	}
	if v.detail {
		clear(v.instPath[:cap(v.instPath)])
	}
	if v.dynamic {
		clear(v.scope[:cap(v.scope)])
	}
	clear(v.refs[:cap(v.refs)])
	v.fatal = nil
	v.tapeMemo = tapeMemo{} // its values are of the call's document, which may be released after
	v.work, v.unitBytes, v.depth, v.instDepth = 0, 0, 0, 0
	validatorPool.Put(v)
}

// Valid reports whether instance is valid against the schema, without building error details.
func (s *Schema) Valid(instance any) (ok bool) {
	v := getValidator(s, false)
	defer func() {
		// Last line of defence only: evaluation is written not to panic on any input.
		if r := recover(); r != nil {
			ok = false
		}
	}()
	ok = v.eval(s.root, instance, nil) && v.fatal == nil
	putValidator(v)
	return ok
}

// Validate validates instance and returns nil when it is valid, or the failing units in the 2020-12 "basic"
// output form (core spec §12.4.2).
func (s *Schema) Validate(instance any) (verr *ValidationError) {
	defer func() {
		if r := recover(); r != nil {
			verr = &ValidationError{Units: []Unit{{Message: fmt.Sprintf("internal error: %v", r)}}}
		}
	}()
	// Most instances are valid: answer those on the fast path, and spend the detailed evaluation (sorted
	// member order, locations, messages) only on failures. A limit hit on the fast path is the answer.
	v := getValidator(s, false)
	ok := v.eval(s.root, instance, nil)
	if ok && v.fatal == nil {
		putValidator(v)
		return nil
	}
	if v.work > maxEvalWork {
		// Too expensive to repeat in detail: report the limit where it was hit.
		verr = &ValidationError{Units: []Unit{*v.fatal}}
		putValidator(v)
		return verr
	}
	putValidator(v)
	v = getValidator(s, true)
	ok = v.eval(s.root, instance, nil)
	if v.fatal != nil {
		ok = false
		v.units = append(v.units, *v.fatal)
	}
	if !ok {
		units := append([]Unit(nil), v.units...)
		if len(units) == 0 {
			units = append(units, Unit{Message: "instance is invalid"})
		}
		verr = &ValidationError{Units: units}
	}
	putValidator(v)
	return verr
}

// eval evaluates node n against inst. ann, when not nil, receives the annotations of this evaluation for
// the same instance; it is only merged by callers when the evaluation succeeds.
func (v *validator) eval(n *node, inst any, ann *annot) bool {
	if v.fatal != nil {
		return false
	}
	if n.isBool {
		v.work++
		if !n.val {
			v.failFalse(n.loc)
		}
		return n.val
	}
	if !v.enter() {
		v.stop(n)
		return false
	}
	pushed := false
	if v.dynamic && (len(v.scope) == 0 || v.scope[len(v.scope)-1] != n.res) {
		v.scope = append(v.scope, n.res)
		pushed = true
	}
	var local *annot
	if n.needAnn {
		local = &annot{}
	} else {
		local = ann
	}
	ok := true
	for _, k := range n.kws {
		if !k.eval(v, inst, local) {
			ok = false
			if !v.detail || v.fatal != nil {
				break
			}
		}
	}
	if ok && n.needAnn && ann != nil {
		ann.merge(local)
	}
	if pushed {
		v.scope = v.scope[:len(v.scope)-1]
	}
	v.depth--
	return ok
}

// enter counts the evaluation of a schema object and steps into it (the caller steps out with v.depth--
// when done), and reports whether that stays within the depth and step limits; when not, the caller
// calls stop. eval and evalValue (value.go) both start so: inlined in both.
func (v *validator) enter() bool {
	v.work += stepWork
	v.depth++
	return v.depth <= maxEvalDepth && v.work <= maxEvalWork
}

// stop records the limit enter passed at schema n, and steps back out of n.
func (v *validator) stop(n *node) {
	if v.depth > maxEvalDepth {
		v.setFatal(n.loc, "", fmt.Sprintf("evaluation deeper than %d schemas; the schema or instance is too deeply nested", maxEvalDepth))
	} else {
		v.setFatal(n.loc, "", fmt.Sprintf("evaluation took more than %d steps; the schema is too expensive to evaluate", maxEvalSteps))
	}
	v.depth--
}

// evalIn evaluates a subschema against the same instance (in-place applicators).
func (v *validator) evalIn(c child, inst any, ann *annot) bool {
	if !v.detail {
		return v.eval(c.n, inst, ann)
	}
	v.kwPath = append(v.kwPath, c.tok)
	ok := v.eval(c.n, inst, ann)
	v.kwPath = v.kwPath[:len(v.kwPath)-1]
	return ok
}

// evalAlt evaluates an alternative (a branch of anyOf or oneOf, the if schema) against the same instance.
// When annotations are being collected the alternative gets its own, which the caller merges only if the
// alternative counts.
func (v *validator) evalAlt(c child, inst any, collect bool) (bool, *annot) {
	if !collect {
		return v.evalIn(c, inst, nil), nil
	}
	ca := &annot{}
	return v.evalIn(c, inst, ca), ca
}

// evalKey evaluates a subschema against the member key of the current object.
func (v *validator) evalKey(c child, inst any, key string) bool {
	return v.evalAt(c, inst, instTok{key: key, idx: -1})
}

// evalIndex evaluates a subschema against item i of the current array.
func (v *validator) evalIndex(c child, inst any, i int) bool {
	return v.evalAt(c, inst, instTok{idx: i})
}

// evalAt evaluates a subschema against the member or item t of the current instance.
func (v *validator) evalAt(c child, inst any, t instTok) bool {
	v.instDepth++
	if !v.detail {
		ok := v.eval(c.n, inst, nil)
		v.instDepth--
		return ok
	}
	v.kwPath = append(v.kwPath, c.tok)
	v.instPath = append(v.instPath, t)
	ok := v.eval(c.n, inst, nil)
	v.instPath = v.instPath[:len(v.instPath)-1]
	v.kwPath = v.kwPath[:len(v.kwPath)-1]
	v.instDepth--
	return ok
}

// failf records a unit for keyword kw ("" for the schema itself) of the schema at absolute location loc,
// in detail mode. Each failure costs a step there, and the message is only formatted for a unit that is
// kept. Its arguments are boxed before the call, though: a caller whose arguments are not constants checks
// v.detail first, so that Valid does not allocate for the failures met inside anyOf, oneOf, not, if and
// contains.
func (v *validator) failf(loc, kw, format string, args ...any) {
	if !v.detail {
		return
	}
	v.work += stepWork
	if len(v.units) >= maxUnits || v.unitBytes >= maxUnitBytes {
		return
	}
	u := v.unit(loc, kw, fmt.Sprintf(format, args...))
	v.unitBytes += len(u.KeywordLocation) + len(u.AbsoluteKeywordLocation) + len(u.InstanceLocation) + len(u.Message)
	v.units = append(v.units, u)
}

// failAtf records a unit whose instance location is the member or item t of the current instance.
func (v *validator) failAtf(loc, kw string, t instTok, format string, args ...any) {
	if !v.detail {
		return
	}
	v.instPath = append(v.instPath, t)
	v.failf(loc, kw, format, args...)
	v.instPath = v.instPath[:len(v.instPath)-1]
}

// match runs a pattern on s, counting the bytes it reads.
func (v *validator) match(re *matcher, s string) bool {
	v.work += 1 + len(s)
	return re.MatchString(s)
}

func (v *validator) unit(loc, kw, msg string) Unit {
	var b strings.Builder
	for _, t := range v.kwPath {
		b.WriteString(t)
	}
	if kw != "" {
		b.WriteString("/")
		b.WriteString(kw)
		if loc != "" {
			loc += "/" + kw
		}
	}
	return Unit{KeywordLocation: b.String(), AbsoluteKeywordLocation: loc, InstanceLocation: v.instLocation(), Message: msg}
}

func (v *validator) instLocation() string {
	var b strings.Builder
	for _, t := range v.instPath {
		b.WriteByte('/')
		if t.idx >= 0 {
			b.WriteString(strconv.Itoa(t.idx))
		} else {
			b.WriteString(escapeToken(t.key))
		}
	}
	return b.String()
}

func (v *validator) setFatal(loc, kw, msg string) {
	if v.fatal == nil {
		u := v.unit(loc, kw, msg)
		v.fatal = &u
	}
}

// failFalse records the failure of a false schema, worded from where it applies: most false schemas forbid
// a property or an item.
func (v *validator) failFalse(loc string) {
	switch {
	case !v.detail:
	case len(v.instPath) == 0:
		v.failf(loc, "", "no value is allowed here (schema is false)")
	case v.instPath[len(v.instPath)-1].idx >= 0:
		v.failf(loc, "", "item %d is not allowed", v.instPath[len(v.instPath)-1].idx)
	default:
		v.failf(loc, "", "property %q is not allowed", v.instPath[len(v.instPath)-1].key)
	}
}

// forEachKey calls f for every member of obj, stopping when f returns false. In detail mode the order is
// sorted so that units come out in a stable order; otherwise map order is fine and allocation-free.
func (v *validator) forEachKey(obj map[string]any, f func(k string, val any) bool) {
	if !v.detail {
		for k, val := range obj {
			v.work++
			if !f(k, val) {
				return
			}
		}
		return
	}
	v.work += stepWork * len(obj) * bits.Len(uint(len(obj))) // a comparison of the sort costs about a step
	keys := make([]string, 0, len(obj))
	for k := range obj {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		v.work++
		if !f(k, obj[k]) {
			return
		}
	}
}
