// faultrules.go: decoding a fault rule; the fields each kind allows.

package simulate

import (
	"slices"
	"sync"
)

var faultFields = sync.OnceValue(func() map[string][]string {
	return map[string][]string{
		KindError:     {"dialect", "message", "retry_after_ms", "status"},
		KindTimeout:   {"message", "ms"},
		KindLatency:   {"max_ms", "min_ms", "ms"},
		KindMalformed: {"field", "variant"},
		KindEmpty:     {},
		KindFailUntil: {"dialect", "k", "message", "retry_after_ms", "status"},
		KindInject:    {"field", "text"},
	}
})

func parseFault(i int, v any, ids map[string]string) (*Fault, error) {
	// The kind decides the allowed fields, so read it before checking names.
	obj, _ := v.(map[string]any)
	kind, _ := obj["kind"].(string)
	extra, known := faultFields()[kind]
	allowed := append([]string{"id", "kind", "rate", "tool"}, extra...)
	slices.Sort(allowed)
	r, err := newFields("faults", i, v, ids, allowed)
	if err != nil {
		return nil, err
	}
	if !known {
		return nil, r.fail("kind", "must be one of error, timeout, latency, malformed, empty, fail_until, inject")
	}
	f := &Fault{ID: r.id, Kind: kind, Rate: 1}
	if f.Tool, err = r.str("tool", true, maxPattern); err != nil {
		return nil, err
	}
	if rv, ok := r.obj["rate"]; ok {
		x, err := toFloat(rv)
		if err != nil || x < 0 || x > 1 {
			return nil, r.fail("rate", "must be a number from 0 to 1")
		}
		f.Rate = x
	}
	switch kind {
	case KindError, KindFailUntil:
		def := 500
		if kind == KindFailUntil {
			def = 503
			if !r.has("k") {
				return nil, r.fail("k", "required: the number of attempts that fail")
			}
			if f.K, err = r.integer("k", 1, MaxFailUntil, 0); err != nil {
				return nil, err
			}
		}
		if f.Status, err = r.integer("status", 0, 999, def); err != nil {
			return nil, err
		}
		if f.Status != 429 && f.Status != 500 && f.Status != 503 {
			return nil, r.fail("status", "must be 429, 500 or 503")
		}
		if f.RetryAfterMS, err = r.integer("retry_after_ms", 0, maxRetryAfter, 0); err != nil {
			return nil, err
		}
		if f.Dialect, err = r.str("dialect", false, 16); err != nil {
			return nil, err
		}
		switch f.Dialect {
		case "":
			f.Dialect = "openai"
		case "openai", "anthropic":
		default:
			return nil, r.fail("dialect", "must be openai or anthropic")
		}
		if f.Message, err = r.str("message", false, MaxText); err != nil {
			return nil, err
		}
	case KindTimeout:
		if f.MS, err = r.integer("ms", 0, MaxMS, 30_000); err != nil {
			return nil, err
		}
		if f.Message, err = r.str("message", false, MaxText); err != nil {
			return nil, err
		}
	case KindLatency:
		fixed, ranged := r.has("ms"), r.has("min_ms") || r.has("max_ms")
		switch {
		case fixed && ranged:
			return nil, r.fail("ms", "give ms or min_ms/max_ms, not both")
		case fixed:
			if f.MS, err = r.integer("ms", 0, MaxMS, 0); err != nil {
				return nil, err
			}
			f.MinMS, f.MaxMS = f.MS, f.MS
		case ranged:
			if !r.has("min_ms") || !r.has("max_ms") {
				return nil, r.fail("min_ms", "min_ms and max_ms go together")
			}
			if f.MinMS, err = r.integer("min_ms", 0, MaxMS, 0); err != nil {
				return nil, err
			}
			if f.MaxMS, err = r.integer("max_ms", f.MinMS, MaxMS, 0); err != nil {
				return nil, err
			}
		default:
			return nil, r.fail("ms", "required: ms, or min_ms and max_ms")
		}
	case KindMalformed:
		if f.Variant, err = r.str("variant", false, 32); err != nil {
			return nil, err
		}
		switch f.Variant {
		case "":
			f.Variant = "truncated"
		case "truncated", "wrong_type", "schema_violation":
		default:
			return nil, r.fail("variant", "must be truncated, wrong_type or schema_violation")
		}
		if f.Field, err = r.str("field", false, MaxIDLen); err != nil {
			return nil, err
		}
	case KindInject:
		if f.Text, err = r.str("text", false, MaxText); err != nil {
			return nil, err
		}
		if f.Text == "" {
			f.Text = defaultInject
		}
		if f.Field, err = r.str("field", false, MaxIDLen); err != nil {
			return nil, err
		}
	}
	return f, nil
}
