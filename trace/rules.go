// rules.go: the spec §7 rules 2 to 6 applied to one trace object.

package trace

import (
	"strconv"
	"strings"
	"unicode/utf8"
)

// schemaVersion is rule 2, spec §7 "Schema Version Policy": "Current (1) |
// Fully supported", "Previous (0) | Supported with deprecation warning in
// engine logs", "Older | Rejected with `INVALID_TRACE` and migration message".
func (v *validator) schemaVersion(t map[string]any) *Error {
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
			Message: "trace schema_version must be an integer, got " + describe(sv),
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
			Message: "trace schema_version " + describe(sv) + " is no longer supported",
			Detail:  "Migrate the trace to schema_version 1, the current version: the engine supports schema_version 0 and 1. Upgrade the SDK to emit schema_version 1 traces.",
		}
	default:
		return &Error{
			Message: "trace schema_version " + describe(sv) + " is newer than this engine supports",
			Detail:  "The engine supports schema_version 0 and 1; upgrade the engine, or have the SDK emit schema_version 1.",
		}
	}
}

// requiredFields is rule 3, spec §7 "Required Fields": "`trace_id` |
// Non-empty string. No whitespace-only values." and "`output` | Non-null
// object with at least one field."
func requiredFields(t map[string]any) *Error {
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

// SizeDetail is the detail of every answer about a trace too large, the
// spec's own (§5, error response format example), for the server's and the
// CLI's over-long lines too.
const SizeDetail = "Reduce trace size by filtering steps or truncating tool results. Max allowed: 10485760 bytes (10 MB)."

// limits is rule 4, spec §7 "Size and Count Limits". The size is measured
// only when v.bound does not already prove it small enough, which is to say
// on the root at most: once the root is measured, v.bound is its size, and a
// sub-trace, part of its root, is never larger.
func (v *validator) limits(t map[string]any) *Error {
	if v.bound > MaxTraceBytes {
		n := EncodedSize(t, MaxTraceBytes)
		if n > MaxTraceBytes {
			return &Error{
				Message: "trace exceeds max size: " + strconv.Itoa(exactSize(t)) + " > 10485760 bytes",
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

// fieldFormats is rule 5, spec §7 "Field Validation" for the trace's own
// fields and the types of spec §3.2, in the §3.2 table's order. A null
// optional field counts as absent.
func fieldFormats(t map[string]any) *Error {
	if err := optional(t, "agent_id", isString, "a string",
		"agent_id is optional; when present it must be a string naming the agent."); err != nil {
		return err
	}
	if err := optional(t, "input", isObject, "an object",
		"input is optional; when present it must be an object holding the agent's input."); err != nil {
		return err
	}
	if err := optional(t, "steps", isArray, "an array",
		"steps is optional; when present it must be an array of step objects (spec §3.4)."); err != nil {
		return err
	}
	if err := optional(t, "metadata", isObject, "an object",
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
func optional(t map[string]any, field string, ok func(any) bool, want, detail string) *Error {
	v, present := t[field]
	if !present || v == nil || ok(v) {
		return nil
	}
	return &Error{Message: "trace " + field + " must be " + want + ", got " + Kind(v), Detail: detail}
}

func isString(v any) bool { _, ok := v.(string); return ok }
func isObject(v any) bool { _, ok := v.(map[string]any); return ok }
func isArray(v any) bool  { _, ok := v.([]any); return ok }

// stepTypes are spec §3.3's step types.
var stepTypes = map[string]bool{"llm_call": true, "tool_call": true, "retrieval": true, "agent_call": true}

// steps is rule 6, spec §7 "Step-level validation (type, name, payload
// size)": "`steps[*].type` | Must be `llm_call`, `tool_call`, `retrieval`, or
// `agent_call`. Unknown types are rejected in strict mode; tolerated in lax
// mode.", "`steps[*].name` | Non-empty string.", "Max step payload | 1 MB per
// step result", and §3.4 "`sub_trace` | Only for `agent_call`."
func (v *validator) steps(t map[string]any) *Error {
	steps, _ := t["steps"].([]any)
	warned := false
	for i, s := range steps {
		step, ok := s.(map[string]any)
		if !ok {
			return &Error{
				Message: stepAt(i) + " must be an object, got " + Kind(s),
				Detail:  "Each entry of steps must be an object with at least a type and a name (spec §3.4).",
			}
		}
		typ, err := stepString(step, "type", i,
			"Give every step a type: llm_call, tool_call, retrieval or agent_call.")
		if err != nil {
			return err
		}
		if !stepTypes[typ] {
			if v.opts.Strict {
				return &Error{
					Message: stepAt(i) + " has unknown type " + quote(typ),
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
		name, err := stepString(step, "name", i,
			"Give every step a non-empty name; trace assertions such as contains_in_order refer to steps by name.")
		if err != nil {
			return err
		}
		if r, ok := step["result"]; ok && v.bound > MaxStepResultBytes {
			if n := EncodedSize(r, MaxStepResultBytes); n > MaxStepResultBytes {
				return &Error{ // to the letter of spec §7 "Actionable Error Messages"
					Message: "trace step '" + name + "' result exceeds 1048576 bytes (actual: " + strconv.Itoa(exactSize(r)) + " bytes)",
					Detail:  "Truncate the 'result' field for step '" + name + "' before submitting. Consider filtering large arrays or binary data from tool results.",
				}
			}
		}
		if sub, ok := step["sub_trace"]; ok && sub != nil {
			at := stepAt(i) + " ('" + name + "')"
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

// stepAt names step i in messages; built only on failure, so that valid
// steps cost no allocation.
func stepAt(i int) string { return "trace step " + strconv.Itoa(i) }

// stepString reads the required, non-empty string field of step i.
func stepString(step map[string]any, field string, i int, detail string) (string, *Error) {
	f, ok := step[field]
	if !ok {
		return "", &Error{Message: stepAt(i) + " missing required field: " + field, Detail: detail}
	}
	s, ok := f.(string)
	if !ok {
		return "", &Error{Message: stepAt(i) + " " + field + " must be a string, got " + Kind(f), Detail: detail}
	}
	if s == "" {
		return "", &Error{Message: stepAt(i) + " has an empty " + field, Detail: detail}
	}
	return s, nil
}
