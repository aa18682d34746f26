// validate.go: ValidateValue and Validate, their options and error type, and the order of the spec §7 rules over a trace tree.

package trace

import (
	"math"
	"strconv"

	"attest-engine/jsonschema"
	"attest-engine/tape"
)

// Limits from spec §7 "Size and Count Limits" and "Schema Version Policy".
const (
	MaxTraceBytes = 10485760 // "Max trace size | 10 MB (10,485,760 bytes)"
	// MaxLineBytes bounds one line that carries a trace: a request line
	// of the protocol, a trace line of the eval and watch commands. It is
	// the largest trace plus 6 MiB of room for the assertions and the
	// envelope around it: 16 MiB.
	MaxLineBytes         = MaxTraceBytes + 6<<20
	MaxSteps             = 10000   // "Max steps per trace | 10,000"
	MaxOutputChars       = 500000  // "Max output length | 500,000 characters"
	MaxStepResultBytes   = 1048576 // "Max step payload | 1 MB per step result"
	MaxSubTraceDepth     = 5       // "Max sub-trace depth | 5 levels"
	CurrentSchemaVersion = 1       // "Current (1) | Fully supported"
)

// Options tune validation.
type Options struct {
	// Strict rejects unknown step types (config "strict_step_types"). By
	// default they are tolerated, as spec §6 item 6 asks: "Engine evaluators
	// treat unknown step types as opaque and skip type-specific processing."
	Strict bool

	// SourceBytes, when > 0, is the length of the JSON text the trace was
	// decoded from (or of a text that contains it, such as a request line).
	// Re-encoding a decoded value can at most double its length (U+2028 and
	// U+2029 take 3 bytes raw and 6 encoded; everything else stays the same
	// or shrinks), so when twice SourceBytes is within a size limit the value
	// cannot exceed it, and Validate skips measuring it.
	SourceBytes int
}

// Error is an INVALID_TRACE (1001) failure: Message and Detail go to the wire
// verbatim, as the error's message and data.detail.
type Error struct {
	Message string
	Detail  string // actionable guidance, spec §7 "Actionable Error Messages"
}

func (e *Error) Error() string { return e.Message }

// ValidateValue checks a trace read in place from its tape against spec §7
// in exactly the spec's order, stopping at the first failure:
//
//	"1. Top-level JSON parse" (the caller's; here: the trace is an object)
//	"2. `schema_version` check"
//	"3. Required fields (`trace_id`, `output`)"
//	"4. Size and count limits"
//	"5. Field type and format validation"
//	"6. Step-level validation (type, name, payload size)"
//	"7. Sub-trace depth check"
//
// Then the sub-trace of every agent_call step is checked with rules 2 to 6,
// depth first. warnings carries non-fatal notes for the log (the
// schema_version 0 deprecation, the first unknown step type of a trace in
// lax mode), also when err is not nil. The outcome is the one t.Any() would
// get: in a document that names a member twice, the later member counts.
// A valid trace costs no allocation (but for strings with escapes read by
// the rules, and a timestamp longer than 32 bytes).
func ValidateValue(t tape.Value, opts Options) (warnings []string, err *Error) {
	if t.HasDuplicate() {
		// Rare, and refused by the engine's readers: the sizes of the text
		// would count both members, where Any (and Get) keep the last.
		// Re-encoding gives the text of the value Any means.
		return Validate(t.Any(), opts)
	}
	if t.Kind() != tape.Object {
		return nil, notObject(kindName(t.Kind()))
	}
	v := validator{opts: opts, bound: math.MaxInt}
	if n := opts.SourceBytes; n > 0 && n <= math.MaxInt/2 {
		v.bound = 2 * n
	}
	if err := v.trace(t); err != nil {
		return v.warnings, err
	}
	if !v.sawSubTrace {
		return v.warnings, nil // depth 0, and no sub-trace to check
	}
	if d := subTraceDepth(t); d > MaxSubTraceDepth {
		return v.warnings, &Error{
			Message: "trace nesting depth " + strconv.Itoa(d) + " exceeds maximum 5",
			Detail:  "Sub-traces may nest at most 5 levels below the root trace. Flatten deep agent_call chains or omit the innermost sub_trace objects.",
		}
	}
	if err := v.subTraces(t); err != nil {
		return v.warnings, err
	}
	return v.warnings, nil
}

// Validate is ValidateValue for a decoded trace (nil, bool, string,
// json.Number, []any, map[string]any, or anything else encoding/json
// encodes): it writes the value's compact text, reads it onto a tape and
// validates that, so the rules exist once. A value encoding/json cannot
// encode (a NaN, a channel) fails.
func Validate(t any, opts Options) (warnings []string, err *Error) {
	if _, ok := t.(map[string]any); !ok {
		return nil, notObject(Kind(t))
	}
	text, eerr := encode(t)
	if eerr != nil {
		return nil, notJSON(eerr)
	}
	d, perr := tape.ParseUnique(text)
	if perr != nil {
		return nil, notJSON(perr)
	}
	defer d.Release()
	return ValidateValue(d.Root(), opts)
}

