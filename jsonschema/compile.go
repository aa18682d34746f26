// compile.go holds the compiler driver: the work queue of schema locations, $ref resolution and the
// helpers keyword compilation shares.

package jsonschema

import (
	"fmt"
	"strconv"
)

type compiler struct {
	opts     Options
	docs     map[string]*document
	res      map[string]*resource
	dialects map[string]dialect
	nodes    map[nodeKey]*node
	queue    []pending
	regexps  map[string]*matcher
	// patternSize is the estimated size of the patterns compiled so far (see translator.size).
	patternSize int
	dynamic     bool
}

// nodeKey identifies a schema by where it is: the same location always compiles to the same node, which
// is what lets recursive $refs form cycles in the graph.
type nodeKey struct {
	doc *document
	ptr string
}

// pending is a schema location whose node has been allocated but not yet filled in. Compilation drains a
// queue instead of recursing, so neither nesting nor $ref chains grow the Go stack.
type pending struct {
	n   *node
	doc *document
	ptr string
	res *resource
	raw any
}

func newCompiler(o Options) *compiler {
	return &compiler{
		opts:     o,
		docs:     map[string]*document{},
		res:      map[string]*resource{},
		dialects: map[string]dialect{},
		nodes:    map[nodeKey]*node{},
		regexps:  map[string]*matcher{},
	}
}

func (c *compiler) compileRoot(schema any) (*node, error) {
	base := placeholderBase
	if m, ok := schema.(map[string]any); ok {
		if id, ok := m["$id"].(string); ok {
			u, _, err := resolveURI(placeholderBase, id)
			if err != nil {
				return nil, &CompileError{Location: "#/$id", Message: fmt.Sprintf("invalid $id %q", id), Err: err}
			}
			base = u
		}
	}
	doc, err := c.addDocument(base, schema)
	if err != nil {
		return nil, err
	}
	root, err := c.nodeAt(doc, "", schema, nil)
	if err != nil {
		return nil, err
	}
	for len(c.queue) > 0 {
		p := c.queue[len(c.queue)-1]
		c.queue = c.queue[:len(c.queue)-1]
		if err := c.compileNode(p); err != nil {
			return nil, err
		}
	}
	return root, nil
}

// nodeAt returns the node for the schema at ptr in doc, queueing its compilation the first time. parent is
// the resource of the schema that contains it, nil when unknown (a $ref target).
func (c *compiler) nodeAt(doc *document, ptr string, raw any, parent *resource) (*node, error) {
	key := nodeKey{doc, ptr}
	if n, ok := c.nodes[key]; ok {
		return n, nil
	}
	if len(c.nodes) >= maxNodes {
		return nil, &CompileError{Location: fragmentURI(doc.url, ptr), Message: fmt.Sprintf("schema has more than %d subschemas", maxNodes)}
	}
	res, in := doc.resources.find(ptr)
	if res == nil {
		res = parent
	}
	if res == nil {
		res = in
	}
	n := &node{}
	c.nodes[key] = n
	c.queue = append(c.queue, pending{n: n, doc: doc, ptr: ptr, res: res, raw: raw})
	return n, nil
}

func (c *compiler) compileNode(p pending) error {
	n := p.n
	n.res = p.res
	if p.res.absolute() {
		n.loc = fragmentURI(p.res.uri, p.ptr[len(p.res.ptr):])
	}
	if err := c.compileDynamicAnchors(p.res); err != nil {
		return err
	}
	switch raw := p.raw.(type) {
	case bool:
		n.isBool, n.val = true, raw
		return nil
	case map[string]any:
		o := &objCompiler{c: c, p: p, m: raw, n: n, d: p.res.dialect}
		return o.compile()
	}
	return &CompileError{Location: where(p.res, p.ptr), Message: fmt.Sprintf("schema must be an object or a boolean, got %s", kindOf(p.raw))}
}

// compileDynamicAnchors makes sure every $dynamicAnchor of a resource in use has a node, since
// $dynamicRef may land on any of them once the resource is in the dynamic scope (core spec §8.2.3.2).
func (c *compiler) compileDynamicAnchors(r *resource) error {
	if r.dynNodes != nil || len(r.dynAnchors) == 0 {
		return nil
	}
	r.dynNodes = map[string]*node{}
	for name, ptr := range r.dynAnchors {
		raw, _ := lookupPointer(r.doc.root, ptr)
		n, err := c.nodeAt(r.doc, ptr, raw, r)
		if err != nil {
			return err
		}
		r.dynNodes[name] = n
	}
	return nil
}

// where renders a schema location for compile errors.
func where(res *resource, ptr string) string {
	rel := ptr[len(res.ptr):]
	if res.absolute() {
		return fragmentURI(res.uri, rel)
	}
	return fragmentURI("", rel)
}

