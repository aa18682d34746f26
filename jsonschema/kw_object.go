// kw_object.go holds the keywords that apply to objects: properties, patternProperties,
// additionalProperties, propertyNames, unevaluatedProperties (core spec §10.3.2, §11.3) and required,
// dependentRequired, minProperties, maxProperties (validation spec §6.5).

package jsonschema

// nameSet is a set of property names: a short list is faster to scan than a map is to hash.
type nameSet struct {
	list []string
	m    map[string]struct{}
}

func newNameSet(names []string) nameSet {
	if len(names) <= 8 {
		return nameSet{list: names}
	}
	m := make(map[string]struct{}, len(names))
	for _, n := range names {
		m[n] = struct{}{}
	}
	return nameSet{m: m}
}

func (s *nameSet) has(k string) bool {
	if s.m != nil {
		_, ok := s.m[k]
		return ok
	}
	for _, n := range s.list {
		if n == k {
			return true
		}
	}
	return false
}

// propertiesKw (§10.3.2.1): each named member present must match its schema.
type propertiesKw struct {
	names []string
	subs  []child
}

func (k *propertiesKw) eval(v *validator, inst any, ann *annot) bool {
	obj, isObj := inst.(map[string]any)
	if !isObj {
		return true
	}
	ok := true
	for i, name := range k.names {
		v.work++
		val, present := obj[name]
		if !present {
			continue
		}
		if ann != nil {
			ann.addProp(name)
		}
		if !v.evalKey(k.subs[i], val, name) {
			ok = false
			if !v.detail {
				break
			}
		}
	}
	return ok
}

// patternPropertiesKw (§10.3.2.2): each member whose name matches a pattern must match its schema.
type patternPropertiesKw struct {
	res  []*matcher
	subs []child
}

func (k *patternPropertiesKw) eval(v *validator, inst any, ann *annot) bool {
	obj, isObj := inst.(map[string]any)
	if !isObj {
		return true
	}
	ok := true
	v.forEachKey(obj, func(key string, val any) bool {
		for i, re := range k.res {
			if !v.match(re, key) {
				continue
			}
			if ann != nil {
				ann.addProp(key)
			}
			if !v.evalKey(k.subs[i], val, key) {
				ok = false
				if !v.detail {
					return false
				}
			}
		}
		return true
	})
	return ok
}

// additionalPropertiesKw (§10.3.2.3): members matched by neither properties nor patternProperties must
// match the subschema.
type additionalPropertiesKw struct {
	at       string
	props    nameSet
	patterns []*matcher
	sub      child
}

func (k *additionalPropertiesKw) eval(v *validator, inst any, ann *annot) bool {
	obj, isObj := inst.(map[string]any)
	if !isObj {
		return true
	}
	ok := true
	v.forEachKey(obj, func(key string, val any) bool {
		if k.props.has(key) {
			return true
		}
		for _, re := range k.patterns {
			if v.match(re, key) {
				return true
			}
		}
		if ann != nil {
			ann.addProp(key)
		}
		if k.sub.n.isBool && !k.sub.n.val {
			ok = false
			if v.detail {
				v.failAtf(k.at, "additionalProperties", instTok{key: key, idx: -1}, "additional property %q is not allowed", key)
			}
		} else if !v.evalKey(k.sub, val, key) {
			ok = false
		}
		return ok || v.detail
	})
	return ok
}

// propertyNamesKw (§10.3.2.4): every member name, as a string instance, must match the subschema.
type propertyNamesKw struct {
	sub child
}

func (k *propertyNamesKw) eval(v *validator, inst any, _ *annot) bool {
	obj, isObj := inst.(map[string]any)
	if !isObj {
		return true
	}
	ok := true
	v.forEachKey(obj, func(key string, _ any) bool {
		if !v.evalKey(k.sub, key, key) {
			ok = false
		}
		return ok || v.detail
	})
	return ok
}

// unevaluatedPropertiesKw (§11.3): members that no successful adjacent or nested keyword evaluated must
// match the subschema. It runs after every other keyword of its schema.
type unevaluatedPropertiesKw struct {
	at  string
	sub child
}

func (k *unevaluatedPropertiesKw) eval(v *validator, inst any, ann *annot) bool {
	obj, isObj := inst.(map[string]any)
	if !isObj || ann == nil || ann.allProps {
		return true
	}
	ok := true
	v.forEachKey(obj, func(key string, val any) bool {
		if ann.hasProp(key) {
			return true
		}
		if k.sub.n.isBool && !k.sub.n.val {
			ok = false
			if v.detail {
				v.failAtf(k.at, "unevaluatedProperties", instTok{key: key, idx: -1}, "unevaluated property %q is not allowed", key)
			}
		} else if !v.evalKey(k.sub, val, key) {
			ok = false
		}
		return ok || v.detail
	})
	if ok {
		ann.allProps, ann.props = true, nil
	}
	return ok
}

// requiredKw (validation spec §6.5.3).
type requiredKw struct {
	at    string
	names []string
}

func (k *requiredKw) eval(v *validator, inst any, _ *annot) bool {
	obj, isObj := inst.(map[string]any)
	if !isObj {
		return true
	}
	ok := true
	for _, name := range k.names {
		v.work++
		if _, present := obj[name]; !present {
			ok = false
			if !v.detail {
				break
			}
			v.failf(k.at, "required", "missing required property %q", name)
		}
	}
	return ok
}

// dependentRequiredKw (validation spec §6.5.4): when the property is present, the listed ones must be too.
type dependentRequiredKw struct {
	at    string
	kw    string // "dependentRequired", or "dependencies" in its array form
	names []string
	reqs  [][]string
}

func (k *dependentRequiredKw) eval(v *validator, inst any, _ *annot) bool {
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
		for _, r := range k.reqs[i] {
			v.work++
			if _, present := obj[r]; !present {
				ok = false
				if !v.detail {
					return false
				}
				v.failf(k.at, k.kw+"/"+escapeToken(name), "missing property %q, required when %q is present", r, name)
			}
		}
	}
	return ok
}

// propCountKw holds minProperties and maxProperties (validation spec §6.5.1, §6.5.2); -1 means absent.
type propCountKw struct {
	at       string
	min, max int
}

func (k *propCountKw) eval(v *validator, inst any, _ *annot) bool {
	obj, isObj := inst.(map[string]any)
	if !isObj {
		return true
	}
	n := len(obj)
	switch {
	case k.min >= 0 && n < k.min:
		if v.detail {
			v.failf(k.at, "minProperties", "object has %d %s, want at least %d", n, plural(n, "property", "properties"), k.min)
		}
		return false
	case k.max >= 0 && n > k.max:
		if v.detail {
			v.failf(k.at, "maxProperties", "object has %d %s, want at most %d", n, plural(n, "property", "properties"), k.max)
		}
		return false
	}
	return true
}

func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}
