// dynamic.go: "threshold": "dynamic", a threshold learned from the history of
// earlier results (../shared/sdk-compat.md), when the engine keeps one.

package assert

import (
	"errors"
	"fmt"

	"attest-engine/resultkey"
)

// Thresholds learns a pass threshold for an assertion from history, by its
// assertion key (package resultkey: the history's key): the threshold, a
// sentence saying how it was learned, or why there is none.
type Thresholds func(assertionKey string) (threshold float64, why string, err error)

// ErrTooFewResults is what a Thresholds error wraps when the history holds
// too few earlier scored results of the assertion to learn from: the check
// is then judged against its type's default threshold while the history
// fills, and says so, so that a dynamic assertion's own scores build the
// history it learns from.
var ErrTooFewResults = errors.New("too few earlier results to learn a threshold")

// SetThresholds lets embedding and llm_judge assertions use "threshold":
// "dynamic", evaluated against the threshold t learns for their assertion
// key. Without it (the default), "dynamic" is an ASSERTION_ERROR. Call it
// before the engine evaluates anything.
func (e *Engine) SetThresholds(t Thresholds) { e.thresholds = t }

// dynamicCheck is a compiled check whose threshold is learned per assertion.
type dynamicCheck interface {
	check
	// isDynamic reports whether its spec asked for "threshold": "dynamic".
	isDynamic() bool
	// withThreshold returns a copy of the check using thr.
	withThreshold(thr float64) check
}

// readThreshold reads "threshold": a number in 0..1, default def, or, when
// the engine has history, the string "dynamic" (dynamic is then true).
func (e *Engine) readThreshold(s spec, def float64) (thr float64, dynamic bool, err error) {
	if str, ok := s["threshold"].(string); ok && str == "dynamic" {
		if e.thresholds == nil {
			return 0, false, specErrorf(fmt.Sprintf("This engine keeps no history of earlier runs, so it cannot learn a threshold: start it with --state-dir, or set 'threshold' to a number between 0 and 1 (default %s).", fmtNum(def)),
				"threshold 'dynamic' is not supported")
		}
		return def, true, nil
	}
	thr, err = readThreshold(s, def)
	return thr, false, err
}

// learn resolves a dynamic check's threshold from the history of its
// assertion key: the same type and spec in any earlier run, whatever its
// assertion_id.
func (e *Engine) learn(p prepared) (check, string, error) {
	d, ok := p.chk.(dynamicCheck)
	if !ok || !d.isDynamic() {
		return p.chk, "", nil
	}
	key, err := resultkey.Assertion(p.a.Type, p.a.Spec, p.a.AgentID, "")
	var thr float64
	var why string
	if err == nil {
		thr, why, err = e.thresholds(key)
	}
	if errors.Is(err, ErrTooFewResults) {
		// d holds the type's default threshold (readThreshold).
		return d, "the default while 'dynamic' learns: " + err.Error(), nil
	}
	if err != nil {
		return nil, "", &Error{AssertionID: p.a.ID, Message: "threshold 'dynamic': " + err.Error(),
			Detail: "A learned threshold needs earlier results of this assertion (the same type and spec: its assertion key) in the engine's history (--state-dir)."}
	}
	return d.withThreshold(thr), why, nil
}

func (c *embeddingCheck) withThreshold(thr float64) check {
	cp := *c
	cp.threshold = thr
	return &cp
}

func (c *judgeCheck) withThreshold(thr float64) check {
	cp := *c
	cp.threshold = thr
	return &cp
}

func (c *embeddingCheck) isDynamic() bool { return c.dynamic }
func (c *judgeCheck) isDynamic() bool     { return c.dynamic }
