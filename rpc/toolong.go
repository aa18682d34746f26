// toolong.go: answering a line over the size limit, with its id when the line's start reveals it.

package rpc

import (
	"bytes"
	"fmt"

	"attest-engine/tape"
	"attest-engine/trace"
)

// answerTooLong answers a line that was discarded for its size. Its first
// bytes are scanned for the top-level "id" and "method" members: SDKs write
// them before params, so the error can usually carry the id.
func (s *Server) answerTooLong(prefix []byte, size int) {
	id, method, found := recoverID(prefix)
	req := &request{id: id, method: method}
	msg := fmt.Sprintf("request line exceeds max size: %d > %d bytes", size, s.maxLine)
	code := codeInvalidRequest
	if method == "evaluate_batch" {
		code = codeInvalidTrace // the trace is what makes a request this large
	}
	s.log.Warn("discarded oversized request line", "bytes", size, "id_recovered", found)
	s.replyError(req, &Error{Code: code, Message: msg, Detail: trace.SizeDetail})
}

// recoverID scans the top-level members of a (possibly truncated) JSON
// object for "id" and "method" without decoding anything else.
func recoverID(b []byte) (id any, method string, found bool) {
	topMembers(b, func(key string, raw []byte) bool {
		switch key {
		case "id", "method":
			doc, err := tape.ParseUnique(raw) // a duplicate member: not one value to trust
			if err != nil {
				return true
			}
			switch v := doc.Root(); {
			case key == "method":
				method = v.Str() // "" unless a string
			case v.Kind() == tape.String || v.Kind() == tape.Number:
				id, found = v.Any(), true
			}
			doc.Release()
		}
		return true
	})
	return id, method, found
}

// sniffMethod reads the top-level "method" of a request line without decoding
// it, stopping there: SDKs write it before params, so this looks at a few
// dozen bytes. ok is false unless the method is a plain string literal.
// The name is a slice of b.
func sniffMethod(b []byte) (method []byte, ok bool) {
	topMembers(b, func(key string, raw []byte) bool {
		if key != "method" {
			return true
		}
		if len(raw) >= 2 && raw[0] == '"' && raw[len(raw)-1] == '"' && bytes.IndexByte(raw, '\\') < 0 {
			method, ok = raw[1:len(raw)-1], true
		}
		return false
	})
	return method, ok
}

// topMembers calls fn with the name and raw value text of each top-level
// member of a JSON object, in order, until fn returns false or the text
// (which may be truncated or malformed) stops making sense. Names keep their
// escapes: the names looked for have none.
func topMembers(b []byte, fn func(key string, raw []byte) bool) {
	sc := scanner{b: b}
	sc.space()
	if !sc.eat('{') {
		return
	}
	for {
		sc.space()
		key, ok := sc.str()
		if !ok {
			return
		}
		sc.space()
		if !sc.eat(':') {
			return
		}
		sc.space()
		start := sc.i
		if !sc.skip() || !fn(key, b[start:sc.i]) {
			return
		}
		sc.space()
		if !sc.eat(',') {
			return
		}
	}
}

// scanner walks JSON text just enough to find member boundaries.
type scanner struct {
	b []byte
	i int
}

func (s *scanner) space() {
	for s.i < len(s.b) && (s.b[s.i] == ' ' || s.b[s.i] == '\t' || s.b[s.i] == '\n' || s.b[s.i] == '\r') {
		s.i++
	}
}

func (s *scanner) eat(c byte) bool {
	if s.i < len(s.b) && s.b[s.i] == c {
		s.i++
		return true
	}
	return false
}

// str reads a string's raw content (escapes kept; names we look for have none).
func (s *scanner) str() (string, bool) {
	if !s.eat('"') {
		return "", false
	}
	start := s.i
	for s.i < len(s.b) {
		switch s.b[s.i] {
		case '\\':
			s.i += 2
		case '"':
			s.i++
			return string(s.b[start : s.i-1]), true
		default:
			s.i++
		}
	}
	return "", false
}

// skip moves past one value; false when the input ends first.
func (s *scanner) skip() bool {
	depth := 0
	for s.i < len(s.b) {
		switch c := s.b[s.i]; c {
		case '"':
			if _, ok := s.str(); !ok {
				return false
			}
			if depth == 0 {
				return true
			}
			continue
		case '{', '[':
			depth++
		case '}', ']':
			if depth == 0 {
				return true // end of the enclosing object
			}
			depth--
			if depth == 0 {
				s.i++
				return true
			}
		case ',':
			if depth == 0 {
				return true
			}
		}
		s.i++
	}
	return false
}