// resolveRef resolves a $ref or $dynamicRef value against the base URI of res (core spec §8.2.3.1) and
// returns the target node. dynAnchor is the fragment when it names a $dynamicAnchor of the target
// resource, "" otherwise.
func (c *compiler) resolveRef(res *resource, at, ref string) (n *node, dynAnchor string, err error) {
	uri, frag, err := resolveURI(res.uri, ref)
	if err != nil {
		return nil, "", &CompileError{Location: at, Message: fmt.Sprintf("invalid reference %q", ref), Err: err}
	}
	target, err := c.resource(uri)
	if err != nil {
		return nil, "", &CompileError{Location: at, Message: fmt.Sprintf("cannot resolve reference %q (%s)", ref, uri), Err: err}
	}
	ptr := target.ptr
	switch {
	case frag == "":
	case frag[0] == '/':
		ptr += frag
	default:
		p, ok := target.anchors[frag]
		if !ok {
			return nil, "", &CompileError{Location: at, Message: fmt.Sprintf("cannot resolve reference %q: no anchor %q in %s", ref, frag, uri)}
		}
		ptr = p
		if _, ok := target.dynAnchors[frag]; ok {
			dynAnchor = frag
		}
	}
	raw, ok := lookupPointer(target.doc.root, ptr)
	if !ok {
		return nil, "", &CompileError{Location: at, Message: fmt.Sprintf("cannot resolve reference %q: %s has no location %q", ref, uri, frag)}
	}
	n, err = c.nodeAt(target.doc, ptr, raw, nil)
	return n, dynAnchor, err
}

// objCompiler compiles one schema object.
type objCompiler struct {
	c *compiler
	p pending
	m map[string]any
	n *node
	d dialect
}

func (o *objCompiler) has(v vocab) bool { return o.d.vocab&v != 0 }

func (o *objCompiler) errorf(kw, format string, args ...any) error {
	return &CompileError{Location: where(o.p.res, o.p.ptr+"/"+escapeToken(kw)), Message: fmt.Sprintf(format, args...)}
}

// sub returns the child schema at m[kw] (with a map key or array index when path is given).
func (o *objCompiler) sub(kw string, raw any, path ...string) (child, error) {
	tok := "/" + escapeToken(kw)
	for _, p := range path {
		tok += "/" + escapeToken(p)
	}
	switch raw.(type) {
	case bool, map[string]any:
	default:
		return child{}, &CompileError{Location: where(o.p.res, o.p.ptr+tok), Message: fmt.Sprintf("%s must hold a schema (object or boolean), got %s", kw, kindOf(raw))}
	}
	n, err := o.c.nodeAt(o.p.doc, o.p.ptr+tok, raw, o.p.res)
	return child{n: n, tok: tok}, err
}

// subArray compiles a non-empty array of schemas (allOf, anyOf, oneOf, prefixItems).
func (o *objCompiler) subArray(kw string) ([]child, error) {
	arr, ok := o.m[kw].([]any)
	if !ok || len(arr) == 0 {
		return nil, o.errorf(kw, "%s must be a non-empty array of schemas", kw)
	}
	subs := make([]child, len(arr))
	for i, raw := range arr {
		var err error
		if subs[i], err = o.sub(kw, raw, strconv.Itoa(i)); err != nil {
			return nil, err
		}
	}
	return subs, nil
}

// subMap compiles an object whose member values are schemas, in sorted key order.
func (o *objCompiler) subMap(kw string) ([]string, []child, error) {
	m, ok := o.m[kw].(map[string]any)
	if !ok {
		return nil, nil, o.errorf(kw, "%s must be an object of schemas", kw)
	}
	names := sortedKeys(m)
	subs := make([]child, len(names))
	for i, name := range names {
		var err error
		if subs[i], err = o.sub(kw, m[name], name); err != nil {
			return nil, nil, err
		}
	}
	return names, subs, nil
}

// number reads a keyword that must hold a number.
func (o *objCompiler) number(kw string) (*number, error) {
	raw, ok := o.m[kw]
	if !ok {
		return nil, nil
	}
	n, ok := numberOf(raw)
	if !ok {
		return nil, o.errorf(kw, "%s must be a number", kw)
	}
	return &n, nil
}

// count reads a keyword that must hold a non-negative integer (such as minLength); -1 means absent, as
// in the keyword nodes.
func (o *objCompiler) count(kw string) (int, error) {
	raw, ok := o.m[kw]
	if !ok {
		return -1, nil
	}
	n, ok := numberOf(raw)
	if !ok || !n.isInteger() || n.f < 0 {
		return 0, o.errorf(kw, "%s must be a non-negative integer", kw)
	}
	if n.f > float64(maxInt) {
		return maxInt, nil
	}
	return int(n.f), nil
}

const maxInt = int(^uint(0) >> 1)

// regexp compiles an ECMA-262 pattern to RE2, reusing identical patterns within one Compile.
func (o *objCompiler) regexp(kw, pattern string) (*matcher, error) {
	if re, ok := o.c.regexps[pattern]; ok {
		return re, nil
	}
	re, size, err := compileECMA(pattern)
	if err != nil {
		return nil, &CompileError{Location: where(o.p.res, o.p.ptr+"/"+escapeToken(kw)), Message: "invalid pattern " + quote(pattern), Err: err}
	}
	if o.c.patternSize += size; o.c.patternSize > maxPatternsSize {
		return nil, o.errorf(kw, "patterns larger than %d in all", maxPatternsSize)
	}
	m := newMatcher(re)
	o.c.regexps[pattern] = m
	return m, nil
}
