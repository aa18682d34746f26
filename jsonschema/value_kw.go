// value_kw.go holds the keywords' in-place readings of a tape.Value (see valueKeyword in value.go). Each
// is its keyword's eval (kw_*.go) in verdict mode with no annotations: the same checks in the same
// order, the same work, and a return at the first failure where eval, not building units, stops too.
// unevaluatedProperties and unevaluatedItems have none: they need annotations, so a schema using them is
// decoded.

package jsonschema

import (
	"encoding/json"
	"unicode/utf8"

	"attest-engine/tape"
)

// Checks on the value itself (kw_value.go).

func (k *typeKw) evalValue(v *validator, x tape.Value) bool {
	kd := kindOfValue(x)
	if k.mask&(1<<kd) != 0 {
		return true
	}
	if kd == kindNumber && k.mask&integerBit != 0 {
		// numberOf(x.Any()): the json.Number of the text the parser checked. Converted here, where n
		// does not escape, a short text stays on the stack.
		n, _ := numberOf(json.Number(x.Text()))
		v.work += len(n.text)
		return n.isInteger()
	}
	return false
}

func (k *enumKw) evalValue(v *validator, x tape.Value) bool {
	if x.Kind() == tape.String && k.strs != nil {
		s := v.text(x)
		v.work += len(s)
		_, ok := k.strs[string(s)]
		return ok
	}
	v.work += k.size
	for _, e := range k.values {
		if v.equalValue(x, e) {
			return true
		}
	}
	return false
}

func (k *constKw) evalValue(v *validator, x tape.Value) bool {
	v.work += k.size
	return v.equalValue(x, k.value)
}

func (k *numericKw) evalValue(v *validator, x tape.Value) bool {
	if x.Kind() != tape.Number {
		return true
	}
	n, _ := numberOf(json.Number(x.Text())) // as typeKw.evalValue
	v.work += len(n.text)
	switch {
	case k.minimum != nil && cmpNumber(n, *k.minimum) < 0,
		k.maximum != nil && cmpNumber(n, *k.maximum) > 0,
		k.exclMin != nil && cmpNumber(n, *k.exclMin) <= 0,
		k.exclMax != nil && cmpNumber(n, *k.exclMax) >= 0,
		k.multipleOf != nil && !isMultiple(n.dec(), k.multipleDec):
		return false
	}
	return true
}

func (k *lengthKw) evalValue(v *validator, x tape.Value) bool {
	if x.Kind() != tape.String {
		return true
	}
	s := v.text(x)
	if (k.min <= 0 || (len(s)+3)/4 >= k.min) && (k.max < 0 || len(s) <= k.max) {
		return true
	}
	v.work += len(s)
	n := utf8.RuneCount(s)
	return !(k.min >= 0 && n < k.min) && !(k.max >= 0 && n > k.max)
}

func (k *patternKw) evalValue(v *validator, x tape.Value) bool {
	return x.Kind() != tape.String || v.matchBytes(k.re, v.text(x))
}

func (k *formatKw) evalValue(v *validator, x tape.Value) bool {
	if x.Kind() != tape.String {
		return true
	}
	s := x.Str()
	v.work += k.perByte * len(s)
	return k.check(s)
}

// Object keywords (kw_object.go). Members come in document order where eval takes them in Go's map
// order: with no annotations the keyword's verdict does not depend on the order, only what is evaluated
// before a failing member does. That matters only when evaluation stops at a limit (steps, depth, a $ref
// loop) in a member that comes after a failing one in one order and before it in the other, under not,
// anyOf, oneOf or if (which can turn the member's failure into success, never the limit): there Valid's
// own verdict varies with the map order from one call to the next, and ValidValue's is that of document
// order.

func (k *propertiesKw) evalValue(v *validator, x tape.Value) bool {
	if x.Kind() != tape.Object {
		return true
	}
	for i, name := range k.names {
		v.work++
		val := v.member(x, name)
		if val.Exists() && !v.evalValueAt(k.subs[i], val) {
			return false
		}
	}
	return true
}

func (k *patternPropertiesKw) evalValue(v *validator, x tape.Value) bool {
	for name, val := range x.Members() {
		v.work++
		key := v.text(name)
		for i, re := range k.res {
			if v.matchBytes(re, key) && !v.evalValueAt(k.subs[i], val) {
				return false
			}
		}
	}
	return true
}

func (k *additionalPropertiesKw) evalValue(v *validator, x tape.Value) bool {
	for name, val := range x.Members() {
		v.work++
		if key := v.text(name); k.props.hasBytes(key) || k.matchesPattern(v, key) {
			continue
		}
		if k.sub.n.isBool && !k.sub.n.val || !v.evalValueAt(k.sub, val) {
			return false
		}
	}
	return true
}

// matchesPattern reports whether the member name key matches one of patternProperties.
func (k *additionalPropertiesKw) matchesPattern(v *validator, key []byte) bool {
	for _, re := range k.patterns {
		if v.matchBytes(re, key) {
			return true
		}
	}
	return false
}

