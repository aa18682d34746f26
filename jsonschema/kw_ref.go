// kw_ref.go holds $ref and $dynamicRef (core spec §8.2.3), with the loop detection that keeps a $ref
// cycle which consumes no instance input from recursing forever.

package jsonschema

import "fmt"

// refKw is $ref: the target's result is the keyword's result, and its annotations count as this schema's.
type refKw struct {
	at     string
	target child
}

func (k *refKw) eval(v *validator, inst any, ann *annot) bool {
	return v.follow(k.at, "$ref", k.target, inst, ann)
}

// dynamicRefKw is $dynamicRef (§8.2.3.2): when its static target is a $dynamicAnchor, the target moves
// to the outermost resource in the dynamic scope that defines the same $dynamicAnchor.
type dynamicRefKw struct {
	at     string
	target child
	anchor string // "" when the static target is not a $dynamicAnchor: then it behaves like $ref
}

func (k *dynamicRefKw) eval(v *validator, inst any, ann *annot) bool {
	return v.follow(k.at, "$dynamicRef", k.resolve(v), inst, ann)
}

// resolve is the target in the current dynamic scope.
func (k *dynamicRefKw) resolve(v *validator) child {
	target := k.target
	if k.anchor != "" {
		for _, r := range v.scope {
			v.work++
			if n, ok := r.dynNodes[k.anchor]; ok {
				target.n = n
				break
			}
		}
	}
	return target
}

// follow evaluates a reference target at the same instance. Along one evaluation path the instance
// location only grows, so meeting the same target again at the same instance depth means the same schema
// is being evaluated re-entrantly at the same instance location: an infinite loop, reported as an error.
func (v *validator) follow(at, kw string, target child, inst any, ann *annot) bool {
	if v.loops(at, kw, target.n) {
		return false
	}
	v.refs = append(v.refs, refFrame{n: target.n, instDepth: v.instDepth})
	ok := v.evalIn(target, inst, ann)
	v.refs = v.refs[:len(v.refs)-1]
	return ok
}

// loops reports whether following a reference to n re-enters it at the same instance location, and then
// records the fatal error.
func (v *validator) loops(at, kw string, n *node) bool {
	for i := len(v.refs) - 1; i >= 0 && v.refs[i].instDepth == v.instDepth; i-- {
		v.work++
		if v.refs[i].n == n {
			v.setFatal(at, kw, fmt.Sprintf("%s loops: the same schema is re-entered at the same instance location", kw))
			return true
		}
	}
	return false
}
