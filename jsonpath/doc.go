// doc.go: the package documentation: grammar, meaning, limits and deviations.

// Package jsonpath resolves the small JSONPath subset that Attest assertions
// use to point into a trace (Attest protocol v1, §3 and §4: the target of
// schema and content assertions, the field of constraint assertions).
//
// A path is parsed once with [Parse] into an immutable [Path], which can be
// cached and shared between goroutines, and applied to any number of
// documents with [Path.Select]. Documents are the values encoding/json
// produces with UseNumber: nil, bool, string, json.Number, []any and
// map[string]any; float64 and Go integers are accepted as numbers too.
//
// [Path.SelectValue] applies a path to a tape.Value in place, without
// building those values: the same matches, in the same order, as Select
// on the value's Any, each [ValueMatch] printing its Location only when
// asked. Both are one walk (select.go, filter.go), written once over a
// small interface (node.go) that a value of either kind implements.
//
// # Two spellings, one meaning
//
// Every expression can be written in the Attest short form used by the
// protocol, or in the RFC 9535 form with a leading "$":
//
//	output.message                       $.output.message
//	output.structured.refund_id          $['output']['structured']['refund_id']
//	metadata.cost_usd                    $.metadata.cost_usd
//	steps.length                         $.steps.length
//	steps[-1].name                       $.steps[-1].name
//	steps[?type=='tool_call'].length     $.steps[?@.type=='tool_call'].length
//	steps[?name=='lookup_order'].result  $.steps[?@.name == "lookup_order"].result
//	steps[?metadata.agent!=null].name    $.steps[?@.metadata.agent != null].name
//	steps[?name=='researcher'].sub_trace.output.message
//	input['user message']                $.input["user message"]
//	steps[*].name                        $.steps.*.name
//
// In the short form the first member name has no "$." before it, and a
// query inside a filter may start with a bare member name, which is
// relative to the element under test (as if written with "@."). An
// expression that starts with "$" is read with the RFC 9535 rules only:
// queries in its filters start with "@" or "$". Either form may use "@"
// and "$" queries in filters.
//
// # Grammar
//
// In the ABNF of RFC 9535, whose rules for whitespace, names, strings and
// numbers this package follows exactly:
//
//	path            = "$" *(S segment)              ; RFC 9535 form
//	                / head *(S segment)             ; short form
//	head            = member-name / "*" / bracketed
//	segment         = "." member-name / ".*" / bracketed
//	bracketed       = "[" S selector S "]"
//	selector        = string / index / "*" / "?" S filter
//	filter          = comparable S ("==" / "!=") S comparable
//	                / query                         ; existence test
//	comparable      = literal / query               ; the query without "*"
//	query           = "@" *(S q-segment)            ; the element under test
//	                / "$" *(S q-segment)            ; the whole document
//	                / member-name *(S q-segment)    ; short form only: as "@."
//	q-segment       = "." member-name / ".*" / "[" S (string / index / "*") S "]"
//	literal         = string / number / "true" / "false" / "null"
//	index           = "0" / ["-"] DIGIT1 *DIGIT     ; within ±(2^53-1)
//	member-name     = name-first *(name-first / DIGIT)
//	name-first      = ALPHA / "_" / %x80-D7FF / %xE000-10FFFF
//	S               = *(%x20 / %x09 / %x0A / %x0D)
//
// Strings are single- or double-quoted with the escapes \b \f \n \r \t \/
// \\ \uXXXX (surrogate pairs only as pairs) and the escaped quote of their
// own kind (\' inside '…', \" inside "…"); control characters must be
// escaped. Numbers are JSON numbers (-0 and exponents allowed, no leading
// zeros, no "+"). Inside a filter, true, false and null are literals; in
// the short form a member of one of those names is written @.true.
// Leading and trailing whitespace is an error, as in RFC 9535.
//
// # Meaning
//
// A path is applied segment by segment, each segment to every value the
// previous one selected, as in RFC 9535 §2.1:
//
//   - .name and ['name'] select the member of an object; [i] selects an
//     element of an array, counting from the end when i is negative (-1 is
//     the last). Anything else selects nothing.
//   - .* and [*] select every element of an array, or every member of an
//     object.
//   - [?filter] selects the elements of an array (members of an object)
//     for which the filter holds. A comparison is true when both sides
//     select nothing, or both select equal values: same type, numbers
//     equal by value (1 == 1.0 == 1e0, compared exactly), strings equal by
//     code points, arrays and objects equal member by member. != is its
//     negation, so steps[?metadata.agent!='x'] keeps steps with no agent.
//     An existence test holds when its query selects something, even null.
//   - .length (spelled with a dot, or bare in the short form) is the length
//     rule of the Attest protocol. On an object that has a member named
//     "length" it selects that member. On an array it yields the number of
//     elements, on a string the number of Unicode code points, both as a
//     json.Number. Directly after a wildcard or a filter it yields, for each
//     array or object the wildcard or filter was applied to, the number of
//     matches (0 when none): steps[?type=='tool_call'].length is the count
//     of tool calls, even if a step has a "length" member. ['length']
//     always means the member. Inside a filter the same rule applies, but a
//     wildcard there cannot be counted.
//
// Matches come in document order. Objects decoded by encoding/json do not
// keep the order of their members, so their members are visited in sorted
// order of names. Each [Match] carries a Location, printed in the short form
// (steps[2].result.amount, steps[?type=='tool_call'].length, "$" for the
// document itself), which is itself a path selecting exactly that match,
// and the index of the top-level step it went through.
//
// [Path.String] prints the canonical short form; parsing it gives the same
// Path. [Path.IsSingular] reports paths that select at most one value: no
// wildcard or filter, except those followed by .length.
//
// # Limits
//
// Expressions are at most 4096 bytes and 128 segments, counting those of
// queries in filters; filters do not nest. Longer or deeper expressions are
// a [SyntaxError], like any other expression outside the subset, and carry
// the byte offset of the problem. Select visits each value of the document
// at most once per segment; a comparison costs at most the size of the
// smaller value compared; a filter that does not depend on the element
// (such as $.a == $.b) is evaluated once per Select, not once per element.
//
// # Deviations from the specification
//
// Compared with RFC 9535:
//
//   - Not supported, and a syntax error: descendant segments (..), array
//     slices ([1:2]), unions ([0,1], ['a','b']), the comparisons <, <=, >,
//     >=, the logical operators &&, || and !, parentheses, function
//     extensions (length(), count(), match(), search(), value()), and
//     filters inside filters.
//   - .length is not a plain member name: see the length rule above. RFC
//     9535 selects nothing for $.steps.length; here it is the length.
//   - The short form (no "$", bare names in filter queries) is an Attest
//     extension; with a leading "$" the RFC 9535 syntax is required.
//   - Members of an object are visited in sorted order of names where RFC
//     9535 leaves the order to the implementation.
//
// The RFC 9535 compliance test suite runs in this package's tests; the
// tests it skips, each with its reason, are listed in
// testdata/jsonpath/cts_skipped.txt.
package jsonpath
