// lexical.go: the offline "lexical" embedding model: hashed word and character n-grams, stdlib only.

package assert

import (
	"math"
	"unicode"
	"unicode/utf8"
)

// lexicalDims is the lexical model's fixed dimension.
const lexicalDims = 2048

// Feature weights: whole words count most, word pairs capture some order,
// character trigrams tolerate inflection and typos ("refund", "refunded").
const (
	lexWordWeight    = 1.0
	lexBigramWeight  = 0.7
	lexTrigramWeight = 0.3
)

// lexicalVector embeds text with the lexical model: lower-cased words
// (runs of letters and digits), word bigrams, and the character trigrams of
// each word padded with boundary marks, hashed (FNV-1a) into lexicalDims
// non-negative counts, then L2-normalised. It is deterministic, needs no
// network, and runs in time linear in the text. Cosine similarity of two
// such vectors is never negative. It measures shared wording, not meaning:
// "refund approved" and "money returned" score low.
//
// Text with no letters or digits has the zero vector.
func lexicalVector(text string) []float32 {
	acc := make([]float64, lexicalDims)
	var prev, word []byte
	flush := func() {
		if len(word) == 0 {
			return
		}
		acc[lexHash('w', word, nil)] += lexWordWeight
		if prev != nil {
			acc[lexHash('b', prev, word)] += lexBigramWeight
		}
		lexTrigrams(acc, word)
		prev = append(prev[:0], word...)
		word = word[:0]
	}
	for _, r := range text {
		if unicode.IsLetter(r) || unicode.IsDigit(r) {
			word = utf8.AppendRune(word, unicode.ToLower(r))
			continue
		}
		flush()
	}
	flush()

	var norm float64
	for _, x := range acc {
		norm += x * x
	}
	out := make([]float32, lexicalDims)
	if norm == 0 {
		return out
	}
	norm = math.Sqrt(norm)
	for i, x := range acc {
		out[i] = float32(x / norm)
	}
	return out
}

// lexTrigrams adds the character trigrams of "^word$".
func lexTrigrams(acc []float64, word []byte) {
	var runes [3][]byte
	pos := 0
	push := func(r []byte) {
		runes[0], runes[1], runes[2] = runes[1], runes[2], r
		pos++
		if pos >= 3 {
			acc[lexHash3(runes[0], runes[1], runes[2])] += lexTrigramWeight
		}
	}
	push([]byte{'^'})
	for i := 0; i < len(word); {
		_, n := utf8.DecodeRune(word[i:])
		push(word[i : i+n])
		i += n
	}
	push([]byte{'$'})
}

const (
	fnvOffset = 14695981039346656037
	fnvPrime  = 1099511628211
)

func fnvAdd(h uint64, b []byte) uint64 {
	for _, c := range b {
		h ^= uint64(c)
		h *= fnvPrime
	}
	return h
}

// lexHash hashes a kind-tagged word or word pair to a dimension.
func lexHash(kind byte, a, b []byte) int {
	h := fnvAdd(fnvOffset, []byte{kind})
	h = fnvAdd(h, a)
	if b != nil {
		h = fnvAdd(h, []byte{0})
		h = fnvAdd(h, b)
	}
	return int(h % lexicalDims)
}

func lexHash3(a, b, c []byte) int {
	h := fnvAdd(fnvOffset, []byte{'t'})
	h = fnvAdd(h, a)
	h = fnvAdd(h, b)
	h = fnvAdd(h, c)
	return int(h % lexicalDims)
}
