// rules.go: the spec §7 rules 2 to 6 applied to one trace object, read in place.

package trace

import (
	"bytes"
	"encoding/json"
	"strconv"

	"attest-engine/tape"
)

// fields are the members of a trace object that the rules read, each
// Missing when absent.
type fields struct {
	schemaVersion, traceID, output, agentID, input, steps, metadata, parentTraceID tape.Value
}

// traceFields reads t's members in one pass.
func traceFields(t tape.Value) (f fields) {
	for k, v := range t.Members() {
		switch string(k.Bytes()) {
		case "schema_version":
			f.schemaVersion = v
		case "trace_id":
			f.traceID = v
		case "output":
			f.output = v
		case "agent_id":
			f.agentID = v
		case "input":
			f.input = v
		case "steps":
			f.steps = v
		case "metadata":
			f.metadata = v
		case "parent_trace_id":
			f.parentTraceID = v
		}
	}
	return f
}

// schemaVersion is rule 2, spec §7 "Schema Version Policy": "Current (1) |
// Fully supported", "Previous (0) | Supported with deprecation warning in
// engine logs", "Older | Rejected with `INVALID_TRACE` and migration message".
func (v *validator) schemaVersion(sv tape.Value) *Error {
	if !sv.Exists() {
		return &Error{
			Message: "trace missing required field: schema_version",
			Detail:  "Every trace must include an integer schema_version; the current version is 1.",
		}
	}
	n, ok := version(sv)
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
		v.warnings = append(v.warnings, v.prefix()+"trace schema_version 0 is deprecated; migrate the trace to schema_version 1")
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

// version is integer for a value of the tape: a plain integer of up to 18
// digits (1, 0, -3), as SDKs write versions, is read directly; any other
// number goes through integer's exact reading.
func version(sv tape.Value) (int64, bool) {
	if sv.Kind() != tape.Number {
		return 0, false
	}
	text := sv.Text()
	digits := text
	if digits[0] == '-' {
		digits = digits[1:]
	}
	if len(digits) > 18 {
		return integer(json.Number(text))
	}
	var n int64
	for _, c := range digits {
		if c < '0' || c > '9' {
			return integer(json.Number(text))
		}
		n = n*10 + int64(c-'0')
	}
	if text[0] == '-' {
		n = -n
	}
	return n, true
}

// requiredFields is rule 3, spec §7 "Required Fields": "`trace_id` |
// Non-empty string. No whitespace-only values." and "`output` | Non-null
// object with at least one field."
func requiredFields(f fields) *Error {
	id := f.traceID
	switch {
	case !id.Exists():
		return &Error{ // spec §5, "INVALID_TRACE — missing required field"
			Message: "trace missing required field: trace_id",
			Detail:  "Every trace must include a non-empty trace_id string.",
		}
	case id.Kind() != tape.String:
		return &Error{
			Message: "trace trace_id must be a string, got " + kindName(id.Kind()),
			Detail:  `Every trace must include a non-empty trace_id string, e.g. "trc_abc123".`,
		}
	case len(id.Raw()) == 0: // an escape is never empty
		return &Error{
			Message: "trace trace_id is empty",
			Detail:  `Every trace must include a non-empty trace_id string, e.g. "trc_abc123".`,
		}
	case len(bytes.TrimSpace(id.Bytes())) == 0:
		return &Error{
			Message: "trace trace_id is whitespace-only",
			Detail:  `Every trace must include a trace_id with at least one non-white-space character, e.g. "trc_abc123".`,
		}
	}

	out := f.output
	switch {
	case !out.Exists():
		return &Error{
			Message: "trace missing required field: output",
			Detail:  "Every trace must include a non-null output object with at least one field.",
		}
	case out.Kind() != tape.Object:
		return &Error{
			Message: "trace output must be an object, got " + kindName(out.Kind()),
			Detail:  `Every trace must include a non-null output object with at least one field, e.g. {"message": "..."}.`,
		}
	case out.Len() == 0:
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
func (v *validator) limits(t tape.Value, f fields) *Error {
	if v.bound > MaxTraceBytes {
		n := valueSize(t, MaxTraceBytes)
		if n > MaxTraceBytes {
			return &Error{
				Message: "trace exceeds max size: " + strconv.Itoa(exactValueSize(t)) + " > 10485760 bytes",
				Detail:  SizeDetail,
			}
		}
		v.bound = n
	}
	if f.steps.Kind() == tape.Array && f.steps.Len() > MaxSteps {
		return &Error{
			Message: "trace exceeds max steps: " + strconv.Itoa(f.steps.Len()) + " > 10000",
			Detail:  "Split the run into several traces or drop low-value steps. Max allowed: 10000 steps per trace.",
		}
	}
	// "Max output length | 500,000 characters": characters are Unicode code
	// points. A string's text has at least as many bytes as its content has
	// code points, so short ones need no count.
	if msg := f.output.Get("message"); len(msg.Raw()) > MaxOutputChars {
		if n := msg.RuneCount(); n > MaxOutputChars {
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
func fieldFormats(f fields) *Error {
	if err := optional(f.agentID, "agent_id", tape.String, "a string",
		"agent_id is optional; when present it must be a string naming the agent."); err != nil {
		return err
	}
	if err := optional(f.input, "input", tape.Object, "an object",
		"input is optional; when present it must be an object holding the agent's input."); err != nil {
		return err
	}
	if err := optional(f.steps, "steps", tape.Array, "an array",
		"steps is optional; when present it must be an array of step objects (spec §3.4)."); err != nil {
		return err
	}
	if err := optional(f.metadata, "metadata", tape.Object, "an object",
		"metadata is optional; when present it must be an object (tokens, cost, latency, model, timestamp)."); err != nil {
		return err
	}
	// "`metadata.timestamp` | If present, must be RFC 3339 format."
	if ts := f.metadata.Get("timestamp"); ts.Exists() && ts.Kind() != tape.Null {
		const detail = `Use an RFC 3339 date-time for metadata.timestamp, e.g. "2026-02-18T10:30:00Z" or "2026-02-18T10:30:00.123+02:00".`
		if ts.Kind() != tape.String {
			return &Error{Message: "trace metadata.timestamp must be an RFC 3339 string, got " + kindName(ts.Kind()), Detail: detail}
		}
		if s := ts.Bytes(); !isRFC3339(string(s)) {
			return &Error{Message: "trace metadata.timestamp " + quote(string(s)) + " is not RFC 3339", Detail: detail}
		}
	}
	// "`parent_trace_id` | If present, must be a non-empty string or explicit `null`."
	if p := f.parentTraceID; p.Exists() && p.Kind() != tape.Null {
		const detail = "Set parent_trace_id to the parent trace's trace_id, or to null (or leave it out) for a root trace."
		if p.Kind() != tape.String {
			return &Error{Message: "trace parent_trace_id must be a string or null, got " + kindName(p.Kind()), Detail: detail}
		}
		if len(p.Raw()) == 0 {
			return &Error{Message: "trace parent_trace_id is empty", Detail: detail}
		}
	}
	return nil
}

// optional checks the type of an optional field: absent and null pass.
func optional(v tape.Value, field string, want tape.Kind, wantName, detail string) *Error {
	if k := v.Kind(); k == tape.Missing || k == tape.Null || k == want {
		return nil
	}
	return &Error{Message: "trace " + field + " must be " + wantName + ", got " + kindName(v.Kind()), Detail: detail}
}

// step are the members of a step object that the rules read.
type step struct {
	typ, name, result, subTrace tape.Value
}

// stepFields reads step s's members in one pass.
func stepFields(s tape.Value) (f step) {
	for k, v := range s.Members() {
		switch string(k.Bytes()) {
		case "type":
			f.typ = v
		case "name":
			f.name = v
		case "result":
			f.result = v
		case "sub_trace":
			f.subTrace = v
		}
	}
	return f
}

// knownStepType reports whether typ is one of spec §3.3's step types.
func knownStepType(typ []byte) bool {
	switch string(typ) {
	case "llm_call", "tool_call", "retrieval", "agent_call":
		return true
	}
	return false
}

// steps is rule 6, spec §7 "Step-level validation (type, name, payload
// size)": "`steps[*].type` | Must be `llm_call`, `tool_call`, `retrieval`, or
// `agent_call`. Unknown types are rejected in strict mode; tolerated in lax
// mode.", "`steps[*].name` | Non-empty string.", "Max step payload | 1 MB per
// step result", and §3.4 "`sub_trace` | Only for `agent_call`."
func (v *validator) steps(steps tape.Value) *Error {
	warned := false
	i := -1
	for s := range steps.Elems() {
		i++
		if s.Kind() != tape.Object {
			return &Error{
				Message: stepAt(i) + " must be an object, got " + kindName(s.Kind()),
				Detail:  "Each entry of steps must be an object with at least a type and a name (spec §3.4).",
			}
		}
		f := stepFields(s)
		if err := stepString(f.typ, "type", i,
			"Give every step a type: llm_call, tool_call, retrieval or agent_call."); err != nil {
			return err
		}
		typ := f.typ.Bytes()
		if !knownStepType(typ) {
			if v.opts.Strict {
				return &Error{
					Message: stepAt(i) + " has unknown type " + quote(string(typ)),
					Detail:  "Use one of llm_call, tool_call, retrieval or agent_call, or turn off strict_step_types to tolerate new step types.",
				}
			}
			// Lax mode: one warning per trace (the first unknown type), so a
			// trace of many cannot flood the log; the server logs it once
			// per session.
			if !warned {
				warned = true
				v.warnings = append(v.warnings, v.prefix()+"unknown step type "+quote(string(typ))+" tolerated as an opaque step (spec §6 item 6)")
			}
		}
		if err := stepString(f.name, "name", i,
			"Give every step a non-empty name; trace assertions such as contains_in_order refer to steps by name."); err != nil {
			return err
		}
		if f.result.Exists() && v.bound > MaxStepResultBytes {
			if n := valueSize(f.result, MaxStepResultBytes); n > MaxStepResultBytes {
				name := string(f.name.Bytes())
				return &Error{ // to the letter of spec §7 "Actionable Error Messages"
					Message: "trace step '" + name + "' result exceeds 1048576 bytes (actual: " + strconv.Itoa(exactValueSize(f.result)) + " bytes)",
					Detail:  "Truncate the 'result' field for step '" + name + "' before submitting. Consider filtering large arrays or binary data from tool results.",
				}
			}
		}
		if sub := f.subTrace; sub.Exists() && sub.Kind() != tape.Null {
			if string(typ) != "agent_call" {
				name := string(f.name.Bytes())
				return &Error{
					Message: stepAt(i) + " ('" + name + "') has a sub_trace but type " + quote(string(typ)) + "; only agent_call steps may carry one",
					Detail:  "Remove sub_trace from step '" + name + "', or set its type to agent_call if it delegates to a sub-agent.",
				}
			}
			if sub.Kind() != tape.Object {
				return &Error{
					Message: stepAt(i) + " ('" + string(f.name.Bytes()) + "') sub_trace must be an object, got " + kindName(sub.Kind()),
					Detail:  "The sub_trace of an agent_call step must be a trace object (spec §3.3), or be left out.",
				}
			}
			v.sawSubTrace = true
		}
	}
	return nil
}

// stepAt names step i in messages; built only on failure, so that valid
// steps cost no allocation.
func stepAt(i int) string { return "trace step " + strconv.Itoa(i) }

// stepString checks the required, non-empty string field of step i.
func stepString(f tape.Value, field string, i int, detail string) *Error {
	switch {
	case !f.Exists():
		return &Error{Message: stepAt(i) + " missing required field: " + field, Detail: detail}
	case f.Kind() != tape.String:
		return &Error{Message: stepAt(i) + " " + field + " must be a string, got " + kindName(f.Kind()), Detail: detail}
	case len(f.Raw()) == 0:
		return &Error{Message: stepAt(i) + " has an empty " + field, Detail: detail}
	}
	return nil
}
