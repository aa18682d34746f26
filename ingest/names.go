// names.go: an OTLP/JSON body's member names, unique in every object, as in every JSON the engine reads.

package ingest

import (
	"bytes"
	"fmt"
	"hash/maphash"
	"slices"
	"strconv"
	"unicode"
	"unicode/utf8"
)

// nameSeed keys the member-name hashes: random per process, so that no
// body can be made of names whose hashes collide.
var nameSeed = maphash.MakeSeed()

// uniqueNames returns an error for the first object of the valid JSON
// text b that repeats a member name: the same name twice, or two names
// equal without regard to case, since the walk matches names as
// encoding/json does (fieldIs) and would silently keep the last. The
// engine's other JSON inputs refuse repeated names (package tape), and a
// repeated member is a body two readers can read two ways: one OTLP
// receiver keeps the first "traceId", another the last.
//
// Every object is checked, those the walk never reads included. Names are
// compared by a 64-bit hash of their case-folded text (seeded: nameSeed),
// and by their text when two hashes match; checking holds 8 bytes per
// member name of the objects open at once, at most 8 bytes per 5 bytes of
// body, and encoding/json's validity check, which runs first, bounds the
// nesting to 10,000 levels.
func uniqueNames(b []byte) error {
	type open struct {
		from int // where its names start in names; -1 for an array
		at   int // its '{' in b
	}
	var stack []open
	var names []uint64
	var fold []byte
	for i := 0; i < len(b); i++ {
		switch b[i] {
		case '{':
			stack = append(stack, open{len(names), i})
		case '[':
			stack = append(stack, open{-1, i})
		case '}', ']':
			top := stack[len(stack)-1]
			stack = stack[:len(stack)-1]
			if top.from < 0 {
				continue
			}
			if seg := names[top.from:]; len(seg) > 1 {
				slices.Sort(seg)
				for j := 1; j < len(seg); j++ {
					if seg[j] == seg[j-1] {
						if err := repeatedName(b[top.at:]); err != nil {
							return err
						}
						break // two names' hashes collided: a repeat of neither
					}
				}
			}
			names = names[:top.from]
		case '"':
			end := stringEnd(b, i)
			if len(stack) > 0 && stack[len(stack)-1].from >= 0 && isName(b, end+1) {
				fold = foldName(fold[:0], b[i:end+1])
				names = append(names, maphash.Bytes(nameSeed, fold))
			}
			i = end
		}
	}
	return nil
}

// isName: the string that ends before b[i] is an object's member name (a
// ':' follows it), not a value.
func isName(b []byte, i int) bool {
	i = skipSpace(b, i)
	return i < len(b) && b[i] == ':'
}

// repeatedName returns the error for the object starting at obj[0] when two
// of its member names are equal without regard to case, else nil. It runs
// only when two names' hashes match: on a repeat, which ends the parse, or
// on a collision of 64-bit seeded hashes.
func repeatedName(obj []byte) error {
	seen := map[string]string{}
	var dup error
	_ = members(obj[:skipValue(obj, 0)], "", func(key string, _ []byte) error {
		f := string(foldString(nil, key))
		if first, ok := seen[f]; ok {
			if first == key {
				dup = fmt.Errorf("member %s appears twice in one object: a repeated name is refused, as in every JSON the engine reads", clipped(strconv.Quote(key)))
			} else {
				dup = fmt.Errorf("members %s and %s name the same field (names are matched without regard to case): a repeated name is refused", clipped(strconv.Quote(first)), clipped(strconv.Quote(key)))
			}
			return dup
		}
		seen[f] = key
		return nil
	})
	return dup
}

// foldName appends to dst the text of the JSON string q (quotes included)
// folded by foldString.
func foldName(dst, q []byte) []byte {
	if in := q[1 : len(q)-1]; bytes.IndexByte(in, '\\') < 0 && utf8.Valid(in) {
		return foldString(dst, in) // most names: no string made
	}
	s, err := unquote(q)
	if err != nil { // never for valid JSON
		s = string(q)
	}
	return foldString(dst, s)
}

// foldString appends s to dst folded as strings.EqualFold compares text:
// each character replaced by the smallest of its simple case folding orbit
// ("k", "K" and U+212A KELVIN SIGN all by "K"), so two names are EqualFold
// exactly when their foldings are equal.
func foldString[T string | []byte](dst []byte, s T) []byte {
	for len(s) > 0 {
		r, size := rune(s[0]), 1
		if r >= utf8.RuneSelf {
			r, size = decodeRune(s)
		}
		s = s[size:]
		if r < utf8.RuneSelf {
			if 'a' <= r && r <= 'z' {
				r -= 'a' - 'A'
			}
			dst = append(dst, byte(r))
			continue
		}
		dst = utf8.AppendRune(dst, foldRune(r))
	}
	return dst
}

func decodeRune[T string | []byte](s T) (rune, int) {
	if b, ok := any(s).([]byte); ok {
		return utf8.DecodeRune(b)
	}
	return utf8.DecodeRuneInString(string(s))
}

// foldRune is the smallest rune of r's simple case folding orbit.
func foldRune(r rune) rune {
	least := r
	for f := unicode.SimpleFold(r); f != r; f = unicode.SimpleFold(f) {
		least = min(least, f)
	}
	return least
}
