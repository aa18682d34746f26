// otlpproto.go: OTLP binary protobuf trace export requests (OTLP/HTTP's default encoding) decoded into the spans OTLP/JSON gives.

package ingest

import (
	"encoding/hex"
	"errors"
	"fmt"
	"strconv"
)

// maxProtoAttrs bounds the attributes of a span, an event or a key-value
// list read from protobuf (docs/security.md). Past it the further ones are
// dropped, as OpenTelemetry SDKs drop past their own limits (128 by
// default): an empty attribute costs two bytes on the wire and far more in
// memory, so a body of --max-line bytes alone does not bound what a span
// holds. Events are bounded as from JSON (eventKeeper).
const maxProtoAttrs = 1024

// desc names a known field and its wire type; a schema is indexed by field
// number, the zero desc meaning an unknown field (skipped).
type desc struct {
	name string
	typ  wireType
}

type schema []desc

// Field numbers and types of opentelemetry-proto's messages
// (collector/trace/v1/trace_service.proto, trace/v1/trace.proto,
// resource/v1/resource.proto, common/v1/common.proto). The names are the
// OTLP/JSON member names, so errors read the same in both encodings.
var (
	requestSchema       = schema{1: {"resourceSpans", wireBytes}}
	resourceSpansSchema = schema{1: {"resource", wireBytes}, 2: {"scopeSpans", wireBytes}, 3: {"schemaUrl", wireBytes}}
	resourceSchema      = schema{1: {"attributes", wireBytes}, 2: {"droppedAttributesCount", wireVarint}}
	scopeSpansSchema    = schema{1: {"scope", wireBytes}, 2: {"spans", wireBytes}, 3: {"schemaUrl", wireBytes}}
	spanSchema          = schema{1: {"traceId", wireBytes}, 2: {"spanId", wireBytes}, 3: {"traceState", wireBytes},
		4: {"parentSpanId", wireBytes}, 5: {"name", wireBytes}, 6: {"kind", wireVarint},
		7: {"startTimeUnixNano", wireFixed64}, 8: {"endTimeUnixNano", wireFixed64}, 9: {"attributes", wireBytes},
		10: {"droppedAttributesCount", wireVarint}, 11: {"events", wireBytes}, 12: {"droppedEventsCount", wireVarint},
		13: {"links", wireBytes}, 14: {"droppedLinksCount", wireVarint}, 15: {"status", wireBytes}, 16: {"flags", wireFixed32}}
	eventSchema = schema{1: {"timeUnixNano", wireFixed64}, 2: {"name", wireBytes}, 3: {"attributes", wireBytes},
		4: {"droppedAttributesCount", wireVarint}}
	statusSchema   = schema{2: {"message", wireBytes}, 3: {"code", wireVarint}}
	keyValueSchema = schema{1: {"key", wireBytes}, 2: {"value", wireBytes}}
	anyValueSchema = schema{1: {"stringValue", wireBytes}, 2: {"boolValue", wireVarint}, 3: {"intValue", wireVarint},
		4: {"doubleValue", wireFixed64}, 5: {"arrayValue", wireBytes}, 6: {"kvlistValue", wireBytes}, 7: {"bytesValue", wireBytes}}
	listSchema = schema{1: {"values", wireBytes}} // ArrayValue and KeyValueList
)

// nextIn reads the next field and checks its wire type when s knows it.
func (r *fields) nextIn(s schema) (field, error) {
	f, err := r.next()
	if err == nil && int(f.num) < len(s) && s[f.num].name != "" {
		err = f.want(s[f.num].typ, s[f.num].name)
	}
	return f, err
}

// ParseOTLPProto decodes one binary protobuf ExportTraceServiceRequest
// (the body of POST /v1/traces with Content-Type application/x-protobuf)
// into the spans [ParseOTLP] gives for the same request in OTLP/JSON, with
// the same errors for invalid ids and nesting. Fields come in any order,
// unknown ones are skipped, a repeated scalar keeps its last value and a
// repeated message field is merged, as protobuf parsers do; a known field
// with another wire type is an error.
func ParseOTLPProto(data []byte) ([]Span, error) {
	var spans []Span
	err := eachOTLPProto(data, func(sp Span) error {
		spans = append(spans, sp)
		return nil
	})
	if err != nil {
		return nil, err
	}
	return spans, nil
}

