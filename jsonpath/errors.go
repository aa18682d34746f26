// errors.go: the syntax error type and the limits that bound every expression.

package jsonpath

import "fmt"

// Limits on an expression. They make the cost of parsing and of selecting
// proportional to the expression and the document, whatever the input.
const (
	// maxExprLen is the longest expression accepted, in bytes.
	maxExprLen = 4096
	// maxSegments caps the segments of an expression, counting those of
	// the queries inside filters.
	maxSegments = 128
)

// SyntaxError reports an expression that is not in the subset, with the
// byte offset at which the problem was found.
type SyntaxError struct {
	Offset int    // byte offset into the expression
	Msg    string // what is wrong, without the offset
}

func (e *SyntaxError) Error() string {
	return fmt.Sprintf("jsonpath: %s at offset %d", e.Msg, e.Offset)
}
