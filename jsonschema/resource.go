// resource.go holds schema documents and resources: discovery of $id, $anchor and $dynamicAnchor, loading
// through the Loader, dialects and vocabularies.

package jsonschema

import (
	"fmt"
	"strings"
)

// placeholderBase is the base URI of a root schema without $id (§8.2.1 of the core spec lets the
// implementation choose a default base URI). Locations under it are not reported as absolute locations.
const placeholderBase = "attest-engine:///schema.json"

// Limits that keep hostile schemas from exhausting the compiler.
const (
	maxSchemaNesting = 1000    // nested subschemas inside one document
	maxDocuments     = 1000    // documents obtained from the Loader in one Compile
	maxNodes         = 1 << 20 // compiled schema objects in one Compile
	maxDialectChain  = 8       // meta-schemas whose $schema is again a custom meta-schema
	maxPatternSize   = 1 << 18 // estimated size of one regular expression (see translator.size)
	maxPatternsSize  = 1 << 20 // the same for all the regular expressions of one Compile
)

// vocab is a set of vocabularies (§8.1.2 of the core spec).
type vocab uint16

const (
	vocCore vocab = 1 << iota
	vocApplicator
	vocUnevaluated
	vocValidation
	vocMetaData
	vocFormatAnnotation
	vocFormatAssertion
	vocContent
)

const vocAll2020 = vocCore | vocApplicator | vocUnevaluated | vocValidation | vocMetaData |
	vocFormatAnnotation | vocContent

var vocabURIs = map[string]vocab{
	"https://json-schema.org/draft/2020-12/vocab/core":              vocCore,
	"https://json-schema.org/draft/2020-12/vocab/applicator":        vocApplicator,
	"https://json-schema.org/draft/2020-12/vocab/unevaluated":       vocUnevaluated,
	"https://json-schema.org/draft/2020-12/vocab/validation":        vocValidation,
	"https://json-schema.org/draft/2020-12/vocab/meta-data":         vocMetaData,
	"https://json-schema.org/draft/2020-12/vocab/format-annotation": vocFormatAnnotation,
	"https://json-schema.org/draft/2020-12/vocab/format-assertion":  vocFormatAssertion,
	"https://json-schema.org/draft/2020-12/vocab/content":           vocContent,
}

// dialect is what a $schema selects: a vocabulary set, and whether arrays follow Draft 2019-09
// (items as an array, additionalItems, no prefixItems).
type dialect struct {
	vocab     vocab
	draft2019 bool
}

var dialect2020 = dialect{vocab: vocAll2020}

// knownDialects are recognised without loading anything. The Attest spec writes the 2020-12 URI without
// "/schema", so both spellings (with or without an empty fragment) mean Draft 2020-12.
var knownDialects = map[string]dialect{
	"https://json-schema.org/draft/2020-12/schema":  dialect2020,
	"https://json-schema.org/draft/2020-12/schema#": dialect2020,
	"https://json-schema.org/draft/2020-12":         dialect2020,
	"https://json-schema.org/draft/2020-12#":        dialect2020,
	"https://json-schema.org/draft/2019-09/schema":  {vocab: vocAll2020, draft2019: true},
	"https://json-schema.org/draft/2019-09/schema#": {vocab: vocAll2020, draft2019: true},
}

// document is one JSON document: the root schema or one obtained from the Loader.
type document struct {
	url       string
	root      any
	resources resTree // by the JSON Pointer of their root
}

// resTree indexes resources by the reference tokens of the JSON Pointer of their root, so that finding
// the resource at or around a location costs the length of its pointer however many resources the
// document has.
type resTree struct {
	res  *resource
	next map[string]*resTree
}

func (t *resTree) insert(ptr string, r *resource) {
	for ptr != "" {
		var tok string
		tok, ptr = splitToken(ptr)
		n := t.next[tok]
		if n == nil {
			if t.next == nil {
				t.next = map[string]*resTree{}
			}
			n = &resTree{}
			t.next[tok] = n
		}
		t = n
	}
	t.res = r
}

// find returns the resource whose root is at ptr (nil if none) and the innermost resource containing ptr.
func (t *resTree) find(ptr string) (at, in *resource) {
	in = t.res
	for ptr != "" {
		var tok string
		tok, ptr = splitToken(ptr)
		if t = t.next[tok]; t == nil {
			return nil, in
		}
		if t.res != nil {
			in = t.res
		}
	}
	return t.res, in
}

