// fault.go: what each fault kind does to the answer of a matched call.

package simulate

import (
	"fmt"
	"slices"
	"strings"

	"attest-engine/clip"
)

// fired describes a fault that fired, as the answer's fault member shows it.
func (f *Fault) fired(extra map[string]any) map[string]any {
	m := map[string]any{"id": f.ID, "kind": f.Kind}
	for k, v := range extra {
		m[k] = v
	}
	return m
}

// apply perturbs a: its result or error, and its latency. d is the fault's decision digest.
func (f *Fault) apply(a *Answer, d [32]byte) {
	switch f.Kind {
	case KindError, KindFailUntil:
		a.Result, a.HasError, a.Error = nil, true, f.providerError()
		extra := map[string]any{"status": f.Status}
		if f.RetryAfterMS > 0 {
			extra["retry_after_ms"] = f.RetryAfterMS
		}
		if f.Kind == KindFailUntil {
			extra["k"] = f.K
			extra["attempt"] = a.Attempt
		}
		a.Fault = f.fired(extra)
	case KindTimeout:
		msg := f.Message
		if msg == "" {
			msg = fmt.Sprintf("tool call timed out after %d ms", f.MS)
		}
		a.Result, a.HasError = nil, true
		a.Error = map[string]any{"timeout": true, "message": msg}
		a.LatencyMS = f.MS
		a.Fault = f.fired(map[string]any{"ms": f.MS})
	case KindLatency:
		a.LatencyMS = Pick(d, f.MinMS, f.MaxMS)
		a.Fault = f.fired(map[string]any{"ms": a.LatencyMS})
	case KindMalformed:
		a.Result = malform(decoded(a.Result), f.Variant, f.Field)
		a.Fault = f.fired(map[string]any{"variant": f.Variant})
	case KindEmpty:
		a.Result = empty(decoded(a.Result))
		a.Fault = f.fired(nil)
	case KindInject:
		// The canary is reported only when the text carries it: a canary the text does not hold could
		// never be found downstream, and a check for its absence would pass for nothing.
		var extra map[string]any
		text := f.Text
		if strings.Contains(text, "{canary}") {
			canary := Canary(d)
			text = strings.ReplaceAll(text, "{canary}", canary)
			extra = map[string]any{"canary": canary}
		}
		a.Result = inject(decoded(a.Result), text, f.Field)
		a.Fault = f.fired(extra)
	}
}

// decoded is a result as a value to change: a mock's payload is kept as canonical text (Mock), read here
// for the fault that changes it. Reading canonical text gives back the value it was made from, and that
// value's canonical text is the text (its numbers as json.Number, written as they were).
func decoded(v any) any {
	if t, ok := v.(Text); ok {
		if x, err := t.Value(); err == nil {
			return x
		}
	}
	return v
}

// providerError is an HTTP error as the named provider's API writes its body, with the status and the
// retry delay beside it for SDKs that do not parse the body.
func (f *Fault) providerError() map[string]any {
	msg := f.Message
	if msg == "" {
		switch f.Status {
		case 429:
			msg = "Rate limit reached for requests. Please retry later."
		case 503:
			msg = "The service is temporarily overloaded. Please retry later."
		default:
			msg = "The server had an error while processing the request."
		}
	}
	var body map[string]any
	if f.Dialect == "anthropic" {
		t := map[int]string{429: "rate_limit_error", 500: "api_error", 503: "overloaded_error"}[f.Status]
		body = map[string]any{"type": "error", "error": map[string]any{"type": t, "message": msg}}
	} else {
		t := map[int]string{429: "rate_limit_exceeded", 500: "server_error", 503: "server_error"}[f.Status]
		body = map[string]any{"error": map[string]any{"message": msg, "type": t, "param": nil, "code": nil}}
	}
	e := map[string]any{"status": f.Status, "message": msg, "body": body}
	if f.RetryAfterMS > 0 {
		e["retry_after_ms"] = f.RetryAfterMS
	}
	return e
}

// firstKey is the first member name of obj in canonical order, or "".
func firstKey(obj map[string]any, want func(any) bool) string {
	keys := make([]string, 0, len(obj))
	for k, v := range obj {
		if want == nil || want(v) {
			keys = append(keys, k)
		}
	}
	if len(keys) == 0 {
		return ""
	}
	slices.SortFunc(keys, compareUTF16)
	return keys[0]
}

// malform breaks a result. truncated: the first half of its canonical text, as a string (cut on a
// character boundary); wrong_type: the field (or the whole result) as a value of another type (a string
// becomes a one-element array, anything else its canonical text); schema_violation: the field (default: the
// first member in canonical order) removed from an object result, any other result replaced by
// {"unexpected": true}. Mock values are shared, so changed objects are copies.
func malform(v any, variant, field string) any {
	switch variant {
	case "truncated":
		c, _ := Canonical(v)
		return string(c[:clip.Boundary(c, len(c)/2)])
	case "wrong_type":
		if obj, ok := v.(map[string]any); ok && field != "" {
			if fv, ok := obj[field]; ok {
				cp := copyObject(obj)
				cp[field] = retype(fv)
				return cp
			}
		}
		return retype(v)
	default: // schema_violation
		obj, ok := v.(map[string]any)
		if !ok || len(obj) == 0 {
			return map[string]any{"unexpected": true}
		}
		if _, has := obj[field]; !has {
			field = firstKey(obj, nil)
		}
		cp := copyObject(obj)
		delete(cp, field)
		return cp
	}
}

func retype(v any) any {
	if s, ok := v.(string); ok {
		return []any{s}
	}
	c, _ := Canonical(v)
	return string(c)
}

// empty is the empty value of the result's type: {}, [], "" or null.
func empty(v any) any {
	switch v.(type) {
	case map[string]any:
		return map[string]any{}
	case []any:
		return []any{}
	case string:
		return ""
	}
	return nil
}

// inject places text into the result: appended (after a blank line) to the named string member, or to the
// first string member in canonical order, or set as member "note" when the object has none; appended to a
// string result; added as the last element of an array; a scalar becomes {"value": v, "note": text}.
func inject(v any, text, field string) any {
	switch x := v.(type) {
	case string:
		return x + "\n\n" + text
	case []any:
		return append(slices.Clip(x), text)
	case map[string]any:
		if field == "" {
			field = firstKey(x, func(e any) bool { _, ok := e.(string); return ok })
		}
		if field == "" {
			field = "note"
		}
		cp := copyObject(x)
		if s, ok := x[field].(string); ok {
			cp[field] = s + "\n\n" + text
		} else {
			cp[field] = text
		}
		return cp
	}
	return map[string]any{"value": v, "note": text}
}

func copyObject(m map[string]any) map[string]any {
	cp := make(map[string]any, len(m)+1)
	for k, v := range m {
		cp[k] = v
	}
	return cp
}
