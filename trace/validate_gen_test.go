// validate_gen_test.go: the big golden inputs, built in code rather than stored.

package trace

import (
	"encoding/json"
	"strconv"
	"strings"
)

// genBase is a small valid trace to grow.
func genBase() map[string]any {
	return map[string]any{
		"schema_version": json.Number("1"),
		"trace_id":       "trc_generated",
		"output":         map[string]any{"message": "ok"},
		"metadata":       map[string]any{"timestamp": "2026-02-18T10:30:00Z"},
	}
}

func genStepList(n int) []any {
	steps := make([]any, n)
	for i := range steps {
		steps[i] = map[string]any{
			"type":   "tool_call",
			"name":   "step_" + strconv.Itoa(i),
			"result": map[string]any{"ok": true},
		}
	}
	return steps
}

// genSize builds a trace whose compact encoding is exactly size bytes, by
// padding an unknown field.
func genSize(size int) func() any {
	return func() any {
		t := genBase()
		t["padding"] = ""
		t["padding"] = strings.Repeat("x", size-encodedSize(t, size))
		return t
	}
}

func genSteps(n int) func() any {
	return func() any {
		t := genBase()
		t["steps"] = genStepList(n)
		return t
	}
}

func genMessage(n int, char string) func() any {
	return func() any {
		t := genBase()
		t["output"] = map[string]any{"message": strings.Repeat(char, n)}
		return t
	}
}

// genResult builds a trace whose step 'process_refund' has a result of
// exactly size bytes: {"data":"…"} is 11 bytes around the string.
func genResult(size int) func() any {
	return func() any {
		t := genBase()
		t["steps"] = []any{
			map[string]any{"type": "tool_call", "name": "lookup_order", "result": map[string]any{"status": "delivered"}},
			map[string]any{"type": "tool_call", "name": "process_refund", "result": map[string]any{"data": strings.Repeat("x", size-11)}},
		}
		return t
	}
}

func genOrderOutputBeforeLimits() any {
	t := genSteps(MaxSteps + 1)().(map[string]any)
	delete(t, "output")
	return t
}

func genOrderSizeBeforeSteps() any {
	t := genSteps(MaxSteps + 1)().(map[string]any)
	t["padding"] = strings.Repeat("x", MaxTraceBytes)
	return t
}

func genOrderStepsBeforeMessage() any {
	t := genSteps(MaxSteps + 1)().(map[string]any)
	t["output"] = map[string]any{"message": strings.Repeat("a", MaxOutputChars+1)}
	return t
}

func genOrderLimitsBeforeFormats() any {
	t := genMessage(MaxOutputChars+1, "a")().(map[string]any)
	t["metadata"] = map[string]any{"timestamp": "yesterday"}
	t["agent_id"] = 7
	return t
}

func genOrderNameBeforeResult() any {
	t := genBase()
	t["steps"] = []any{map[string]any{"type": "tool_call", "name": "", "result": strings.Repeat("x", MaxStepResultBytes)}}
	return t
}
