// compile_keywords.go turns one schema object into its typed keyword nodes, in a fixed evaluation order:
// references, then checks on the value, then applicators (compile_applicators.go), and the unevaluated*
// keywords last since they depend on the annotations of all the others (core spec §11).

package jsonschema

import (
	"slices"
	"sort"
)

func sortedKeys(m map[string]any) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

func (o *objCompiler) add(k keyword) { o.n.kws = append(o.n.kws, k) }

func (o *objCompiler) compile() error {
	steps := []func() error{o.refs}
	if o.has(vocValidation) {
		steps = append(steps, o.typeEnumConst, o.numeric, o.strings, o.objectChecks, o.arrayChecks)
	}
	steps = append(steps, o.format)
	if o.has(vocApplicator) {
		steps = append(steps, o.objectApplicators, o.arrayApplicators, o.logic)
	}
	if o.has(vocUnevaluated) {
		steps = append(steps, o.unevaluated)
	}
	for _, step := range steps {
		if err := step(); err != nil {
			return err
		}
	}
	return nil
}

// refs compiles $ref and $dynamicRef (core spec §8.2.3).
func (o *objCompiler) refs() error {
	at := o.n.loc
	if raw, ok := o.m["$ref"]; ok {
		ref, ok := raw.(string)
		if !ok {
			return o.errorf("$ref", "$ref must be a string")
		}
		n, _, err := o.c.resolveRef(o.p.res, where(o.p.res, o.p.ptr+"/$ref"), ref)
		if err != nil {
			return err
		}
		o.add(&refKw{at: at, target: child{n: n, tok: "/$ref"}})
	}
	if raw, ok := o.m["$dynamicRef"]; ok && !o.d.draft2019 {
		ref, ok := raw.(string)
		if !ok {
			return o.errorf("$dynamicRef", "$dynamicRef must be a string")
		}
		n, anchor, err := o.c.resolveRef(o.p.res, where(o.p.res, o.p.ptr+"/$dynamicRef"), ref)
		if err != nil {
			return err
		}
		if anchor != "" {
			o.c.dynamic = true
		}
		o.add(&dynamicRefKw{at: at, target: child{n: n, tok: "/$dynamicRef"}, anchor: anchor})
	}
	return nil
}

var typeBits = map[string]uint8{
	"null": 1 << kindNull, "boolean": 1 << kindBool, "number": 1 << kindNumber, "string": 1 << kindString,
	"array": 1 << kindArray, "object": 1 << kindObject, "integer": integerBit,
}

func (o *objCompiler) typeEnumConst() error {
	at := o.n.loc
	if raw, ok := o.m["type"]; ok {
		var list []string
		switch x := raw.(type) {
		case string:
			list = []string{x}
		case []any:
			for _, e := range x {
				s, ok := e.(string)
				if !ok {
					return o.errorf("type", "type must be a string or an array of strings")
				}
				list = append(list, s)
			}
		default:
			return o.errorf("type", "type must be a string or an array of strings")
		}
		k := &typeKw{at: at}
		var names []string // without repeats, which would only lengthen every message
		for _, name := range list {
			bit, ok := typeBits[name]
			if !ok {
				return o.errorf("type", "unknown type %q", name)
			}
			if k.mask&bit == 0 {
				names = append(names, name)
			}
			k.mask |= bit
		}
		k.want = typeNames(names)
		o.add(k)
	}
	if raw, ok := o.m["enum"]; ok {
		values, ok := raw.([]any)
		if !ok {
			return o.errorf("enum", "enum must be an array")
		}
		k := &enumKw{at: at, values: values, size: valueSize(values)}
		if len(values) > 8 && !slices.ContainsFunc(values, func(e any) bool { _, s := e.(string); return !s }) {
			k.strs = make(map[string]struct{}, len(values))
			for _, e := range values {
				k.strs[e.(string)] = struct{}{}
			}
		}
		o.add(k)
	}
	if raw, ok := o.m["const"]; ok {
		o.add(&constKw{at: at, value: raw, size: valueSize(raw)})
	}
	return nil
}

