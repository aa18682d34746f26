// kw_logic.go holds the in-place applicators that combine subschemas (core spec §10.2): allOf, anyOf,
// oneOf, not, if/then/else and dependentSchemas.

package jsonschema

// allOfKw: "An instance validates successfully against this keyword if it validates successfully against
// all schemas defined by this keyword's value" (§10.2.1.1).
type allOfKw struct {
	subs []child
}

func (k *allOfKw) eval(v *validator, inst any, ann *annot) bool {
	ok := true
	for _, c := range k.subs {
		if !v.evalIn(c, inst, ann) {
			ok = false
			if !v.detail {
				break
			}
		}
	}
	return ok
}

// anyOfKw (§10.2.1.2). When annotations are being collected every branch is evaluated, since each
// successful branch contributes its annotations.
type anyOfKw struct {
	at   string
	subs []child
}

func (k *anyOfKw) eval(v *validator, inst any, ann *annot) bool {
	mark := len(v.units)
	matched := false
	for _, c := range k.subs {
		if ok, ca := v.evalAlt(c, inst, ann != nil); ok {
			matched = true
			if ann == nil {
				break
			}
			ann.merge(ca)
		}
	}
	if matched {
		v.units = v.units[:mark]
		return true
	}
	v.failf(k.at, "anyOf", "value does not match any of the %d anyOf schemas", len(k.subs))
	return false
}

// oneOfKw (§10.2.1.3): exactly one branch must succeed.
type oneOfKw struct {
	at   string
	subs []child
}

func (k *oneOfKw) eval(v *validator, inst any, ann *annot) bool {
	mark := len(v.units)
	first := -1
	var firstAnn *annot
	for i, c := range k.subs {
		ok, ca := v.evalAlt(c, inst, ann != nil)
		if !ok {
			continue
		}
		if first >= 0 {
			v.units = v.units[:mark]
			v.failf(k.at, "oneOf", "value matches both oneOf schema %d and %d, want exactly one", first, i)
			return false
		}
		first, firstAnn = i, ca
	}
	if first < 0 {
		v.failf(k.at, "oneOf", "value does not match any of the %d oneOf schemas", len(k.subs))
		return false
	}
	v.units = v.units[:mark]
	if ann != nil {
		ann.merge(firstAnn)
	}
	return true
}

// notKw (§10.2.1.4). Its subschema's annotations are never kept.
type notKw struct {
	at  string
	sub child
}

func (k *notKw) eval(v *validator, inst any, _ *annot) bool {
	mark := len(v.units)
	ok := v.evalIn(k.sub, inst, nil)
	v.units = v.units[:mark]
	if ok {
		v.failf(k.at, "not", "value must not match the schema in \"not\"")
	}
	return !ok && v.fatal == nil
}

// ifKw holds if, then and else (§10.2.2). "if" only selects the branch, its failures are not errors; its
// annotations count when it succeeds.
type ifKw struct {
	cond      child
	then, els child // n is nil when the keyword is absent
}

func (k *ifKw) eval(v *validator, inst any, ann *annot) bool {
	if ann == nil && k.then.n == nil && k.els.n == nil {
		return true
	}
	mark := len(v.units)
	cond, ca := v.evalAlt(k.cond, inst, ann != nil)
	v.units = v.units[:mark]
	if v.fatal != nil {
		return false
	}
	if cond {
		if ann != nil {
			ann.merge(ca)
		}
		if k.then.n != nil {
			return v.evalIn(k.then, inst, ann)
		}
		return true
	}
	if k.els.n != nil {
		return v.evalIn(k.els, inst, ann)
	}
	return true
}

// dependentSchemasKw (§10.2.2.4): when the property is present, the whole object must match its schema.
type dependentSchemasKw struct {
	names []string
	subs  []child
}

func (k *dependentSchemasKw) eval(v *validator, inst any, ann *annot) bool {
	obj, isObj := inst.(map[string]any)
	if !isObj {
		return true
	}
	ok := true
	for i, name := range k.names {
		v.work++
		if _, present := obj[name]; !present {
			continue
		}
		if !v.evalIn(k.subs[i], inst, ann) {
			ok = false
			if !v.detail {
				break
			}
		}
	}
	return ok
}
