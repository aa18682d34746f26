// recovery.go: the trace check error_recovery: failed tool calls are recovered, retries stay bounded.

package assert

import (
	"fmt"
	"strings"

	"attest-engine/jsonschema"
)

// recoveryCheck is the layer 3 check error_recovery {tool?, within_steps (3), max_identical_retries (1),
// alternatives?} (simulation capability): every failed tool call is followed, within within_steps later
// tool calls, by a successful call of the same tool or of an alternative; and no run of retries with
// identical args after a failure is longer than max_identical_retries.
type recoveryCheck struct {
	tool         string // "": every tool
	within       int64
	maxRetries   int64
	alternatives []string
}

func compileRecovery(s spec) (*recoveryCheck, error) {
	c := &recoveryCheck{within: 3, maxRetries: 1}
	var err error
	if c.tool, err = s.str("tool", false); err != nil {
		return nil, err
	}
	if c.alternatives, err = s.strs("alternatives", false); err != nil {
		return nil, err
	}
	if s.has("within_steps") {
		if c.within, err = nonNegativeInt(s, "within_steps"); err != nil {
			return nil, err
		}
		if c.within < 1 {
			return nil, specErrorf("Set 'within_steps' to 1 or more: the number of later tool calls in which a failure must be recovered.", "spec field 'within_steps' must be at least 1")
		}
	}
	if s.has("max_identical_retries") {
		if c.maxRetries, err = nonNegativeInt(s, "max_identical_retries"); err != nil {
			return nil, err
		}
	}
	return c, nil
}

// failed reports whether a tool step failed: it carries metadata.injected_fault (a fault the simulation
// injected), or its result is an object with an error member that is neither null nor false.
func failed(step any) bool {
	st, _ := step.(map[string]any)
	if md, ok := st["metadata"].(map[string]any); ok && md["injected_fault"] != nil {
		return true
	}
	res, ok := st["result"].(map[string]any)
	if !ok {
		return false
	}
	e, has := res["error"]
	return has && e != nil && e != false
}

func (c *recoveryCheck) applies(name string) bool { return c.tool == "" || name == c.tool }

func (c *recoveryCheck) eval(in *input, calls []toolCall) (bool, string) {
	ok := make([]bool, len(calls))
	args := make([]any, len(calls))
	for i, tc := range calls {
		st, _ := in.stepList()[tc.step].(map[string]any)
		ok[i], args[i] = !failed(st), st["args"]
	}
	// Retry runs: a call whose previous call of the same tool failed with equal args is an identical retry,
	// one more than that previous call's run; a run that passes the bound is named once, by its last call.
	run := make([]int64, len(calls))
	last := map[string]int{}
	var storms []string
	for i, tc := range calls {
		if p, seen := last[tc.name]; seen && !ok[p] && jsonschema.Equal(args[p], args[i]) {
			run[i] = run[p] + 1
		}
		last[tc.name] = i
	}
	next := make([]int, len(calls)) // the index of the next call of the same tool, or -1
	later := map[string]int{}
	for i := len(calls) - 1; i >= 0; i-- {
		next[i] = -1
		if j, ok := later[calls[i].name]; ok {
			next[i] = j
		}
		later[calls[i].name] = i
	}
	for i, tc := range calls {
		continues := next[i] >= 0 && run[next[i]] > run[i]
		if run[i] > c.maxRetries && !continues && c.applies(tc.name) {
			storms = append(storms, fmt.Sprintf("'%s' retried with identical args %d times by step %d", tc.name, run[i], tc.step))
		}
	}
	// A failure is recovered by the first later successful call of the same tool or of an alternative; both
	// are found in one backward pass (nextOK: the next successful call of each tool; nextAlt: the next
	// successful call of any alternative), so the check is linear whatever within_steps and alternatives are.
	alt := make(map[string]bool, len(c.alternatives))
	for _, a := range c.alternatives {
		alt[a] = true
	}
	recoverer := make([]int, len(calls)) // the index of the first later call that recovers call i, or -1
	nextOK := map[string]int{}
	nextAlt := -1
	for i := len(calls) - 1; i >= 0; i-- {
		r := nextAlt
		if j, seen := nextOK[calls[i].name]; seen && (r < 0 || j < r) {
			r = j
		}
		recoverer[i] = r
		if ok[i] {
			nextOK[calls[i].name] = i
			if alt[calls[i].name] {
				nextAlt = i
			}
		}
	}
	var unrecovered []string
	nFailed := 0
	for i, tc := range calls {
		if ok[i] || !c.applies(tc.name) {
			continue
		}
		nFailed++
		if r := recoverer[i]; r < 0 || int64(r-i) > c.within {
			unrecovered = append(unrecovered, fmt.Sprintf("'%s' at step %d", tc.name, tc.step))
		}
	}
	scope := "tool calls"
	if c.tool != "" {
		scope = fmt.Sprintf("calls of '%s'", c.tool)
	}
	var why []string
	if len(unrecovered) > 0 {
		why = append(why, fmt.Sprintf("failed %s not recovered within %d tool calls: %s", scope, c.within, listed(unrecovered)))
	}
	if len(storms) > 0 {
		why = append(why, fmt.Sprintf("more than %d identical %s: %s", c.maxRetries, retriesWord(c.maxRetries), listed(storms)))
	}
	if len(why) > 0 {
		return false, "Error recovery failed: " + strings.Join(why, "; ") + ". " + called(calls)
	}
	if nFailed == 0 {
		return true, fmt.Sprintf("No failed %s: nothing to recover.", scope)
	}
	if nFailed == 1 {
		return true, fmt.Sprintf("The one failed %s recovered within %d tool calls, with at most %d identical %s.", strings.Replace(scope, "calls", "call", 1), c.within, c.maxRetries, retriesWord(c.maxRetries))
	}
	return true, fmt.Sprintf("All %d failed %s recovered within %d tool calls, with at most %d identical %s.", nFailed, scope, c.within, c.maxRetries, retriesWord(c.maxRetries))
}

func retriesWord(n int64) string {
	if n == 1 {
		return "retry"
	}
	return "retries"
}

// listed joins items, naming at most maxListed of them.
func listed(items []string) string {
	if len(items) > maxListed {
		items = append(items[:maxListed:maxListed], fmt.Sprintf("… %d more", len(items)-maxListed))
	}
	return strings.Join(items, ", ")
}
