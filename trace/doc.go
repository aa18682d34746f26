// doc.go: the package comment: what trace holds, and where it departs from the spec.

// Package trace holds the trace validation rules of the Attest protocol,
// spec §7, checked in the spec's order.
//
// # Decoding
//
// [Decode] turns one JSON document into nil, bool, string, json.Number,
// []any and map[string]any, with exact member names, bounded nesting
// ([MaxDepth]), exact numbers and strict UTF-8: the engine's one parser
// (package tape), then its value model (tape.Value.Any).
//
// # Validation
//
// [ValidateValue] applies spec §7 "Validation Order" to a trace read in place
// from its tape (package tape); [Validate] does the same for a decoded trace
// by re-encoding it onto a tape, so that the rules exist once. Validation
// stops at the first failure, reported as an [*Error] whose Message and
// Detail go to the wire verbatim as an INVALID_TRACE (1001) error. Rule 1
// (the top-level parse) belongs to the caller; validation starts by
// requiring a JSON object. After rules 2 to 6 on the root and rule 7 over
// the whole tree, every sub-trace of an agent_call step is checked with
// rules 2 to 6 in turn, depth first, and an error found there is prefixed
// with where it is, e.g. "sub_trace of step 'escalation_agent' (steps[2]): ".
// ValidateValue allocates nothing on a valid trace but for strings with
// escapes that the rules read (member names, trace_id, step types and
// names, a timestamp) and a timestamp longer than 32 bytes.
//
// # Decisions where the spec is silent
//
//   - An explicit null on an optional field (agent_id, input, steps, metadata,
//     metadata.timestamp, a step's sub_trace) counts as absent: SDKs commonly
//     serialise unset optional fields as null. A null required field
//     (schema_version, trace_id, output) is present with the wrong type.
//   - schema_version is an integer when its value is integral, whatever its
//     spelling: 1, 1.0 and 1e0 are all version 1 (as in JSON Schema). The test
//     is exact, on the decimal text, never through float64.
//   - Rule 5 checks fields in the order of the §3.2 table: agent_id, input,
//     steps, metadata, metadata.timestamp, parent_trace_id.
//   - The output.message limit applies only when message is a string; the
//     shape of output is agent-defined (§3.2), so other types pass.
//   - A step's args, result and metadata are not type-checked: §7 does not
//     list them and §6 asks the engine to tolerate what it does not need.
//   - A step name only has to be non-empty (§7); unlike trace_id, a
//     white-space-only name is accepted.
//   - A step type must be a non-empty string even in lax mode: an empty
//     type is a missing one, not a new one. parent_trace_id, like a step
//     name, need only be non-empty (§7 asks no more). In lax mode the first
//     unknown step type of each trace is reported as a warning, for the log.
//   - Sizes are those of the compact encoding of the decoded value, so the
//     limits do not depend on the SDK's white space. When a limit is
//     exceeded, the message reports the exact size. The figure is measured
//     on the tape (valueSize), from each string's decoded content and each
//     number's text as written, without decoding or encoding.
//   - In a document that names a member twice, the later member counts, as
//     in encoding/json (the engine's readers refuse such documents first).
//   - Validate reads a value outside the decoded-value model (a float64, a
//     []string, a string that is not UTF-8) as encoding/json encodes it, and
//     fails one it cannot encode (a NaN) with "trace is not JSON: ...".
//   - Rule 7 counts sub-trace levels below the root: the root is depth 0 and
//     a sub_trace of a root step is depth 1, so five nested levels pass and a
//     sixth fails. It follows any object sub_trace found in an object step of
//     a steps array, so it is well defined before the sub-traces themselves
//     have been validated.
//   - metadata.timestamp must match the RFC 3339 date-time grammar exactly
//     (four-digit year, two-digit fields, '.' before a fraction, "Z" or a
//     "+hh:mm"/"-hh:mm" offset; "T" and "Z" may be lower case, RFC 3339 §5.6)
//     and name a real instant: the JSON Schema date-time format's check
//     (jsonschema.IsDateTime, ranges and leap years included). A leap second
//     (time-second 60, RFC 3339 §5.6) is accepted at 23:59 UTC, as the
//     format accepts it; read as an instant (ParseTimestamp, for timing
//     checks) it is the last nanosecond of 23:59:59, since the time package
//     has no leap seconds.
//
// # Deviations from the specification
//
//   - §7 "Required Fields" says schema_version must be "current or previous
//     2" versions, but the "Schema Version Policy" table accepts only 1 and 0
//     and rejects anything older. The engine follows the table: 0 and 1 are
//     accepted (0 with a deprecation warning), everything else is rejected.
package trace
