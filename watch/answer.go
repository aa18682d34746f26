// answer.go: the listener's error answers in the request's encoding: a google.rpc.Status, and the retryable refusals (429, 503) with Retry-After.

package watch

import (
	"encoding/binary"
	"encoding/json"
	"net/http"
	"strconv"
	"strings"
	"time"
)

// statusCode is the google.rpc.Code of an error answer's HTTP status (the
// spec does not use Status.code and clients must not act on it; it is
// there for their logs). Explicit numbers: they are google.rpc's.
func statusCode(httpStatus int) int {
	switch httpStatus {
	case http.StatusBadRequest:
		return 3 // INVALID_ARGUMENT
	case http.StatusNotFound:
		return 5 // NOT_FOUND
	case http.StatusRequestTimeout:
		return 4 // DEADLINE_EXCEEDED
	case http.StatusRequestEntityTooLarge, http.StatusTooManyRequests:
		return 8 // RESOURCE_EXHAUSTED, as gRPC answers a message past its limit
	case http.StatusUnsupportedMediaType:
		return 12 // UNIMPLEMENTED
	case http.StatusServiceUnavailable:
		return 14 // UNAVAILABLE
	}
	return 0
}

// rpcStatus is a google.rpc.Status {code = 1, message = 2} in binary
// protobuf (a varint and a length-delimited string). A proto3 string is
// UTF-8, and a client's parser refuses a Status whose message is not, so
// an invalid byte becomes U+FFFD (as encoding/json writes it in JSON).
func rpcStatus(code int, msg string) []byte {
	msg = strings.ToValidUTF8(msg, "\uFFFD")
	b := binary.AppendUvarint([]byte{0x08}, uint64(code))       // field 1, varint
	b = binary.AppendUvarint(append(b, 0x12), uint64(len(msg))) // field 2, length-delimited
	return append(b, msg...)
}

// answer writes an HTTP error answer in the encoding ctype names
// (protobufType or jsonType): a google.rpc.Status with the code's
// google.rpc.Code and msg (OTLP spec, "OTLP/HTTP Response": "The server
// MUST use the same Content-Type in the response as it received in the
// request").
func answer(w http.ResponseWriter, ctype string, code int, msg string) {
	w.Header().Set("Content-Type", ctype)
	w.WriteHeader(code)
	if ctype == protobufType {
		w.Write(rpcStatus(statusCode(code), msg))
		return
	}
	b, _ := json.Marshal(struct {
		Code    int    `json:"code"`
		Message string `json:"message"`
	}{statusCode(code), msg})
	w.Write(append(b, '\n'))
}

// refuse answers a request the engine cannot take now but will later:
// 429 Too Many Requests or 503 Service Unavailable, the OTLP/HTTP answers
// a client retries ("OTLP/HTTP Throttling": the client SHOULD wait for the
// Retry-After header's delay when it is present), as the OpenTelemetry
// Collector's memory limiter refuses data rather than grow. Nothing of the
// request has been taken, so nothing acknowledged is lost. Retry-After is
// in whole seconds, at least 1.
func refuse(w http.ResponseWriter, ctype string, code int, after time.Duration, msg string) {
	secs := max(int((after+time.Second-1)/time.Second), 1)
	w.Header().Set("Retry-After", strconv.Itoa(secs))
	answer(w, ctype, code, msg)
}