func (o *objCompiler) numeric() error {
	k := &numericKw{at: o.n.loc}
	var err error
	if k.minimum, err = o.number("minimum"); err != nil {
		return err
	}
	if k.maximum, err = o.number("maximum"); err != nil {
		return err
	}
	if k.exclMin, err = o.number("exclusiveMinimum"); err != nil {
		return err
	}
	if k.exclMax, err = o.number("exclusiveMaximum"); err != nil {
		return err
	}
	if k.multipleOf, err = o.number("multipleOf"); err != nil {
		return err
	}
	if k.multipleOf != nil {
		k.multipleDec = k.multipleOf.dec()
		if k.multipleDec.sign() <= 0 {
			return o.errorf("multipleOf", "multipleOf must be greater than 0")
		}
	}
	if k.minimum != nil || k.maximum != nil || k.exclMin != nil || k.exclMax != nil || k.multipleOf != nil {
		o.add(k)
	}
	return nil
}

func (o *objCompiler) strings() error {
	minLen, err := o.count("minLength")
	if err != nil {
		return err
	}
	maxLen, err := o.count("maxLength")
	if err != nil {
		return err
	}
	if minLen >= 0 || maxLen >= 0 {
		o.add(&lengthKw{at: o.n.loc, min: minLen, max: maxLen})
	}
	if raw, ok := o.m["pattern"]; ok {
		p, ok := raw.(string)
		if !ok {
			return o.errorf("pattern", "pattern must be a string")
		}
		re, err := o.regexp("pattern", p)
		if err != nil {
			return err
		}
		o.add(&patternKw{at: o.n.loc, re: re, pattern: p})
	}
	return nil
}

// format is an assertion when the caller asks for it or the dialect has the format-assertion vocabulary
// (validation spec §7.2); otherwise it is only an annotation, which this package does not report.
func (o *objCompiler) format() error {
	raw, ok := o.m["format"]
	if !ok {
		return nil
	}
	assert := o.has(vocFormatAssertion) || (o.c.opts.AssertFormat && o.has(vocFormatAnnotation))
	if !assert {
		return nil
	}
	name, ok := raw.(string)
	if !ok {
		return o.errorf("format", "format must be a string")
	}
	if f, ok := formats[name]; ok {
		o.add(&formatKw{format: f, at: o.n.loc, name: name})
	}
	return nil
}

func (o *objCompiler) objectChecks() error {
	at := o.n.loc
	if raw, ok := o.m["required"]; ok {
		names, err := o.stringList("required", raw)
		if err != nil {
			return err
		}
		if len(names) > 0 {
			o.add(&requiredKw{at: at, names: names})
		}
	}
	if raw, ok := o.m["dependentRequired"]; ok {
		m, ok := raw.(map[string]any)
		if !ok {
			return o.errorf("dependentRequired", "dependentRequired must be an object of string arrays")
		}
		k := &dependentRequiredKw{at: at, kw: "dependentRequired", names: sortedKeys(m)}
		for _, name := range k.names {
			reqs, err := o.stringList("dependentRequired", m[name])
			if err != nil {
				return err
			}
			k.reqs = append(k.reqs, reqs)
		}
		o.add(k)
	}
	minP, err := o.count("minProperties")
	if err != nil {
		return err
	}
	maxP, err := o.count("maxProperties")
	if err != nil {
		return err
	}
	if minP >= 0 || maxP >= 0 {
		o.add(&propCountKw{at: at, min: minP, max: maxP})
	}
	return nil
}

func (o *objCompiler) stringList(kw string, raw any) ([]string, error) {
	arr, ok := raw.([]any)
	if !ok {
		return nil, o.errorf(kw, "%s must be an array of strings", kw)
	}
	out := make([]string, 0, len(arr))
	for _, e := range arr {
		s, ok := e.(string)
		if !ok {
			return nil, o.errorf(kw, "%s must be an array of strings", kw)
		}
		out = append(out, s)
	}
	return out, nil
}

func (o *objCompiler) arrayChecks() error {
	at := o.n.loc
	minI, err := o.count("minItems")
	if err != nil {
		return err
	}
	maxI, err := o.count("maxItems")
	if err != nil {
		return err
	}
	if minI >= 0 || maxI >= 0 {
		o.add(&itemCountKw{at: at, min: minI, max: maxI})
	}
	if raw, ok := o.m["uniqueItems"]; ok {
		b, ok := raw.(bool)
		if !ok {
			return o.errorf("uniqueItems", "uniqueItems must be a boolean")
		}
		if b {
			o.add(&uniqueItemsKw{at: at})
		}
	}
	return nil
}