func notJSON(err error) *Error {
	return &Error{
		Message: "trace is not JSON: " + err.Error(),
		Detail:  "Send the trace as a JSON object with schema_version, trace_id, output and optional steps (spec §3.1).",
	}
}

func notObject(kind string) *Error {
	return &Error{
		Message: "trace must be a JSON object, got " + kind,
		Detail:  "Send the trace as a JSON object with schema_version, trace_id, output and optional steps (spec §3.1).",
	}
}

// validator carries the options and the warnings through one validation;
// path says where the trace being checked sits in the tree.
type validator struct {
	opts     Options
	warnings []string
	// path holds the steps that lead from the root to the sub-trace being
	// checked, outermost first, for the prefix of its warnings: built only
	// when one is given. Sub-traces are checked once rule 7 has held, so
	// there are at most MaxSubTraceDepth.
	path  [MaxSubTraceDepth]at
	depth int
	// sawSubTrace records that rule 6 met a step with a sub-trace object.
	sawSubTrace bool
	// bound is an upper bound on the encoded size of the root trace, and so
	// of every value in it: twice Options.SourceBytes, or math.MaxInt when
	// that is unknown, until rule 4 measures the root. A size limit that
	// bound is within needs no measuring.
	bound int
}

// at is a step that carries a sub-trace: its index and its name.
type at struct {
	i    int
	name tape.Value
}

// where says where the sub-trace of step a is, in messages.
func (a at) where() string {
	return "sub_trace of step '" + string(a.name.Bytes()) + "' (steps[" + strconv.Itoa(a.i) + "]): "
}

// prefix says where the trace being checked is, for its warnings: "" for
// the root.
func (v *validator) prefix() string {
	p := ""
	for _, a := range v.path[:v.depth] {
		p += a.where()
	}
	return p
}

// trace applies rules 2 to 6 to one trace, root or sub-trace.
func (v *validator) trace(t tape.Value) *Error {
	f := traceFields(t)
	if err := v.schemaVersion(f.schemaVersion); err != nil {
		return err
	}
	if err := requiredFields(f); err != nil {
		return err
	}
	if err := v.limits(t, f); err != nil {
		return err
	}
	if err := fieldFormats(f); err != nil {
		return err
	}
	return v.steps(f.steps)
}

// subTraces validates, depth first, the sub-trace of every agent_call step of
// t, which has passed rules 2 to 6, so its steps are objects with string
// names and every sub_trace sits on an agent_call step. An error keeps the
// spec's message behind the path to the sub-trace, outermost first.
func (v *validator) subTraces(t tape.Value) *Error {
	i := -1
	for step := range t.Get("steps").Elems() {
		i++
		s := stepFields(step)
		if s.subTrace.Kind() != tape.Object {
			continue
		}
		if v.depth == len(v.path) {
			// Unreachable: rule 7 bounds the nesting before sub-traces are checked.
			return &Error{Message: "trace nesting depth exceeds maximum 5", Detail: "Sub-traces may nest at most 5 levels below the root trace."}
		}
		a := at{i: i, name: s.name}
		v.path[v.depth] = a
		v.depth++
		err := v.trace(s.subTrace)
		if err == nil {
			err = v.subTraces(s.subTrace)
		}
		v.depth--
		if err != nil {
			err.Message = a.where() + err.Message
			return err
		}
	}
	return nil
}

// subTraceDepth returns how many sub-trace levels lie below t: 0 for a trace
// without sub-traces, 1 when a step of t carries one, and so on. It follows
// every object sub_trace of every object step, so it is well defined on
// sub-traces not yet validated. The tape's nesting bound (tape.MaxDepth)
// bounds the recursion.
func subTraceDepth(t tape.Value) int {
	deepest := 0
	for step := range t.Get("steps").Elems() {
		if sub := step.Get("sub_trace"); sub.Kind() == tape.Object {
			deepest = max(deepest, 1+subTraceDepth(sub))
		}
	}
	return deepest
}

// Kind names the JSON type of v for messages: null, boolean, string,
// number, array or object, as jsonschema names it in its own messages.
func Kind(v any) string { return jsonschema.TypeName(v) }

// kindNames are Kind's names for the kinds of a tape.
var kindNames = [...]string{
	tape.Missing: "invalid value", tape.Null: "null", tape.Bool: "boolean", tape.Number: "number",
	tape.String: "string", tape.Array: "array", tape.Object: "object",
}

func kindName(k tape.Kind) string { return kindNames[k] }
