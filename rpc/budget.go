// budget.go: per-test-suite soft-failure budgets (spec §2.1, capability soft_failures): config, counts, escalation.

package rpc

import (
	"fmt"
	"sort"
	"strconv"
	"strings"
	"sync"

	"attest-engine/assert"
)

// suiteCounts are one suite's numbers, reported by shutdown.
type suiteCounts struct {
	soft      int64 // soft failures that stayed soft
	escalated int64 // soft failures reported as hard_fail: the budget was spent
	evaluated int64 // results counted in the suite, of every status
}

// pluginKey identifies a plugin result: within one suite and trace, a plugin
// submits each assertion_id once.
type pluginKey struct{ suite, traceID, plugin, assertionID string }

// ledger is a session's suite state. A single mutex covers a whole batch,
// so concurrent batches of one suite count correctly and each batch's soft
// failures are decided together, in result order.
//
// Both of its tables grow with what the SDK sends, and an engine serving
// continuous evaluation may run for weeks, so both are bounded: a session
// counts at most maxSuites suites (admit refuses a new name beyond that,
// give or take the batches already in flight), and remembers the last
// maxPluginKeys plugin results for duplicate detection (an older one sent
// again is accepted again).
type ledger struct {
	cfg assert.BudgetConfig
	// batchCap is ATTEST_BUDGET_MAX_COST as the earlier engine read it: the
	// most soft failures one batch may report; nil: no cap.
	batchCap   *int64
	mu         sync.Mutex
	counts     map[string]*suiteCounts
	plugins    map[pluginKey]bool
	pluginRing []pluginKey // the keys in plugins, oldest at pluginNext once full
	pluginNext int
}

const (
	maxSuites     = 1024
	maxPluginKeys = 1 << 16
)

func newLedger(cfg assert.BudgetConfig) *ledger {
	return &ledger{cfg: cfg, counts: map[string]*suiteCounts{}, plugins: map[pluginKey]bool{}}
}

// admit reports whether results of suite can be counted: it is counted
// already, or there is room for one more suite.
func (l *ledger) admit(suite string) error {
	l.mu.Lock()
	defer l.mu.Unlock()
	if _, ok := l.counts[suite]; ok || len(l.counts) < maxSuites {
		return nil
	}
	return newError(codeInvalidParams, fmt.Sprintf("A session counts at most %d suites; send further results under a suite it already counts, or start a new engine process.", maxSuites),
		"invalid params: too many suites in this session")
}

func (l *ledger) budget(suite string) (assert.Budget, bool) {
	if b, ok := l.cfg.Suites[suite]; ok {
		return b, true
	}
	if l.cfg.Default != nil {
		return *l.cfg.Default, true
	}
	return assert.Budget{}, false
}

// apply counts results into suite and escalates the soft failures beyond the
// suite's budget to hard_fail, saying so in the explanation. No result is
// dropped. Results the engine skipped (never evaluated) are not counted.
// The results of a batch count as evaluated before its soft failures are
// decided, so a fraction budget sees the whole batch.
func (l *ledger) apply(suite string, results []assert.Result) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.applyLocked(suite, results)
}

func (l *ledger) applyLocked(suite string, results []assert.Result) {
	if len(results) == 0 {
		return // an empty batch does not open a suite
	}
	c := l.counts[suite]
	if c == nil {
		c = &suiteCounts{}
		l.counts[suite] = c
	}
	for _, r := range results {
		if !r.Skipped {
			c.evaluated++
		}
	}
	b, limited := l.budget(suite)
	for i := range results {
		r := &results[i]
		if r.Skipped || r.Status != assert.SoftFail {
			continue
		}
		if !limited || b.Allows(c.soft+1, c.evaluated) {
			c.soft++
			continue
		}
		c.escalated++
		r.Status = assert.HardFail
		r.Explanation = escalationNote(r.Explanation, suite, b, c)
	}
	if l.batchCap != nil {
		n := int64(0)
		for i := range results {
			r := &results[i]
			if r.Skipped || r.Status != assert.SoftFail {
				continue
			}
			if n++; n > *l.batchCap {
				c.soft--
				c.escalated++
				r.Status = assert.HardFail
				r.Explanation = fmt.Sprintf("%s [ATTEST_BUDGET_MAX_COST=%d: at most %d soft failures per batch (the earlier engine's reading of it): reported as hard_fail.]",
					strings.TrimRight(r.Explanation, " "), *l.batchCap, *l.batchCap)
			}
		}
	}
}

// escalationNote appends why a soft failure is reported as hard_fail.
func escalationNote(explanation, suite string, b assert.Budget, c *suiteCounts) string {
	name := "the unnamed suite"
	if suite != "" {
		name = "suite '" + suite + "'"
	}
	if explanation != "" && explanation[len(explanation)-1] != ' ' {
		explanation += " "
	}
	return fmt.Sprintf("%s[Soft-failure budget of %s exceeded (%s; %d soft failures of %d results so far): reported as hard_fail.]",
		explanation, name, b, c.soft+c.escalated, c.evaluated)
}

// addPlugin records a plugin result's key and counts it, atomically; it
// reports a duplicate and counts nothing when the key was seen before.
func (l *ledger) addPlugin(k pluginKey, r *assert.Result) (duplicate bool) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.plugins[k] {
		return true
	}
	l.plugins[k] = true
	if len(l.pluginRing) < maxPluginKeys {
		l.pluginRing = append(l.pluginRing, k)
	} else {
		delete(l.plugins, l.pluginRing[l.pluginNext])
		l.pluginRing[l.pluginNext] = k
		l.pluginNext = (l.pluginNext + 1) % maxPluginKeys
	}
	results := []assert.Result{*r}
	l.applyLocked(k.suite, results)
	*r = results[0]
	return false
}

// appendCounts writes {"<suite>":{"soft":n,"escalated":m,"evaluated":k},…}
// in order of suite name; the unnamed suite is "".
func (l *ledger) appendCounts(b []byte) []byte {
	l.mu.Lock()
	defer l.mu.Unlock()
	names := make([]string, 0, len(l.counts))
	for n := range l.counts {
		names = append(names, n)
	}
	sort.Strings(names)
	b = append(b, '{')
	for i, n := range names {
		if i > 0 {
			b = append(b, ',')
		}
		c := l.counts[n]
		b = appendString(b, n)
		b = append(b, `:{"soft":`...)
		b = strconv.AppendInt(b, c.soft, 10)
		b = append(b, `,"escalated":`...)
		b = strconv.AppendInt(b, c.escalated, 10)
		b = append(b, `,"evaluated":`...)
		b = strconv.AppendInt(b, c.evaluated, 10)
		b = append(b, '}')
	}
	return append(b, '}')
}
