// validate_test.go: golden tests for Validate, one case per spec §7 rule, boundary and order-of-checks cases.

package trace

import (
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

var update = flag.Bool("update", false, "rewrite golden files")

// goldenDir holds NAME.json (a trace, absent for generated cases) and
// NAME.golden (Validate's warnings and error) for every case below.
const goldenDir = "../testdata/trace/validate"

type validateCase struct {
	name   string
	reason string
	strict bool       // Options.Strict
	gen    func() any // builds the input in code (big inputs); nil: read NAME.json
}

var validateCases = []validateCase{
	// Valid traces.
	{name: "valid_refund", reason: "the spec §2.2 refund trace"},
	{name: "valid_minimal", reason: "only the required fields"},
	{name: "valid_agent_call", reason: "the refund trace plus the spec §3.3 agent_call step with its sub_trace"},
	{name: "valid_nulls", reason: "null optional fields count as absent"},
	{name: "valid_timestamp_null", reason: "a null metadata.timestamp counts as absent"},
	{name: "valid_unknown_fields", reason: "spec §6: unknown fields are ignored"},
	{name: "valid_unknown_step_type_lax", reason: "spec §6 item 6: unknown step types tolerated in lax mode, with a warning"},
	{name: "valid_unknown_step_types_one_warning", reason: "several unknown types in one trace: one warning, naming the first"},
	{name: "valid_unknown_step_type_long", reason: "docs/security.md: an unknown type is clipped to 64 bytes in its warning, at a rune boundary"},
	{name: "valid_timestamp_offset_fraction", reason: "RFC 3339 with a long fraction and a numeric offset"},
	{name: "valid_timestamp_lower_case", reason: "RFC 3339 §5.6 allows lower-case t and z; Feb 29 of a leap year"},
	{name: "valid_timestamp_leap_second", reason: "RFC 3339 §5.6 time-second 60: a leap second at 23:59 UTC"},
	{name: "valid_timestamp_leap_second_offset", reason: "a leap second at 23:59 UTC through a -05:00 offset, with a fraction"},
	{name: "valid_whitespace_step_name", reason: "a step name need only be non-empty"},
	{name: "valid_empty_steps", reason: "steps may be empty"},
	{name: "valid_agent_call_without_sub_trace", reason: "sub_trace is optional on agent_call"},
	{name: "valid_sub_trace_null_on_tool_call", reason: "a null sub_trace is absent, so allowed on any step"},
	{name: "valid_output_message_not_string", reason: "output's shape is agent-defined"},
	{name: "valid_strict_known_types", reason: "strict mode accepts the four spec types", strict: true},

	// Rule 1: the trace is an object.
	{name: "not_object_array", reason: "an array is not a trace"},
	{name: "not_object_string", reason: "a string is not a trace"},
	{name: "not_object_null", reason: "null is not a trace"},

	// Rule 2: schema_version.
	{name: "schema_version_0", reason: "previous version: accepted with a deprecation warning"},
	{name: "schema_version_1_0", reason: "1.0 is the integer 1"},
	{name: "schema_version_exponent", reason: "10e-1 is the integer 1"},
	{name: "schema_version_almost_1", reason: "exact: not an integer although its float64 is 1"},
	{name: "schema_version_huge", reason: "1e400 is an integer, newer than supported"},
	{name: "schema_version_missing", reason: "required"},
	{name: "schema_version_null", reason: "null is not an integer"},
	{name: "schema_version_string", reason: `"1" is not an integer`},
	{name: "schema_version_fraction", reason: "1.5 is not an integer"},
	{name: "schema_version_negative", reason: "older than 0: migration message"},
	{name: "schema_version_newer", reason: "newer than 1: upgrade the engine"},

	// Rule 3: required fields.
	{name: "trace_id_missing", reason: "the spec §5 example, to the letter"},
	{name: "trace_id_null", reason: "present with the wrong type"},
	{name: "trace_id_number", reason: "wrong type"},
	{name: "trace_id_empty", reason: "non-empty string"},
	{name: "trace_id_whitespace", reason: "no whitespace-only values, Unicode white space included"},
	{name: "output_missing", reason: "required"},
	{name: "output_null", reason: "non-null object"},
	{name: "output_array", reason: "object"},
	{name: "output_string", reason: "object"},
	{name: "output_empty", reason: "at least one field"},

	// Rule 4: size and count limits.
	{name: "gen_size_at_limit", reason: "exactly 10485760 bytes passes", gen: genSize(MaxTraceBytes)},
	{name: "gen_size_over_limit", reason: "10485761 bytes fails, size reported exactly", gen: genSize(MaxTraceBytes + 1)},
	{name: "gen_steps_at_limit", reason: "exactly 10000 steps pass", gen: genSteps(MaxSteps)},
	{name: "gen_steps_over_limit", reason: "10001 steps fail", gen: genSteps(MaxSteps + 1)},
	{name: "gen_message_at_limit", reason: "500000 two-byte characters pass: code points, not bytes", gen: genMessage(MaxOutputChars, "é")},
	{name: "gen_message_over_limit", reason: "500001 characters fail", gen: genMessage(MaxOutputChars+1, "a")},

	// Rule 5: field types and formats.
	{name: "agent_id_number", reason: "agent_id is a string"},
	{name: "input_array", reason: "input is an object"},
	{name: "steps_object", reason: "steps is an array"},
	{name: "metadata_string", reason: "metadata is an object"},
	{name: "timestamp_number", reason: "a Unix time is not RFC 3339"},
	{name: "timestamp_space", reason: "a space for T is outside the RFC 3339 grammar"},
	{name: "timestamp_no_offset", reason: "RFC 3339 requires an offset"},
	{name: "timestamp_one_digit_hour", reason: "Go accepts it, RFC 3339 does not"},
	{name: "timestamp_comma_fraction", reason: "Go accepts it, RFC 3339 does not"},
	{name: "timestamp_feb_29_non_leap", reason: "the grammar fits but the day does not exist"},
	{name: "timestamp_offset_24", reason: "offset hours run 00-23"},
	{name: "timestamp_leap_second_wrong_minute", reason: "RFC 3339 §5.7: a leap second ends a UTC day, 23:58:60 is none"},
	{name: "parent_trace_id_empty", reason: "non-empty string or explicit null"},
	{name: "parent_trace_id_number", reason: "string or null"},

	// Rule 6: steps.
	{name: "step_not_object", reason: "each step is an object"},
	{name: "step_type_missing", reason: "type is required"},
	{name: "step_type_number", reason: "type is a string"},
	{name: "step_type_empty", reason: "an empty type is rejected even in lax mode"},
	{name: "step_type_unknown_strict", reason: "unknown types rejected in strict mode", strict: true},
	{name: "step_name_missing", reason: "name is required"},
	{name: "step_name_number", reason: "name is a string"},
	{name: "step_name_empty", reason: "name is non-empty; the message names the index"},
	{name: "gen_result_at_limit", reason: "a result of exactly 1048576 bytes passes", gen: genResult(MaxStepResultBytes)},
	{name: "gen_result_over_limit", reason: "1048577 bytes fail with the spec §7 message", gen: genResult(MaxStepResultBytes + 1)},
	{name: "sub_trace_on_tool_call", reason: "sub_trace only on agent_call"},
	{name: "sub_trace_not_object", reason: "sub_trace is a trace object"},

	// Rule 7: sub-trace depth.
	{name: "depth_5", reason: "five levels below the root pass"},
	{name: "depth_6", reason: "a sixth level fails"},

	// Sub-traces: rules 2 to 6 again, errors prefixed with where they are.
	{name: "sub_trace_missing_trace_id", reason: "the brief's example: escalation_agent at steps[2]"},
	{name: "sub_trace_nested_error", reason: "two levels down: both prefixes, outermost first"},
	{name: "sub_trace_schema_version_0", reason: "the deprecation warning names the sub-trace"},
	{name: "sub_trace_unknown_type_strict", reason: "strict mode applies to sub-traces", strict: true},
	{name: "warnings_kept_on_error", reason: "warnings so far are returned with the error"},

	// Order of checks: the earliest rule in the spec's order wins.
	{name: "order_schema_before_required", reason: "rule 2 before rule 3"},
	{name: "order_trace_id_before_output", reason: "trace_id before output within rule 3"},
	{name: "gen_order_output_before_limits", reason: "rule 3 before rule 4", gen: genOrderOutputBeforeLimits},
	{name: "gen_order_size_before_steps", reason: "size before step count within rule 4", gen: genOrderSizeBeforeSteps},
	{name: "gen_order_steps_before_message", reason: "step count before output.message within rule 4", gen: genOrderStepsBeforeMessage},
	{name: "gen_order_limits_before_formats", reason: "rule 4 before rule 5", gen: genOrderLimitsBeforeFormats},
	{name: "order_formats_before_steps", reason: "rule 5 before rule 6"},
	{name: "order_agent_id_before_timestamp", reason: "rule 5 follows the §3.2 field order"},
	{name: "order_within_step", reason: "type before name within a step"},
	{name: "order_earlier_step_first", reason: "steps in index order"},
	{name: "gen_order_name_before_result", reason: "name before payload size within a step", gen: genOrderNameBeforeResult},
	{name: "order_steps_before_depth", reason: "rule 6 before rule 7"},
	{name: "order_depth_before_sub_trace", reason: "rule 7 before the sub-traces' own rules"},
	{name: "order_root_steps_before_sub_trace", reason: "all root steps before any sub-trace"},
}

// golden is what a case's NAME.golden holds.
type golden struct {
	Warnings []string     `json:"warnings"`
	Error    *goldenError `json:"error"`
}

type goldenError struct {
	Message string `json:"message"`
	Detail  string `json:"detail"`
}

func TestValidateGolden(t *testing.T) {
	for _, c := range validateCases {
		t.Run(c.name, func(t *testing.T) {
			v, n := c.input(t)
			warnings, err := Validate(v, Options{Strict: c.strict})
			// Knowing the source's length may spare measuring, never change the outcome.
			if w2, e2 := Validate(v, Options{Strict: c.strict, SourceBytes: n}); !cmp.Equal(warnings, w2) || !cmp.Equal(err, e2) {
				t.Errorf("with SourceBytes %d: %v, %v; without: %v, %v", n, w2, e2, warnings, err)
			}
			got := golden{Warnings: warnings}
			if got.Warnings == nil {
				got.Warnings = []string{}
			}
			if err != nil {
				got.Error = &goldenError{Message: err.Message, Detail: err.Detail}
				if err.Message == "" || err.Detail == "" || err.Error() != err.Message {
					t.Errorf("error without message or detail: %+v", err)
				}
			}
			path := filepath.Join(goldenDir, c.name+".golden")
			if *update {
				var buf bytes.Buffer
				enc := json.NewEncoder(&buf)
				enc.SetEscapeHTML(false)
				enc.SetIndent("", "  ")
				if err := enc.Encode(got); err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(path, buf.Bytes(), 0o644); err != nil {
					t.Fatal(err)
				}
				return
			}
			data, rerr := os.ReadFile(path)
			if rerr != nil {
				t.Fatalf("%v (run go test ./trace/ -update)", rerr)
			}
			var want golden
			if err := json.Unmarshal(data, &want); err != nil {
				t.Fatalf("%s: %v", path, err)
			}
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("Validate mismatch for %s (%s) (-want +got):\n%s", c.name, c.reason, diff)
			}
		})
	}
}

