// errors.go: wire error codes (spec §5 and JSON-RPC 2.0) and the one mapping from package errors to them.

package rpc

import (
	"errors"
	"fmt"

	"attest-engine/assert"
)

// Wire codes are part of a published protocol: explicit numbers, never iota.
// An evaluation's own codes (1001, 1002, 2001, 3001, 3002) are the
// evaluation core's (assert.FailureOf); the protocol adds these.
const (
	codeParseError     = -32700
	codeInvalidRequest = -32600
	codeMethodNotFound = -32601
	codeInvalidParams  = -32602

	codeInvalidTrace   = assert.CodeInvalidTrace
	codeAssertionError = assert.CodeAssertionError
	codeEngineError    = assert.CodeEngineError
	codeSessionError   = 3003 // SESSION_ERROR
)

// errorType names each code for the error's data.error_type (spec §5). The
// JSON-RPC codes have no name in the spec; they get the JSON-RPC 2.0 ones.
func errorType(code int) string {
	switch code {
	case codeParseError:
		return "PARSE_ERROR"
	case codeInvalidRequest:
		return "INVALID_REQUEST"
	case codeMethodNotFound:
		return "METHOD_NOT_FOUND"
	case codeInvalidParams:
		return "INVALID_PARAMS"
	case codeSessionError:
		return "SESSION_ERROR"
	}
	return assert.ErrorType(code)
}

// Error is a JSON-RPC error object with the spec's data field.
type Error struct {
	Code      int
	Message   string
	Retryable bool
	Detail    string
}

func (e *Error) Error() string { return fmt.Sprintf("%d %s", e.Code, e.Message) }

func newError(code int, detail, format string, args ...any) *Error {
	return &Error{Code: code, Message: fmt.Sprintf(format, args...), Detail: detail}
}

// sessionError is a SESSION_ERROR (3003).
func sessionError(message, detail string) *Error {
	return &Error{Code: codeSessionError, Message: message, Detail: detail}
}

// toWire maps any error from the engine's packages to its wire form: the
// protocol's own errors as they are, the rest as the evaluation core maps
// them (assert.FailureOf).
func (s *Server) toWire(err error) *Error {
	var we *Error
	if errors.As(err, &we) {
		return we
	}
	f := assert.FailureOf(err, s.evalTimeout)
	return &Error{Code: f.Code, Message: f.Message, Detail: f.Detail, Retryable: f.Retryable}
}