// resource is a schema resource (§4.3.5 of the core spec): a schema with its own base URI.
type resource struct {
	uri        string
	doc        *document
	ptr        string
	dialect    dialect
	anchors    map[string]string // $anchor and $dynamicAnchor names → JSON Pointer in doc
	dynAnchors map[string]string // $dynamicAnchor names → JSON Pointer in doc
	dynNodes   map[string]*node  // compiled $dynamicAnchor targets, filled when the resource is used
}

// absolute reports whether locations in this resource are worth reporting as absolute URIs.
func (r *resource) absolute() bool { return !strings.HasPrefix(r.uri, placeholderBase) }

// addDocument registers a document under url and discovers its resources and anchors.
func (c *compiler) addDocument(url string, v any) (*document, error) {
	if len(c.docs) >= maxDocuments {
		return nil, &CompileError{Location: url, Message: fmt.Sprintf("more than %d schema documents", maxDocuments)}
	}
	doc := &document{url: url, root: v}
	c.docs[url] = doc
	root := &resource{uri: url, doc: doc, dialect: dialect2020}
	if err := c.register(url, root); err != nil {
		return nil, err
	}
	if err := c.discover(doc, v, "", root, 0); err != nil {
		return nil, err
	}
	return doc, nil
}

func (c *compiler) register(uri string, r *resource) error {
	if old, ok := c.res[uri]; ok && old != r {
		return &CompileError{Location: fragmentURI(r.doc.url, r.ptr), Message: fmt.Sprintf("duplicate schema resource $id %q", uri)}
	}
	c.res[uri] = r
	r.doc.resources.insert(r.ptr, r)
	return nil
}

// discover walks the schema at ptr (inside resource res) and every subschema under keywords that take
// schemas, registering $id (§8.2.1), $anchor and $dynamicAnchor (§8.2.2). Values under unknown keywords,
// enum or const are not schemas, so an $id there is not an identifier.
func (c *compiler) discover(doc *document, v any, ptr string, res *resource, depth int) error {
	m, ok := v.(map[string]any)
	if !ok {
		return nil
	}
	if depth > maxSchemaNesting {
		return &CompileError{Location: fragmentURI(doc.url, ptr), Message: fmt.Sprintf("schema nesting deeper than %d", maxSchemaNesting)}
	}
	if id, ok := m["$id"].(string); ok {
		uri, _, err := resolveURI(res.uri, id)
		if err != nil {
			return &CompileError{Location: fragmentURI(doc.url, ptr), Message: fmt.Sprintf("invalid $id %q", id), Err: err}
		}
		if ptr == res.ptr {
			// The document root: its $id is its canonical URI; the retrieval URI stays an alias.
			if uri != res.uri {
				res.uri = uri
				if err := c.register(uri, res); err != nil {
					return err
				}
			}
		} else {
			res = &resource{uri: uri, doc: doc, ptr: ptr, dialect: res.dialect}
			if err := c.register(uri, res); err != nil {
				return err
			}
		}
	}
	if s, ok := m["$schema"].(string); ok && ptr == res.ptr {
		d, err := c.dialectOf(s, 0)
		if err != nil {
			return err
		}
		res.dialect = d
	}
	if a, ok := m["$anchor"].(string); ok {
		addAnchor(&res.anchors, a, ptr)
	}
	if !res.dialect.draft2019 {
		if a, ok := m["$dynamicAnchor"].(string); ok {
			addAnchor(&res.anchors, a, ptr)
			addAnchor(&res.dynAnchors, a, ptr)
		}
	}
	for _, sk := range subschemaKeywords {
		kw, shape := sk.name, sk.shape
		sub, ok := m[kw]
		if !ok {
			continue
		}
		base := ptr + "/" + escapeToken(kw)
		switch x := sub.(type) {
		case map[string]any:
			if shape == shapeMap {
				for name, s := range x {
					if err := c.discover(doc, s, base+"/"+escapeToken(name), res, depth+1); err != nil {
						return err
					}
				}
				continue
			}
			if err := c.discover(doc, x, base, res, depth+1); err != nil {
				return err
			}
		case []any:
			if shape == shapeArray || (kw == "items" && res.dialect.draft2019) {
				for i, s := range x {
					if err := c.discover(doc, s, fmt.Sprintf("%s/%d", base, i), res, depth+1); err != nil {
						return err
					}
				}
			}
		}
	}
	return nil
}

