// Package xmlout writes the small XML documents of the engine's JUnit
// reports: elements with attributes, character data and child elements,
// indented and escaped byte for byte as encoding/xml's Encoder with Indent
// writes them (TestMatchesEncodingXML, FuzzMatchesEncodingXML).
//
// encoding/xml is not linked in: its package initialization builds a table
// of 252 HTML entities that every start of the engine would pay for, a
// session's included (docs/performance.md, "Start-up"), and the reports use
// none of its decoding.
//
// Escaping: the five markup characters, tab, line feed and carriage return
// are written as character references, and every character XML 1.0 cannot
// hold (§2.2 Char: most C0 controls, surrogates, U+FFFE, U+FFFF) as well
// as each byte of invalid UTF-8 becomes U+FFFD, so any Go string makes a
// well-formed document.
package xmlout
