// Package jsonschema validates JSON values against JSON Schema Draft 2020-12 schemas, offline.
//
// # Value model
//
// Schemas and instances are Go values as produced by encoding/json with UseNumber: nil, bool, string,
// json.Number, []any and map[string]any. float64, float32, int, int32, int64 and uint64 are accepted as
// numbers too. Numbers are compared by exact value: big integers stay exact, 1.0 equals 1 (in enum,
// const and uniqueItems as well), an integer is any number with a zero fractional part, and multipleOf
// uses exact decimal arithmetic. Order is decided on float64 whenever the two float64 values differ
// (rounding is monotone) and on the exact decimal form only when they tie.
//
// # Use
//
//	s, err := jsonschema.Compile(schema, &jsonschema.Options{Loader: jsonschema.DirLoader(dirs)})
//	if err != nil { ... }          // *CompileError: bad keyword value, unresolvable $ref, bad pattern
//	if err := s.Validate(instance); err != nil {
//		log.Print(err.Summary()) // "/confidence: 1.23 exceeds maximum 1.0 (and 1 more error)"
//	}
//	ok := s.Valid(instance)        // no error details, no allocation on the usual paths
//	ok = s.ValidValue(x)           // the same verdict for a tape.Value, read in place (value.go)
//
// A Schema is compiled once into a graph of typed keyword nodes and is safe for concurrent use.
//
// # Dialect and vocabularies
//
// A missing $schema, "https://json-schema.org/draft/2020-12/schema" and "https://json-schema.org/draft/2020-12"
// (with or without a trailing "#") all mean Draft 2020-12, whose vocabularies the package knows without
// loading anything. Another $schema is loaded through the Loader as a meta-schema and its $vocabulary
// decides which vocabularies apply (core spec §8.1.2); an unknown vocabulary marked required is a compile
// error, an optional one is ignored. Resources declaring the Draft 2019-09 meta-schema (for example a
// remote schema reached by $ref) are evaluated with 2019-09 array semantics: items may be an array,
// additionalItems applies, prefixItems and $dynamicRef are not keywords.
//
// # Output
//
// Validate returns the failing units in the "basic" output form (core spec §12.4.2): for each failing
// keyword its keywordLocation (through any $ref), absoluteKeywordLocation (when the schema resource has an
// absolute $id), instanceLocation (a JSON Pointer) and a message that quotes the JSON text of the numbers
// involved. Failures inside anyOf/oneOf branches are kept only when the whole keyword fails, alongside a
// unit for the keyword itself. Summary gives one line, preferring a concrete failure outside any
// alternative.
//
// # External resources
//
// The package does no I/O of its own. Schemas not found in the document being compiled are requested
// from Options.Loader; with no Loader they are a compile error. DirLoader maps URI prefixes to local
// directories through os.OpenRoot, so a URI cannot name a file outside its directory.
//
// # Limits
//
// Compilation works from a queue, so neither nesting nor $ref chains grow the stack; it stops with an
// error beyond 1000 levels of schema nesting, 2^20 subschemas or 1000 loaded documents, and when a regular
// expression's estimated size (its RE2 program, with repeats written out, plus the ranges of its Unicode
// classes) passes 2^18, or those of all the regular expressions together pass 2^20. Validation stops
// with an error (the instance is reported invalid) when a $ref or $dynamicRef re-enters the same schema at
// the same instance location, beyond 1000 nested schema evaluations, or beyond 10^7 steps in one call. A
// step is one schema evaluation or about as much work by keywords: eight of the members, items, names,
// enum values and string bytes they go through; while building units, also one failure found or one
// comparison made ordering an object's members. This bounds exponential $ref fan-out as well as a schema that repeats
// linear work over a large instance. At most 1000 units, with at most 1 MB of locations and messages
// between them, are reported, and messages quote at most 64 characters of a string and 80 bytes of any
// other value. Regular expressions run on RE2 in linear time; uniqueItems hashes items, so it is linear
// too.
//
// # Deviations from the specification
//
//   - Regular expressions (pattern, patternProperties, format "regex") are ECMA-262 in the specification
//     and RE2 here. Patterns are translated: \s and \S use the ECMA-262 white space set, "." excludes all
//     four ECMA-262 line terminators, \cX, \uXXXX (including surrogate pairs), \u{...}, \p{Letter}-style
//     long property names, [] and [^] are supported; \d, \w and \b are ASCII-only in both. Lookahead,
//     lookbehind and backreferences have no RE2 equivalent: a pattern using them is a compile error
//     naming the pattern (format "regex" still accepts them as valid syntax). So is a pattern beyond the
//     size limit (see Limits), which format "regex" accepts without reading it to the end.
//   - format is an annotation unless Options.AssertFormat is set or the dialect includes the
//     format-assertion vocabulary. Unknown formats are always ignored, also under format-assertion, where
//     the specification asks implementations to refuse them.
//   - idn-hostname and the A-label checks of hostname implement IDNA2008 (RFC 5891-5893) with code point
//     classes approximated from the standard library's Unicode categories and scripts: the exceptions
//     and contextual rules are exact, but derived properties Go does not expose (NFC, NFKC case-folding
//     stability, joining types, bidi classes) are approximations.
//   - The content vocabulary (contentEncoding, contentMediaType, contentSchema) is annotation-only, as
//     2020-12 allows; annotations are not reported.
//   - Draft 2019-09 resources: $recursiveRef and $recursiveAnchor are not supported (ignored). Earlier
//     drafts are not recognised; their $schema must be loadable as a meta-schema.
//   - The schema itself is not validated against its meta-schema; keyword values the compiler needs
//     (numbers, strings, arrays of schemas, ...) are checked and reported as compile errors.
//   - A root schema without $id gets the base URI "attest-engine:///schema.json"; locations under it are
//     not reported as absoluteKeywordLocation.
package jsonschema
