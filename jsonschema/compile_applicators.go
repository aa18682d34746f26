// compile_applicators.go compiles the keywords that apply subschemas: the object and array applicators,
// the logic keywords and unevaluated* (core spec §10, §11).

package jsonschema

func (o *objCompiler) objectApplicators() error {
	at := o.n.loc
	var propNames []string
	if _, ok := o.m["properties"]; ok {
		names, subs, err := o.subMap("properties")
		if err != nil {
			return err
		}
		propNames = names
		o.add(&propertiesKw{names: names, subs: subs})
	}
	var patterns []*matcher
	if _, ok := o.m["patternProperties"]; ok {
		names, subs, err := o.subMap("patternProperties")
		if err != nil {
			return err
		}
		k := &patternPropertiesKw{subs: subs}
		for _, p := range names {
			re, err := o.regexp("patternProperties", p)
			if err != nil {
				return err
			}
			k.res = append(k.res, re)
		}
		patterns = k.res
		o.add(k)
	}
	if raw, ok := o.m["additionalProperties"]; ok {
		sub, err := o.sub("additionalProperties", raw)
		if err != nil {
			return err
		}
		o.add(&additionalPropertiesKw{at: at, props: newNameSet(propNames), patterns: patterns, sub: sub})
	}
	if raw, ok := o.m["propertyNames"]; ok {
		sub, err := o.sub("propertyNames", raw)
		if err != nil {
			return err
		}
		o.add(&propertyNamesKw{sub: sub})
	}
	if _, ok := o.m["dependentSchemas"]; ok {
		names, subs, err := o.subMap("dependentSchemas")
		if err != nil {
			return err
		}
		o.add(&dependentSchemasKw{names: names, subs: subs})
	}
	return o.dependencies()
}

// dependencies is the pre-2019 keyword that dependentRequired and dependentSchemas replaced; it is still
// honoured (arrays as dependentRequired, schemas as dependentSchemas) for compatibility.
func (o *objCompiler) dependencies() error {
	raw, ok := o.m["dependencies"]
	if !ok {
		return nil
	}
	m, ok := raw.(map[string]any)
	if !ok {
		return nil
	}
	req := &dependentRequiredKw{at: o.n.loc, kw: "dependencies"}
	schemas := &dependentSchemasKw{}
	for _, name := range sortedKeys(m) {
		switch x := m[name].(type) {
		case []any:
			names, err := o.stringList("dependencies", x)
			if err != nil {
				return err
			}
			req.names = append(req.names, name)
			req.reqs = append(req.reqs, names)
		default:
			sub, err := o.sub("dependencies", x, name)
			if err != nil {
				return err
			}
			schemas.names = append(schemas.names, name)
			schemas.subs = append(schemas.subs, sub)
		}
	}
	if len(req.names) > 0 {
		o.add(req)
	}
	if len(schemas.names) > 0 {
		o.add(schemas)
	}
	return nil
}

func (o *objCompiler) arrayApplicators() error {
	at := o.n.loc
	start := 0
	itemsKwName := "items"
	if o.d.draft2019 {
		// Draft 2019-09: items may be an array (the tuple form), then additionalItems covers the rest.
		if arr, ok := o.m["items"].([]any); ok && len(arr) > 0 {
			subs, err := o.subArray("items")
			if err != nil {
				return err
			}
			o.add(&prefixItemsKw{subs: subs})
			start = len(subs)
			itemsKwName = "additionalItems"
		}
	} else if _, ok := o.m["prefixItems"]; ok {
		subs, err := o.subArray("prefixItems")
		if err != nil {
			return err
		}
		o.add(&prefixItemsKw{subs: subs})
		start = len(subs)
	}
	if raw, ok := o.m[itemsKwName]; ok && !(o.d.draft2019 && isArray(raw)) {
		sub, err := o.sub(itemsKwName, raw)
		if err != nil {
			return err
		}
		o.add(&itemsKw{at: at, kw: itemsKwName, start: start, sub: sub})
	}
	if raw, ok := o.m["contains"]; ok {
		sub, err := o.sub("contains", raw)
		if err != nil {
			return err
		}
		k := &containsKw{at: at, sub: sub, min: 1, max: -1}
		if o.has(vocValidation) {
			minC, err := o.count("minContains")
			if err != nil {
				return err
			}
			if k.max, err = o.count("maxContains"); err != nil {
				return err
			}
			if minC >= 0 {
				k.min, k.minSet = minC, true
			}
		}
		o.add(k)
	}
	return nil
}

func isArray(v any) bool { _, ok := v.([]any); return ok }

func (o *objCompiler) logic() error {
	at := o.n.loc
	if _, ok := o.m["allOf"]; ok {
		subs, err := o.subArray("allOf")
		if err != nil {
			return err
		}
		o.add(&allOfKw{subs: subs})
	}
	if _, ok := o.m["anyOf"]; ok {
		subs, err := o.subArray("anyOf")
		if err != nil {
			return err
		}
		o.add(&anyOfKw{at: at, subs: subs})
	}
	if _, ok := o.m["oneOf"]; ok {
		subs, err := o.subArray("oneOf")
		if err != nil {
			return err
		}
		o.add(&oneOfKw{at: at, subs: subs})
	}
	if raw, ok := o.m["not"]; ok {
		sub, err := o.sub("not", raw)
		if err != nil {
			return err
		}
		o.add(&notKw{at: at, sub: sub})
	}
	if raw, ok := o.m["if"]; ok {
		cond, err := o.sub("if", raw)
		if err != nil {
			return err
		}
		k := &ifKw{cond: cond}
		if raw, ok := o.m["then"]; ok {
			if k.then, err = o.sub("then", raw); err != nil {
				return err
			}
		}
		if raw, ok := o.m["else"]; ok {
			if k.els, err = o.sub("else", raw); err != nil {
				return err
			}
		}
		o.add(k)
	}
	return nil
}

func (o *objCompiler) unevaluated() error {
	at := o.n.loc
	if raw, ok := o.m["unevaluatedItems"]; ok {
		sub, err := o.sub("unevaluatedItems", raw)
		if err != nil {
			return err
		}
		o.add(&unevaluatedItemsKw{at: at, sub: sub})
		o.n.needAnn = true
	}
	if raw, ok := o.m["unevaluatedProperties"]; ok {
		sub, err := o.sub("unevaluatedProperties", raw)
		if err != nil {
			return err
		}
		o.add(&unevaluatedPropertiesKw{at: at, sub: sub})
		o.n.needAnn = true
	}
	return nil
}