// input returns the case's trace and the length of a source text for it:
// the file's, or the compact encoding's for a generated trace.
func (c validateCase) input(t testing.TB) (any, int) {
	if c.gen != nil {
		v := c.gen()
		return v, encodedSize(v, math.MaxInt)
	}
	data, err := os.ReadFile(filepath.Join(goldenDir, c.name+".json"))
	if err != nil {
		t.Fatal(err)
	}
	v, err := Decode(data)
	if err != nil {
		t.Fatalf("%s.json: %v", c.name, err)
	}
	return v, len(data)
}

// TestValidateGoldenFiles keeps the directory and the table in step: every
// file belongs to a case and every case has its files.
func TestValidateGoldenFiles(t *testing.T) {
	entries, err := os.ReadDir(goldenDir)
	if err != nil {
		t.Fatal(err)
	}
	var files, want []string
	for _, e := range entries {
		files = append(files, e.Name())
	}
	for _, c := range validateCases {
		want = append(want, c.name+".golden")
		if c.gen == nil {
			want = append(want, c.name+".json")
		}
		if c.gen != nil != strings.HasPrefix(c.name, "gen_") {
			t.Errorf("case %s: generated cases, and only they, are named gen_*", c.name)
		}
	}
	slices.Sort(want)
	if *update {
		return // new goldens are being written
	}
	if diff := cmp.Diff(want, files); diff != "" {
		t.Errorf("%s does not match the case table (-table +dir):\n%s", goldenDir, diff)
	}
}

// TestKind: every value Decode returns is named by its JSON type, as the
// messages of spec §7 and of jsonschema name it.
func TestKind(t *testing.T) {
	for in, want := range map[string]string{
		`null`: "null", `true`: "boolean", `"s"`: "string", `-1.5e3`: "number",
		`[]`: "array", `{}`: "object",
	} {
		v, err := Decode([]byte(in))
		if err != nil {
			t.Fatal(err)
		}
		if got := Kind(v); got != want {
			t.Errorf("Kind(%s) = %q, want %q", in, got, want)
		}
	}
}

// TestSizeDetail: the size detail is the spec's text and names the real limit.
func TestSizeDetail(t *testing.T) {
	if want := fmt.Sprintf("Max allowed: %d bytes (10 MB).", MaxTraceBytes); !strings.HasSuffix(SizeDetail, want) {
		t.Errorf("SizeDetail %q does not end %q", SizeDetail, want)
	}
}