func (k *propertyNamesKw) evalValue(v *validator, x tape.Value) bool {
	for name := range x.Members() {
		v.work++
		if !v.evalValueAt(k.sub, name) {
			return false
		}
	}
	return true
}

func (k *requiredKw) evalValue(v *validator, x tape.Value) bool {
	if x.Kind() != tape.Object {
		return true
	}
	for _, name := range k.names {
		v.work++
		if !v.member(x, name).Exists() {
			return false
		}
	}
	return true
}

func (k *dependentRequiredKw) evalValue(v *validator, x tape.Value) bool {
	if x.Kind() != tape.Object {
		return true
	}
	for i, name := range k.names {
		v.work++
		if !v.member(x, name).Exists() {
			continue
		}
		for _, r := range k.reqs[i] {
			v.work++
			if !v.member(x, r).Exists() {
				return false
			}
		}
	}
	return true
}

func (k *propCountKw) evalValue(_ *validator, x tape.Value) bool {
	if x.Kind() != tape.Object {
		return true
	}
	n := x.Len() // no name repeats (ValidValue): the number of members Any keeps
	return !(k.min >= 0 && n < k.min) && !(k.max >= 0 && n > k.max)
}

// Array keywords (kw_array.go).

func (k *prefixItemsKw) evalValue(v *validator, x tape.Value) bool {
	if x.Kind() != tape.Array {
		return true
	}
	n := min(x.Len(), len(k.subs))
	var e tape.Value
	for i := range n {
		e = x.After(e)
		if !v.evalValueAt(k.subs[i], e) {
			return false
		}
	}
	return true
}

func (k *itemsKw) evalValue(v *validator, x tape.Value) bool {
	for e := x.Index(k.start); e.Exists(); e = x.After(e) {
		if k.sub.n.isBool && !k.sub.n.val || !v.evalValueAt(k.sub, e) {
			return false
		}
	}
	return true
}

func (k *containsKw) evalValue(v *validator, x tape.Value) bool {
	if x.Kind() != tape.Array {
		return true
	}
	count := 0
	for e := x.After(tape.Value{}); e.Exists(); e = x.After(e) {
		if v.evalValueAt(k.sub, e) {
			count++
			if k.max < 0 && count >= k.min {
				break
			}
		}
	}
	return v.fatal == nil && count >= k.min && !(k.max >= 0 && count > k.max)
}

func (k *itemCountKw) evalValue(_ *validator, x tape.Value) bool {
	if x.Kind() != tape.Array {
		return true
	}
	n := x.Len()
	return !(k.min >= 0 && n < k.min) && !(k.max >= 0 && n > k.max)
}

// uniqueItemsKw compares the decoded items: findDuplicate hashes them whole.
func (k *uniqueItemsKw) evalValue(v *validator, x tape.Value) bool {
	if x.Kind() != tape.Array {
		return true
	}
	arr := x.Any().([]any)
	v.work += valueSize(arr)
	_, _, dup := findDuplicate(arr)
	return !dup
}

// In-place applicators (kw_logic.go): with no annotations, evalIn is eval of the subschema.

func (k *allOfKw) evalValue(v *validator, x tape.Value) bool {
	for _, c := range k.subs {
		if !v.evalValue(c.n, x) {
			return false
		}
	}
	return true
}

func (k *anyOfKw) evalValue(v *validator, x tape.Value) bool {
	for _, c := range k.subs {
		if v.evalValue(c.n, x) {
			return true
		}
	}
	return false
}

func (k *oneOfKw) evalValue(v *validator, x tape.Value) bool {
	matched := false
	for _, c := range k.subs {
		if !v.evalValue(c.n, x) {
			continue
		}
		if matched {
			return false
		}
		matched = true
	}
	return matched
}

func (k *notKw) evalValue(v *validator, x tape.Value) bool {
	return !v.evalValue(k.sub.n, x) && v.fatal == nil
}

func (k *ifKw) evalValue(v *validator, x tape.Value) bool {
	if k.then.n == nil && k.els.n == nil {
		return true
	}
	cond := v.evalValue(k.cond.n, x)
	switch {
	case v.fatal != nil:
		return false
	case cond && k.then.n != nil:
		return v.evalValue(k.then.n, x)
	case !cond && k.els.n != nil:
		return v.evalValue(k.els.n, x)
	}
	return true
}

func (k *dependentSchemasKw) evalValue(v *validator, x tape.Value) bool {
	if x.Kind() != tape.Object {
		return true
	}
	for i, name := range k.names {
		v.work++
		if v.member(x, name).Exists() && !v.evalValue(k.subs[i].n, x) {
			return false
		}
	}
	return true
}

// References (kw_ref.go).

func (k *refKw) evalValue(v *validator, x tape.Value) bool {
	return v.followValue(k.at, "$ref", k.target, x)
}

func (k *dynamicRefKw) evalValue(v *validator, x tape.Value) bool {
	return v.followValue(k.at, "$dynamicRef", k.resolve(v), x)
}
