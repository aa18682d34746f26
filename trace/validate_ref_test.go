// validate_ref_test.go: the rules of spec §7 as they were written over decoded values (map[string]any), kept as the oracle that ValidateValue and Validate are compared against.

package trace

import (
	"encoding/json"
	"math"
	"strconv"
	"strings"
	"unicode/utf8"
)

// refValidate is Validate as it was before validation read tapes: the same
// rules in the same order, over a decoded value. The differential tests
// hold ValidateValue to it, byte for byte.
func refValidate(t any, opts Options) (warnings []string, err *Error) {
	root, ok := t.(map[string]any)
	if !ok {
		return nil, &Error{
			Message: "trace must be a JSON object, got " + Kind(t),
			Detail:  "Send the trace as a JSON object with schema_version, trace_id, output and optional steps (spec §3.1).",
		}
	}
	v := refValidator{opts: opts, bound: math.MaxInt}
	if n := opts.SourceBytes; n > 0 && n <= math.MaxInt/2 {
		v.bound = 2 * n
	}
	if err := v.trace(root); err != nil {
		return v.warnings, err
	}
	if d := refSubTraceDepth(root); d > MaxSubTraceDepth {
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

// refValidator carries the options and the warnings through one Validate call;
// prefix says where the trace being checked sits in the tree.
type refValidator struct {
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
func (v *refValidator) trace(t map[string]any) *Error {
	if err := v.schemaVersion(t); err != nil {
		return err
	}
	if err := refRequiredFields(t); err != nil {
		return err
	}
	if err := v.limits(t); err != nil {
		return err
	}
	if err := refFieldFormats(t); err != nil {
		return err
	}
	return v.steps(t)
}

// subTraces validates, depth first, the sub-trace of every agent_call step of
// t, which has passed rules 2 to 6, so its steps are objects with string
// names and every sub_trace sits on an agent_call step. An error keeps the
// spec's message behind the path to the sub-trace, outermost first.
func (v *refValidator) subTraces(t map[string]any) *Error {
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

// refSubTraceDepth returns how many sub-trace levels lie below t: 0 for a trace
// without sub-traces, 1 when a step of t carries one, and so on. It follows
// every object sub_trace of every object step, so it is well defined on
// sub-traces not yet validated. The decoder bounds the recursion.
func refSubTraceDepth(t map[string]any) int {
	deepest := 0
	steps, _ := t["steps"].([]any)
	for _, s := range steps {
		step, ok := s.(map[string]any)
		if !ok {
			continue
		}
		if sub, ok := step["sub_trace"].(map[string]any); ok {
			deepest = max(deepest, 1+refSubTraceDepth(sub))
		}
	}
	return deepest
}

// refExactSize is encodedSize without a limit, for messages that report the
// actual size once a limit is known to be exceeded.
func refExactSize(v any) int { return encodedSize(v, math.MaxInt) }

// schemaVersion is rule 2, spec §7 "Schema Version Policy": "Current (1) |
// Fully supported", "Previous (0) | Supported with deprecation warning in
// engine logs", "Older | Rejected with `INVALID_TRACE` and migration message".
func (v *refValidator) schemaVersion(t map[string]any) *Error {
	sv, ok := t["schema_version"]
	if !ok {
		return &Error{
			Message: "trace missing required field: schema_version",
			Detail:  "Every trace must include an integer schema_version; the current version is 1.",
		}
	}
	n, ok := integer(sv)
	if !ok {
		return &Error{
			Message: "trace schema_version must be an integer, got " + refDescribe(sv),
			Detail:  "Set schema_version to the integer 1, the current trace schema version.",
		}
	}
	switch {
	case n == CurrentSchemaVersion:
		return nil
	case n == CurrentSchemaVersion-1:
		v.warnings = append(v.warnings, v.prefix+"trace schema_version 0 is deprecated; migrate the trace to schema_version 1")
		return nil
	case n < 0:
		return &Error{
			Message: "trace schema_version " + refDescribe(sv) + " is no longer supported",
			Detail:  "Migrate the trace to schema_version 1, the current version: the engine supports schema_version 0 and 1. Upgrade the SDK to emit schema_version 1 traces.",
		}
	default:
		return &Error{
			Message: "trace schema_version " + refDescribe(sv) + " is newer than this engine supports",
			Detail:  "The engine supports schema_version 0 and 1; upgrade the engine, or have the SDK emit schema_version 1.",
		}
	}
}

// refRequiredFields is rule 3, spec §7 "Required Fields": "`trace_id` |
// Non-empty string. No whitespace-only values." and "`output` | Non-null
// object with at least one field."
func refRequiredFields(t map[string]any) *Error {
	id, ok := t["trace_id"]
	if !ok {
		return &Error{ // spec §5, "INVALID_TRACE — missing required field"
			Message: "trace missing required field: trace_id",
			Detail:  "Every trace must include a non-empty trace_id string.",
		}
	}
	s, ok := id.(string)
	switch {
	case !ok:
		return &Error{
			Message: "trace trace_id must be a string, got " + Kind(id),
			Detail:  `Every trace must include a non-empty trace_id string, e.g. "trc_abc123".`,
		}
	case s == "":
		return &Error{
			Message: "trace trace_id is empty",
			Detail:  `Every trace must include a non-empty trace_id string, e.g. "trc_abc123".`,
		}
	case strings.TrimSpace(s) == "":
		return &Error{
			Message: "trace trace_id is whitespace-only",
			Detail:  `Every trace must include a trace_id with at least one non-white-space character, e.g. "trc_abc123".`,
		}
	}

	out, ok := t["output"]
	if !ok {
		return &Error{
			Message: "trace missing required field: output",
			Detail:  "Every trace must include a non-null output object with at least one field.",
		}
	}
	m, ok := out.(map[string]any)
	if !ok {
		return &Error{
			Message: "trace output must be an object, got " + Kind(out),
			Detail:  `Every trace must include a non-null output object with at least one field, e.g. {"message": "..."}.`,
		}
	}
	if len(m) == 0 {
		return &Error{
			Message: "trace output is an empty object",
			Detail:  `The output object must contain at least one field, e.g. {"message": "..."}.`,
		}
	}
	return nil
}

// limits is rule 4, spec §7 "Size and Count Limits". The size is measured
// only when v.bound does not already prove it small enough, which is to say
// on the root at most: once the root is measured, v.bound is its size, and a
// sub-trace, part of its root, is never larger.
func (v *refValidator) limits(t map[string]any) *Error {
	if v.bound > MaxTraceBytes {
		n := encodedSize(t, MaxTraceBytes)
		if n > MaxTraceBytes {
			return &Error{
				Message: "trace exceeds max size: " + strconv.Itoa(refExactSize(t)) + " > 10485760 bytes",
				Detail:  SizeDetail,
			}
		}
		v.bound = n
	}
	if steps, ok := t["steps"].([]any); ok && len(steps) > MaxSteps {
		return &Error{
			Message: "trace exceeds max steps: " + strconv.Itoa(len(steps)) + " > 10000",
			Detail:  "Split the run into several traces or drop low-value steps. Max allowed: 10000 steps per trace.",
		}
	}
	// "Max output length | 500,000 characters": characters are Unicode code
	// points. A string has at least as many bytes as code points, so short
	// ones need no count.
	out, _ := t["output"].(map[string]any)
	msg, _ := out["message"].(string)
	if len(msg) > MaxOutputChars {
		if n := utf8.RuneCountInString(msg); n > MaxOutputChars {
			return &Error{
				Message: "output.message length " + strconv.Itoa(n) + " exceeds 500000 characters",
				Detail:  "Truncate output.message to at most 500000 characters (Unicode code points) before submitting.",
			}
		}
	}
	return nil
}

// refFieldFormats is rule 5, spec §7 "Field Validation" for the trace's own
// fields and the types of spec §3.2, in the §3.2 table's order. A null
// optional field counts as absent.
func refFieldFormats(t map[string]any) *Error {
	if err := refOptional(t, "agent_id", refIsString, "a string",
		"agent_id is optional; when present it must be a string naming the agent."); err != nil {
		return err
	}
	if err := refOptional(t, "input", refIsObject, "an object",
		"input is optional; when present it must be an object holding the agent's input."); err != nil {
		return err
	}
	if err := refOptional(t, "steps", refIsArray, "an array",
		"steps is optional; when present it must be an array of step objects (spec §3.4)."); err != nil {
		return err
	}
	if err := refOptional(t, "metadata", refIsObject, "an object",
		"metadata is optional; when present it must be an object (tokens, cost, latency, model, timestamp)."); err != nil {
		return err
	}
	// "`metadata.timestamp` | If present, must be RFC 3339 format."
	meta, _ := t["metadata"].(map[string]any)
	if ts, ok := meta["timestamp"]; ok && ts != nil {
		const detail = `Use an RFC 3339 date-time for metadata.timestamp, e.g. "2026-02-18T10:30:00Z" or "2026-02-18T10:30:00.123+02:00".`
		s, ok := ts.(string)
		if !ok {
			return &Error{Message: "trace metadata.timestamp must be an RFC 3339 string, got " + Kind(ts), Detail: detail}
		}
		if !isRFC3339(s) {
			return &Error{Message: "trace metadata.timestamp " + quote(s) + " is not RFC 3339", Detail: detail}
		}
	}
	// "`parent_trace_id` | If present, must be a non-empty string or explicit `null`."
	if p, ok := t["parent_trace_id"]; ok && p != nil {
		const detail = "Set parent_trace_id to the parent trace's trace_id, or to null (or leave it out) for a root trace."
		s, ok := p.(string)
		if !ok {
			return &Error{Message: "trace parent_trace_id must be a string or null, got " + Kind(p), Detail: detail}
		}
		if s == "" {
			return &Error{Message: "trace parent_trace_id is empty", Detail: detail}
		}
	}
	return nil
}

// optional checks the type of an optional field: absent and null pass.
func refOptional(t map[string]any, field string, ok func(any) bool, want, detail string) *Error {
	v, present := t[field]
	if !present || v == nil || ok(v) {
		return nil
	}
	return &Error{Message: "trace " + field + " must be " + want + ", got " + Kind(v), Detail: detail}
}

func refIsString(v any) bool { _, ok := v.(string); return ok }
func refIsObject(v any) bool { _, ok := v.(map[string]any); return ok }
func refIsArray(v any) bool  { _, ok := v.([]any); return ok }

// refStepTypes are spec §3.3's step types.
var refStepTypes = map[string]bool{"llm_call": true, "tool_call": true, "retrieval": true, "agent_call": true}

// steps is rule 6, spec §7 "Step-level validation (type, name, payload
// size)": "`steps[*].type` | Must be `llm_call`, `tool_call`, `retrieval`, or
// `agent_call`. Unknown types are rejected in strict mode; tolerated in lax
// mode.", "`steps[*].name` | Non-empty string.", "Max step payload | 1 MB per
// step result", and §3.4 "`sub_trace` | Only for `agent_call`."
func (v *refValidator) steps(t map[string]any) *Error {
	steps, _ := t["steps"].([]any)
	warned := false
	for i, s := range steps {
		step, ok := s.(map[string]any)
		if !ok {
			return &Error{
				Message: refStepAt(i) + " must be an object, got " + Kind(s),
				Detail:  "Each entry of steps must be an object with at least a type and a name (spec §3.4).",
			}
		}
		typ, err := refStepString(step, "type", i,
			"Give every step a type: llm_call, tool_call, retrieval or agent_call.")
		if err != nil {
			return err
		}
		if !refStepTypes[typ] {
			if v.opts.Strict {
				return &Error{
					Message: refStepAt(i) + " has unknown type " + quote(typ),
					Detail:  "Use one of llm_call, tool_call, retrieval or agent_call, or turn off strict_step_types to tolerate new step types.",
				}
			}
			// Lax mode: one warning per trace (the first unknown type), so a
			// trace of many cannot flood the log; the server logs it once
			// per session.
			if !warned {
				warned = true
				v.warnings = append(v.warnings, v.prefix+"unknown step type "+quote(typ)+" tolerated as an opaque step (spec §6 item 6)")
			}
		}
		name, err := refStepString(step, "name", i,
			"Give every step a non-empty name; trace assertions such as contains_in_order refer to steps by name.")
		if err != nil {
			return err
		}
		if r, ok := step["result"]; ok && v.bound > MaxStepResultBytes {
			if n := encodedSize(r, MaxStepResultBytes); n > MaxStepResultBytes {
				return &Error{ // to the letter of spec §7 "Actionable Error Messages"
					Message: "trace step '" + name + "' result exceeds 1048576 bytes (actual: " + strconv.Itoa(refExactSize(r)) + " bytes)",
					Detail:  "Truncate the 'result' field for step '" + name + "' before submitting. Consider filtering large arrays or binary data from tool results.",
				}
			}
		}
		if sub, ok := step["sub_trace"]; ok && sub != nil {
			at := refStepAt(i) + " ('" + name + "')"
			if typ != "agent_call" {
				return &Error{
					Message: at + " has a sub_trace but type " + quote(typ) + "; only agent_call steps may carry one",
					Detail:  "Remove sub_trace from step '" + name + "', or set its type to agent_call if it delegates to a sub-agent.",
				}
			}
			if _, ok := sub.(map[string]any); !ok {
				return &Error{
					Message: at + " sub_trace must be an object, got " + Kind(sub),
					Detail:  "The sub_trace of an agent_call step must be a trace object (spec §3.3), or be left out.",
				}
			}
		}
	}
	return nil
}

// refStepAt names step i in messages; built only on failure, so that valid
// steps cost no allocation.
func refStepAt(i int) string { return "trace step " + strconv.Itoa(i) }

// refStepString reads the required, non-empty string field of step i.
func refStepString(step map[string]any, field string, i int, detail string) (string, *Error) {
	f, ok := step[field]
	if !ok {
		return "", &Error{Message: refStepAt(i) + " missing required field: " + field, Detail: detail}
	}
	s, ok := f.(string)
	if !ok {
		return "", &Error{Message: refStepAt(i) + " " + field + " must be a string, got " + Kind(f), Detail: detail}
	}
	if s == "" {
		return "", &Error{Message: refStepAt(i) + " has an empty " + field, Detail: detail}
	}
	return s, nil
}

// refDescribe is describe over a decoded value.
func refDescribe(v any) string {
	switch x := v.(type) {
	case json.Number:
		return clipped(string(x))
	case string:
		return "string " + quote(x)
	case float64:
		return strconv.FormatFloat(x, 'g', -1, 64)
	case int:
		return strconv.Itoa(x)
	case int64:
		return strconv.FormatInt(x, 10)
	}
	return Kind(v)
}
