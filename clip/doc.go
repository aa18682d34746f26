// Package clip shortens text for messages, the one rule every message of
// the engine follows: at most n bytes of the text, cut at a character
// boundary (never inside a UTF-8 sequence, so valid text stays valid), and
// the marker "…" after it when anything was cut.
package clip