func addAnchor(m *map[string]string, name, ptr string) {
	if *m == nil {
		*m = map[string]string{}
	}
	if _, ok := (*m)[name]; !ok {
		(*m)[name] = ptr
	}
}

type shape uint8

const (
	shapeSingle shape = iota
	shapeArray
	shapeMap
)

// subschemaKeywords lists where keywords take subschemas (core spec §10 and §11, validation spec §8.2.4).
// The order is fixed so that discovery, and so its errors, are deterministic.
var subschemaKeywords = []struct {
	name  string
	shape shape
}{
	{"$defs", shapeMap}, {"properties", shapeMap}, {"patternProperties", shapeMap},
	{"dependentSchemas", shapeMap}, {"dependencies", shapeMap},
	{"allOf", shapeArray}, {"anyOf", shapeArray}, {"oneOf", shapeArray}, {"prefixItems", shapeArray},
	{"additionalProperties", shapeSingle}, {"propertyNames", shapeSingle}, {"items", shapeSingle},
	{"contains", shapeSingle}, {"not", shapeSingle}, {"if", shapeSingle}, {"then", shapeSingle},
	{"else", shapeSingle}, {"unevaluatedItems", shapeSingle}, {"unevaluatedProperties", shapeSingle},
	{"contentSchema", shapeSingle}, {"additionalItems", shapeSingle},
}

// resource returns the resource with the given absolute URI, asking the Loader for it when it is not part
// of the schemas already known.
func (c *compiler) resource(uri string) (*resource, error) {
	if r, ok := c.res[uri]; ok {
		return r, nil
	}
	if c.opts.Loader == nil {
		return nil, &CompileError{Location: uri, Message: "schema not found (no Loader configured for external resources)"}
	}
	v, err := c.opts.Loader.Load(uri)
	if err != nil {
		return nil, &CompileError{Location: uri, Message: "cannot load schema", Err: err}
	}
	if _, err := c.addDocument(uri, v); err != nil {
		return nil, err
	}
	r, ok := c.res[uri]
	if !ok {
		return nil, &CompileError{Location: uri, Message: "loaded document does not define this resource"}
	}
	return r, nil
}

// dialectOf resolves a $schema URI to a dialect. Unknown meta-schemas are loaded and their $vocabulary
// read (§8.1.2): a required vocabulary this package does not know is an error, an optional one is ignored.
func (c *compiler) dialectOf(uri string, depth int) (dialect, error) {
	if d, ok := knownDialects[uri]; ok {
		return d, nil
	}
	if d, ok := c.dialects[uri]; ok {
		return d, nil
	}
	if depth > maxDialectChain {
		return dialect{}, &CompileError{Location: uri, Message: "meta-schema chain too long"}
	}
	u, frag, err := resolveURI(placeholderBase, uri)
	if err != nil || frag != "" {
		return dialect{}, &CompileError{Location: uri, Message: "invalid $schema URI", Err: err}
	}
	r, err := c.resource(u)
	if err != nil {
		return dialect{}, &CompileError{Location: uri, Message: "unknown $schema (not Draft 2020-12 and not loadable)", Err: err}
	}
	raw, _ := lookupPointer(r.doc.root, r.ptr)
	m, _ := raw.(map[string]any)
	d := dialect2020
	if vs, ok := m["$vocabulary"].(map[string]any); ok {
		d = dialect{vocab: vocCore}
		for vu, req := range vs {
			v, known := vocabURIs[vu]
			if !known {
				if req == true {
					return dialect{}, &CompileError{Location: uri, Message: fmt.Sprintf("meta-schema requires unsupported vocabulary %q", vu)}
				}
				continue
			}
			d.vocab |= v
		}
	} else if s, ok := m["$schema"].(string); ok && s != uri {
		if d, err = c.dialectOf(s, depth+1); err != nil {
			return dialect{}, err
		}
	}
	c.dialects[uri] = d
	return d, nil
}