// protoSpans counts the spans of a protobuf request by its framing alone,
// nothing decoded: 0 when the framing is broken (decoding says how).
func protoSpans(data []byte) int {
	n := 0
	for r := (fields{b: data}); r.more(); {
		f, err := r.next()
		if err != nil {
			return 0
		}
		if f.num != 1 || f.typ != wireBytes {
			continue
		}
		for rs := (fields{b: f.b}); rs.more(); {
			g, err := rs.next()
			if err != nil {
				return 0
			}
			if g.num != 2 || g.typ != wireBytes {
				continue
			}
			for ss := (fields{b: g.b}); ss.more(); {
				h, err := ss.next()
				if err != nil {
					return 0
				}
				if h.num == 2 && h.typ == wireBytes {
					n++
				}
			}
		}
	}
	return n
}

// eachOTLPProto decodes a protobuf request as ParseOTLPProto does, passing
// each span to visit in order; an error from visit ends the walk and is
// returned.
func eachOTLPProto(data []byte, visit func(Span) error) error {
	n := 0
	r := fields{b: data}
	for r.more() {
		f, err := r.nextIn(requestSchema)
		if err != nil {
			return fmt.Errorf("OTLP/protobuf: %v", err)
		}
		if f.num == 1 {
			if err := eachResourceSpans(f.b, &n, visit); err != nil {
				return err
			}
		}
	}
	return nil
}

func eachResourceSpans(b []byte, n *int, visit func(Span) error) error {
	service, err := resourceService(b)
	if err != nil {
		return fmt.Errorf("OTLP/protobuf: resource: %v", err)
	}
	r := fields{b: b}
	for r.more() {
		f, _ := r.nextIn(resourceSpansSchema) // read whole by resourceService
		if f.num != 2 {
			continue
		}
		s := fields{b: f.b}
		for s.more() {
			g, err := s.nextIn(scopeSpansSchema)
			if err != nil {
				return fmt.Errorf("OTLP/protobuf: scopeSpans: %v", err)
			}
			if g.num != 2 {
				continue
			}
			sp, err := decodeSpan(g.b)
			if err != nil {
				return fmt.Errorf("OTLP/protobuf span %d: %v", *n, err)
			}
			sp.Service = service
			*n++
			if err := visit(sp); err != nil {
				return err
			}
		}
	}
	return nil
}

// resourceService is the resource attribute service.name when it is a
// string. As for OTLP/JSON, an attribute nested too deeply leaves the
// service unnamed rather than refusing the spans; only the service's
// value is built, the others are only checked.
func resourceService(b []byte) (string, error) {
	var service any
	deep := false
	r := fields{b: b}
	for r.more() {
		f, err := r.nextIn(resourceSpansSchema)
		if err != nil {
			return "", err
		}
		if f.num != 1 {
			continue
		}
		res := fields{b: f.b}
		for res.more() {
			g, err := res.nextIn(resourceSchema)
			if err != nil {
				return "", err
			}
			if g.num != 1 {
				continue
			}
			key, val, err := readKeyValue(g.b)
			if err != nil {
				return "", fmt.Errorf("attribute: %v", err)
			}
			isService := string(key) == "service.name"
			v, err := value(val, 1, isService && !deep)
			switch {
			case errors.Is(err, errDepth):
				deep = true
			case err != nil:
				return "", fmt.Errorf("attribute %s: %v", clipped(strconv.Quote(pbString(key))), err)
			case isService:
				service = v
			}
		}
	}
	if deep {
		return "", nil
	}
	s, _ := service.(string)
	return s, nil
}

