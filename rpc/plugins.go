// plugins.go: submit_plugin_result (spec §2.4): SDK-side custom assertions, recorded like native results.

package rpc

import (
	"fmt"
	"math"

	"attest-engine/assert"
)

// submitPluginResult validates and records one plugin result. It is cheap,
// so it runs in the read loop, in arrival order. An accepted result is
// treated "identically to natively evaluated assertions for reporting
// purposes" (spec §2.4): counted in assertions_evaluated, recorded under its
// trace_id and suite, and counted in the suite's soft-failure budget, which
// may report a soft_fail as hard_fail.
//
// Spec §2.4: plugin_name "Must be unique within the test suite." The engine
// reads this as: within one suite and one trace_id, a plugin submits each
// assertion_id once. A second submission of the same (suite, trace_id,
// plugin_name, assertion_id) is a duplicate: answered ASSERTION_ERROR and
// neither counted nor recorded. The same plugin may judge many traces, and
// two plugins may use the same assertion_id.
func (s *Server) submitPluginResult(req *request) {
	k, r, err := pluginResult(req.params)
	if err == nil {
		err = s.budgets.admit(k.suite)
	}
	if err != nil {
		s.replyError(req, s.toWire(err))
		return
	}
	submitted := r.Status
	if s.budgets.addPlugin(k, &r) {
		where := "trace '" + k.traceID + "'"
		if k.suite != "" {
			where += " in suite '" + k.suite + "'"
		}
		s.replyError(req, s.toWire(&assert.Error{AssertionID: k.assertionID,
			Message: fmt.Sprintf("duplicate plugin result: plugin '%s' already submitted this assertion for %s", k.plugin, where),
			Detail:  "Each plugin submits an assertion_id once per trace and suite; use a new assertion_id for another result."}))
		return
	}
	s.assertions.Add(1)
	s.record.add(k.traceID, k.suite, k.plugin, r)
	s.log.Info("plugin result recorded", "trace_id", k.traceID, "plugin_name", k.plugin, "assertion_id", k.assertionID, "status", string(r.Status))
	b := appendHead(make([]byte, 0, 96), req.id)
	b = append(b, `,"result":{"accepted":true`...)
	if r.Status != submitted {
		// Additive field: the budget turned this soft_fail into a hard_fail.
		b = append(b, `,"status":"hard_fail"`...)
	}
	b = append(b, "}}\n"...)
	s.reply(req, b)
}

// pluginResult reads and checks the params of submit_plugin_result (spec
// §2.4 table). Every problem is an ASSERTION_ERROR naming the field.
func pluginResult(p map[string]any) (pluginKey, assert.Result, error) {
	var k pluginKey
	id, idOK := p["assertion_id"].(string)
	fail := func(format string, args ...any) (pluginKey, assert.Result, error) {
		return k, assert.Result{}, &assert.Error{AssertionID: id, Message: fmt.Sprintf(format, args...),
			Detail: "submit_plugin_result takes {trace_id, plugin_name, assertion_id, result: {status, score, explanation, metadata?}, suite?} (spec §2.4)."}
	}
	if !idOK || id == "" {
		return fail("missing required field 'assertion_id': a non-empty string")
	}
	for _, f := range []struct {
		name string
		dst  *string
	}{{"trace_id", &k.traceID}, {"plugin_name", &k.plugin}} {
		v, ok := p[f.name].(string)
		if !ok || v == "" {
			if _, present := p[f.name]; present {
				return fail("field '%s' must be a non-empty string", f.name)
			}
			return fail("missing required field '%s'", f.name)
		}
		*f.dst = v
	}
	k.assertionID = id
	switch v := p["suite"].(type) {
	case string:
		k.suite = v
	case nil:
	default:
		return fail("field 'suite' must be a string")
	}
	res, ok := p["result"].(map[string]any)
	if !ok {
		if _, present := p["result"]; present {
			return fail("field 'result' must be an object")
		}
		return fail("missing required field 'result'")
	}
	r := assert.Result{AssertionID: id}
	status, ok := res["status"].(string)
	switch {
	case !ok && res["status"] == nil:
		return fail("missing required field 'result.status'")
	case status != string(assert.Pass) && status != string(assert.SoftFail) && status != string(assert.HardFail):
		return fail("result.status must be one of pass, soft_fail, hard_fail, got %s", describe(res["status"]))
	}
	r.Status = assert.Status(status)
	if res["score"] == nil {
		return fail("missing required field 'result.score'")
	}
	score, ok := number(res["score"])
	if !ok {
		return fail("result.score must be a number, got %s", describe(res["score"]))
	}
	if score < 0 || score > 1 {
		return fail("result.score %v is outside 0.0 to 1.0", res["score"])
	}
	r.Score = score
	if res["explanation"] == nil {
		return fail("missing required field 'result.explanation'")
	}
	if r.Explanation, ok = res["explanation"].(string); !ok {
		return fail("result.explanation must be a string, got %s", describe(res["explanation"]))
	}
	switch res["metadata"].(type) {
	case map[string]any, nil:
	default:
		return fail("result.metadata must be an object, got %s", describe(res["metadata"]))
	}
	return k, r, nil
}

// number reads a finite JSON number.
func number(v any) (float64, bool) {
	n, ok := v.(interface{ Float64() (float64, error) })
	if !ok {
		return 0, false
	}
	f, err := n.Float64()
	return f, err == nil && !math.IsNaN(f) && !math.IsInf(f, 0)
}

// describe names a value's JSON type, or quotes a string, for messages.
func describe(v any) string {
	switch x := v.(type) {
	case nil:
		return "null"
	case bool:
		return "a boolean"
	case string:
		return "'" + x + "'"
	case []any:
		return "an array"
	case map[string]any:
		return "an object"
	}
	return "a number"
}
