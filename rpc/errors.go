// errors.go: wire error codes (spec §5 and JSON-RPC 2.0) and the one mapping from package errors to them.

package rpc

import (
	"context"
	"errors"
	"fmt"
	"time"

	"attest-engine/assert"
	"attest-engine/provider"
	"attest-engine/trace"
)

// Wire codes are part of a published protocol: explicit numbers, never iota.
const (
	codeParseError     = -32700
	codeInvalidRequest = -32600
	codeMethodNotFound = -32601
	codeInvalidParams  = -32602

	codeInvalidTrace   = 1001 // INVALID_TRACE
	codeAssertionError = 1002 // ASSERTION_ERROR
	codeProviderError  = 2001 // PROVIDER_ERROR
	codeEngineError    = 3001 // ENGINE_ERROR
	codeTimeout        = 3002 // TIMEOUT
	codeSessionError   = 3003 // SESSION_ERROR
)

// errorTypes names each code for the error's data.error_type (spec §5). The
// JSON-RPC codes have no name in the spec; they get the JSON-RPC 2.0 ones.
var errorTypes = map[int]string{
	codeParseError:     "PARSE_ERROR",
	codeInvalidRequest: "INVALID_REQUEST",
	codeMethodNotFound: "METHOD_NOT_FOUND",
	codeInvalidParams:  "INVALID_PARAMS",
	codeInvalidTrace:   "INVALID_TRACE",
	codeAssertionError: "ASSERTION_ERROR",
	codeProviderError:  "PROVIDER_ERROR",
	codeEngineError:    "ENGINE_ERROR",
	codeTimeout:        "TIMEOUT",
	codeSessionError:   "SESSION_ERROR",
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

// toWire maps any error from the engine's packages to its wire form. It is
// the only place where package errors meet protocol codes.
func (s *Server) toWire(err error) *Error { return wireError(err, s.evalTimeout) }

// wireError is toWire for an evaluation under the given time limit (the
// TIMEOUT message names it); the CLI's eval uses it too.
func wireError(err error, timeout time.Duration) *Error {
	var (
		we *Error
		te *trace.Error
		ae *assert.Error
		pe *provider.Error
	)
	switch {
	case errors.As(err, &we):
		return we
	case errors.As(err, &te):
		return &Error{Code: codeInvalidTrace, Message: te.Message, Detail: te.Detail}
	case errors.As(err, &ae):
		return &Error{Code: codeAssertionError, Message: ae.Error(), Detail: ae.Detail}
	case errors.As(err, &pe):
		// Spec §5 table: PROVIDER_ERROR is retryable, "invalid API key"
		// included (the SDK may retry once the key is fixed).
		return &Error{Code: codeProviderError, Message: pe.Message, Detail: pe.Detail, Retryable: true}
	case errors.Is(err, context.DeadlineExceeded):
		// Spec §5, TIMEOUT example.
		return &Error{Code: codeTimeout, Retryable: true,
			Message: fmt.Sprintf("evaluation timed out after %dms", (timeout+time.Millisecond-1)/time.Millisecond),
			Detail:  "LLM-backed assertions (layers 5-6) can be slow. Reduce batch size or increase the engine timeout via --eval-timeout flag."}
	default:
		return &Error{Code: codeEngineError, Message: "internal engine error: " + err.Error(),
			Detail: "This is a bug in the engine. Please report it with the engine log (stderr)."}
	}
}
