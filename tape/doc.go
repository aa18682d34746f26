// Package tape parses a JSON text once into a flat list of tokens (a tape)
// that readers walk in place: a request line is checked whole (RFC 8259
// grammar, UTF-8, nesting, duplicate member names) in one pass, and only
// the parts that something reads become Go values.
//
// A Doc holds the text and its nodes. Each node is one token: a scalar, or
// an array or object followed by its elements (for an object, each
// member's name node then its value's nodes) and the index past its
// subtree, so a reader skips a whole value in one step. A Value is a node of
// a Doc; Any turns one into the engine's value model (nil, bool, string,
// json.Number, []any, map[string]any), which is what trace.Decode returns.
//
// The parser is recursive, with nesting bounded by MaxDepth. Every check
// and error message is the one the engine has always given, so that an
// answer to a malformed line does not depend on which reader saw it.
package tape
