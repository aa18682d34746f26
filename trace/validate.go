// validate.go: Validate, its options and error type, and the order of the spec §7 rules.

package trace

import (
	"math"
	"strconv"

	"attest-engine/jsonschema"
)

// Limits from spec §7 "Size and Count Limits" and "Schema Version Policy".
const (
	MaxTraceBytes        = 10485760 // "Max trace size | 10 MB (10,485,760 bytes)"
	MaxSteps             = 10000    // "Max steps per trace | 10,000"
	MaxOutputChars       = 500000   // "Max output length | 500,000 characters"
	MaxStepResultBytes   = 1048576  // "Max step payload | 1 MB per step result"
	MaxSubTraceDepth     = 5        // "Max sub-trace depth | 5 levels"
	CurrentSchemaVersion = 1        // "Current (1) | Fully supported"
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

// Validate checks a decoded trace against spec §7 in exactly the spec's
// order, stopping at the first failure:
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
// lax mode), also when err is not nil.
func Validate(t any, opts Options) (warnings []string, err *Error) {
	root, ok := t.(map[string]any)
	if !ok {
		return nil, &Error{
			Message: "trace must be a JSON object, got " + Kind(t),
			Detail:  "Send the trace as a JSON object with schema_version, trace_id, output and optional steps (spec §3.1).",
		}
	}
	v := validator{opts: opts, bound: math.MaxInt}
	if n := opts.SourceBytes; n > 0 && n <= math.MaxInt/2 {
		v.bound = 2 * n
	}
	if err := v.trace(root); err != nil {
		return v.warnings, err
	}
	if d := subTraceDepth(root); d > MaxSubTraceDepth {
		return v.warnings, &Error{
			Message: "trace nesting depth " + strconv.Itoa(d) + " exceeds maximum 5",
			Detail:  "Sub-traces may nest at most 5 levels below the root trace. Flatten deep agent_call chains or omit the innermost sub_trace objects.",
		}
	}
	if err := v.subTraces(root); err != nil {
		return v.warnings, err
	}
	return v.warnings, nil
}

// validator carries the options and the warnings through one Validate call;
// prefix says where the trace being checked sits in the tree.
type validator struct {
	opts     Options
	warnings []string
	prefix   string
	// bound is an upper bound on the encoded size of the root trace, and so
	// of every value in it: twice Options.SourceBytes, or math.MaxInt when
	// that is unknown, until rule 4 measures the root. A size limit that
	// bound is within needs no measuring.
	bound int
}

// trace applies rules 2 to 6 to one trace, root or sub-trace.
func (v *validator) trace(t map[string]any) *Error {
	if err := v.schemaVersion(t); err != nil {
		return err
	}
	if err := requiredFields(t); err != nil {
		return err
	}
	if err := v.limits(t); err != nil {
		return err
	}
	if err := fieldFormats(t); err != nil {
		return err
	}
	return v.steps(t)
}

// subTraces validates, depth first, the sub-trace of every agent_call step of
// t, which has passed rules 2 to 6, so its steps are objects with string
// names and every sub_trace sits on an agent_call step. An error keeps the
// spec's message behind the path to the sub-trace, outermost first.
func (v *validator) subTraces(t map[string]any) *Error {
	outer := v.prefix
	defer func() { v.prefix = outer }()
	steps, _ := t["steps"].([]any)
	for i, s := range steps {
		step := s.(map[string]any)
		sub, ok := step["sub_trace"].(map[string]any)
		if !ok {
			continue
		}
		where := "sub_trace of step '" + step["name"].(string) + "' (steps[" + strconv.Itoa(i) + "]): "
		v.prefix = outer + where
		err := v.trace(sub)
		if err == nil {
			err = v.subTraces(sub)
		}
		if err != nil {
			err.Message = where + err.Message
			return err
		}
	}
	return nil
}

// subTraceDepth returns how many sub-trace levels lie below t: 0 for a trace
// without sub-traces, 1 when a step of t carries one, and so on. It follows
// every object sub_trace of every object step, so it is well defined on
// sub-traces not yet validated. The decoder bounds the recursion.
func subTraceDepth(t map[string]any) int {
	deepest := 0
	steps, _ := t["steps"].([]any)
	for _, s := range steps {
		step, ok := s.(map[string]any)
		if !ok {
			continue
		}
		if sub, ok := step["sub_trace"].(map[string]any); ok {
			deepest = max(deepest, 1+subTraceDepth(sub))
		}
	}
	return deepest
}

// Kind names the JSON type of v for messages: null, boolean, string,
// number, array or object, as jsonschema names it in its own messages.
func Kind(v any) string { return jsonschema.TypeName(v) }

// exactSize is EncodedSize without a limit, for messages that report the
// actual size once a limit is known to be exceeded.
func exactSize(v any) int { return EncodedSize(v, math.MaxInt) }
