// chunks.go: an OTLP request's spans handed on in chunks of bounded memory, the request taken whole or not at all.

package ingest

// DefaultChunk is the memory (Span.Size) of the spans one chunk holds at
// most: large enough that an exporter's batch (512 spans by default in the
// SDKs' batch processors) is one chunk, small against the pipeline's bounds.
const DefaultChunk = 1 << 20

// Request is an OTLP export request checked whole, whose spans are then
// handed on chunk by chunk (Each).
type Request struct {
	data  []byte // nil once every span is in first
	each  func([]byte, func(Span) error) error
	max   int
	first []Span
	n     int
}

// CheckOTLP decodes an OTLP/JSON request as [ParseOTLP] does, keeping the
// spans of its first chunk (at most max bytes of Span.Size, or one span
// larger than that) and checking the rest. A request whose spans fit in
// one chunk is decoded once and no longer needs data; a larger one keeps
// data and is decoded again, chunk by chunk, by Each. So a request is taken
// whole or not at all, and what it holds at once is its text and a chunk
// or two, however many spans it carries.
func CheckOTLP(data []byte, max int) (*Request, error) { return check(data, eachOTLP, max) }

// CheckOTLPProto is [CheckOTLP] for a binary protobuf request
// ([ParseOTLPProto]).
func CheckOTLPProto(data []byte, max int) (*Request, error) {
	return checkSized(data, eachOTLPProto, max, protoSpans(data))
}

// CheckOTLPLogs is [CheckOTLP] for an OTLP/JSON logs request
// ([ParseOTLPLogs]): its kept records, carried as Spans, in chunks.
func CheckOTLPLogs(data []byte, max int) (*Request, error) { return check(data, eachOTLPLogs, max) }

// CheckOTLPLogsProto is [CheckOTLP] for a binary protobuf logs request
// ([ParseOTLPLogsProto]).
func CheckOTLPLogsProto(data []byte, max int) (*Request, error) {
	return check(data, eachOTLPLogsProto, max)
}

// ParseOTLPChunks checks an OTLP/JSON request (CheckOTLP) and passes its
// spans to emit, chunk by chunk (Request.Each).
func ParseOTLPChunks(data []byte, max int, emit func(spans []Span, more bool) error) error {
	r, err := CheckOTLP(data, max)
	if err != nil {
		return err
	}
	return r.Each(emit)
}

// ParseOTLPLogsChunks is [ParseOTLPChunks] for an OTLP/JSON logs request.
func ParseOTLPLogsChunks(data []byte, max int, emit func(spans []Span, more bool) error) error {
	r, err := CheckOTLPLogs(data, max)
	if err != nil {
		return err
	}
	return r.Each(emit)
}

// ParseOTLPProtoChunks is [ParseOTLPChunks] for a binary protobuf request.
func ParseOTLPProtoChunks(data []byte, max int, emit func(spans []Span, more bool) error) error {
	r, err := CheckOTLPProto(data, max)
	if err != nil {
		return err
	}
	return r.Each(emit)
}

func check(data []byte, each func([]byte, func(Span) error) error, max int) (*Request, error) {
	return checkSized(data, each, max, 0)
}

// checkSized is check with room for n spans in the first chunk, when they
// were counted beforehand: a request of an exporter's 512 spans is not
// copied into slices twice its size on the way.
func checkSized(data []byte, each func([]byte, func(Span) error) error, max, n int) (*Request, error) {
	r := &Request{data: data, each: each, max: max}
	if n > 0 {
		r.first = make([]Span, 0, min(n, max/heldSpan+1)) // a span's Size is at least heldSpan
	}
	held := 0
	err := each(data, func(sp Span) error {
		if r.n == len(r.first) && (len(r.first) == 0 || held+sp.Size <= max) {
			r.first = append(r.first, sp)
			held += sp.Size
		}
		r.n++
		return nil
	})
	if err != nil {
		return nil, err
	}
	if r.n == len(r.first) {
		r.data = nil
	}
	return r, nil
}

// Spans is the number of spans in the request.
func (r *Request) Spans() int { return r.n }

// Held estimates the bytes the request holds until Each is done: its
// first chunk, and its text when there is more.
func (r *Request) Held() int64 {
	n := int64(len(r.data))
	for _, sp := range r.first {
		n += int64(sp.Size)
	}
	return n
}

// Each passes the request's spans to emit in order, in chunks of at most
// the bound (one larger span alone), more telling whether another chunk
// follows; the receiver owns each chunk. An error from emit ends it and is
// returned as it is. Each is called once.
func (r *Request) Each(emit func(spans []Span, more bool) error) error {
	if r.n == 0 {
		return nil
	}
	first := r.first
	r.first = nil
	if err := emit(first, r.data != nil); err != nil || r.data == nil {
		return err
	}
	// The rest, decoded again, chunk by chunk.
	var chunk []Span
	held, i := 0, 0
	var emitErr error
	err := r.each(r.data, func(sp Span) error {
		if i++; i <= len(first) {
			return nil
		}
		if len(chunk) > 0 && held+sp.Size > r.max {
			if emitErr = emit(chunk, true); emitErr != nil {
				return emitErr
			}
			chunk, held = nil, 0 // handed on: the receiver owns it
		}
		chunk = append(chunk, sp)
		held += sp.Size
		return nil
	})
	r.data = nil
	switch {
	case emitErr != nil:
		return emitErr
	case err != nil: // checked whole before: a decoder that disagrees with itself
		return err
	case len(chunk) > 0:
		return emit(chunk, false)
	}
	return nil
}
