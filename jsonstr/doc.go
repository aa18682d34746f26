// Package jsonstr writes a Go string as a JSON string, the one way the
// engine does it wherever it writes JSON by hand (protocol answers in rpc,
// mapped traces in ingest): byte for byte as encoding/json writes a string
// with HTML escaping off. '"' and '\\' are escaped, control characters
// as \b, \f, \n, \r, \t or \u00XX, invalid UTF-8 becomes \ufffd, and U+2028
// and U+2029 are escaped so that a line is safe for any JSON reader;
// everything else is copied as it is.
package jsonstr