// decodeSpan reads a span in two steps, so that its errors come in the
// order OTLP/JSON reports them whatever the order of the fields: first
// the scalar fields (the whole span's framing checked), then the ids, the
// attributes and the events.
func decodeSpan(b []byte) (Span, error) {
	var sp Span
	var traceID, spanID, parentID []byte
	attrs, events := 0, 0
	r := fields{b: b}
	for r.more() {
		f, err := r.nextIn(spanSchema)
		if err != nil {
			return Span{}, err
		}
		switch f.num {
		case 1:
			traceID = f.b
		case 2:
			spanID = f.b
		case 4:
			parentID = f.b
		case 5:
			sp.Name = pbString(f.b)
		case 7:
			sp.Start = clampNanos(wireUint(f.u))
		case 8:
			sp.End = clampNanos(wireUint(f.u))
		case 9:
			attrs++
		case 11:
			events++
		case 15: // a message field sent twice is merged: read each in turn
			if err := readStatus(f.b, &sp); err != nil {
				return Span{}, fmt.Errorf("status: %v", err)
			}
		}
	}
	if err := protoIDs(&sp, traceID, spanID, parentID); err != nil {
		return Span{}, err
	}
	var err error
	if attrs > 0 {
		if sp.Attrs, err = attrMapProto(msg{cur: fields{b: b}}, 9, spanSchema, attrs, 0, true); err != nil {
			return Span{}, err
		}
	}
	if events > 0 {
		// Every event is read, one at a time, and kept as ParseOTLP keeps
		// them (eventKeeper).
		var ev eventKeeper
		r := fields{b: b}
		for r.more() {
			f, _ := r.nextIn(spanSchema) // framing checked above
			if f.num != 11 {
				continue
			}
			e, err := decodeEvent(f.b)
			if err != nil {
				return Span{}, err
			}
			ev.keep(e.Name, e.Time, e.Attrs)
		}
		sp.Events = ev.kept
	}
	sp.Size = spanHeld(&sp)
	return sp, nil
}

func decodeEvent(b []byte) (Event, error) {
	var e Event
	attrs := 0
	r := fields{b: b}
	for r.more() {
		f, err := r.nextIn(eventSchema)
		if err != nil {
			return Event{}, fmt.Errorf("event: %v", err)
		}
		switch f.num {
		case 1:
			e.Time = clampNanos(wireUint(f.u))
		case 2:
			e.Name = pbString(f.b)
		case 3:
			attrs++
		}
	}
	if attrs > 0 {
		var err error
		if e.Attrs, err = attrMapProto(msg{cur: fields{b: b}}, 3, eventSchema, attrs, 0, true); err != nil {
			return Event{}, err
		}
	}
	return e, nil
}

func readStatus(b []byte, sp *Span) error {
	r := fields{b: b}
	for r.more() {
		f, err := r.nextIn(statusSchema)
		if err != nil {
			return err
		}
		switch f.num {
		case 2:
			sp.Status = pbString(f.b)
		case 3: // an enum is an int32: protobuf parsers keep the low 32 bits
			sp.Error = int32(f.u) == 2 // STATUS_CODE_ERROR
		}
	}
	return nil
}

// checkProtoID checks an id given as raw bytes: exactly n of them, not
// all zero (trace.proto: "An ID with all zeroes OR of length other than
// 16 bytes is considered invalid", 8 for span ids).
func checkProtoID(b []byte, n int, field string) error {
	if len(b) != n {
		return fmt.Errorf("%s is %d bytes, not %d", field, len(b), n)
	}
	if allZero(b) {
		return fmt.Errorf("%s is all zeros (an invalid id)", field)
	}
	return nil
}

// protoID is a checked id (checkProtoID) as hex.
func protoID(b []byte, n int, field string) (string, error) {
	if err := checkProtoID(b, n, field); err != nil {
		return "", err
	}
	return hex.EncodeToString(b), nil
}

// protoIDs sets sp's ids from their raw bytes, as hex; parent is empty
// for a root span. The span's own two share one string (they live and die
// with the span); the trace id has its own, as the assembler keeps it
// after the span is gone (the verdicts it remembers).
func protoIDs(sp *Span, trace, span, parent []byte) error {
	if err := checkProtoID(trace, 16, "traceId"); err != nil {
		return err
	}
	if err := checkProtoID(span, 8, "spanId"); err != nil {
		return err
	}
	if len(parent) > 0 {
		if err := checkProtoID(parent, 8, "parentSpanId"); err != nil {
			return err
		}
	}
	var buf [64]byte
	hex.Encode(buf[:32], trace)
	hex.Encode(buf[32:48], span)
	hex.Encode(buf[48:], parent)
	ids := string(buf[32 : 48+2*len(parent)])
	sp.TraceID, sp.SpanID, sp.ParentID = string(buf[:32]), ids[:16], ids[16:]
	return nil
}
