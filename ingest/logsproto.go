// logsproto.go: OTLP binary protobuf log export requests read into the records OTLP/JSON gives.

package ingest

import (
	"crypto/sha256"
	"fmt"
)

// Field numbers and types of opentelemetry-proto's
// collector/logs/v1/logs_service.proto and logs/v1/logs.proto.
var (
	logsRequestSchema  = schema{1: {"resourceLogs", wireBytes}}
	resourceLogsSchema = schema{1: {"resource", wireBytes}, 2: {"scopeLogs", wireBytes}, 3: {"schemaUrl", wireBytes}}
	scopeLogsSchema    = schema{1: {"scope", wireBytes}, 2: {"logRecords", wireBytes}, 3: {"schemaUrl", wireBytes}}
	logRecordSchema    = schema{1: {"timeUnixNano", wireFixed64}, 2: {"severityNumber", wireVarint},
		3: {"severityText", wireBytes}, 5: {"body", wireBytes}, 6: {"attributes", wireBytes},
		7: {"droppedAttributesCount", wireVarint}, 8: {"flags", wireFixed32}, 9: {"traceId", wireBytes},
		10: {"spanId", wireBytes}, 11: {"observedTimeUnixNano", wireFixed64}, 12: {"eventName", wireBytes}}
)

// ParseOTLPLogsProto decodes one binary protobuf ExportLogsServiceRequest
// (POST /v1/logs with Content-Type application/x-protobuf) into the
// records [ParseOTLPLogs] gives for the same request in OTLP/JSON. A body
// sent more than once keeps the last.
func ParseOTLPLogsProto(data []byte) ([]Span, error) { return collect(data, eachOTLPLogsProto) }

// eachOTLPLogsProto decodes a protobuf logs request as ParseOTLPLogsProto
// does, passing each carrier to visit in order; an error from visit ends
// the walk and is returned as it is.
func eachOTLPLogsProto(data []byte, visit func(Span) error) error {
	out := carriers{visit: visit}
	n := 0
	r := fields{b: data}
	for r.more() {
		f, err := r.nextIn(logsRequestSchema)
		if err != nil {
			return fmt.Errorf("OTLP/protobuf logs: %v", err)
		}
		if f.num != 1 {
			continue
		}
		service, err := resourceService(f.b) // resource is field 1 in ResourceLogs too
		if err != nil {
			return fmt.Errorf("OTLP/protobuf logs: resource: %v", err)
		}
		rl := fields{b: f.b}
		for rl.more() {
			g, err := rl.nextIn(resourceLogsSchema)
			if err != nil {
				return fmt.Errorf("OTLP/protobuf logs: resourceLogs: %v", err)
			}
			if g.num != 2 {
				continue
			}
			sl := fields{b: g.b}
			for sl.more() {
				h, err := sl.nextIn(scopeLogsSchema)
				if err != nil {
					return fmt.Errorf("OTLP/protobuf logs: scopeLogs: %v", err)
				}
				if h.num != 2 {
					continue
				}
				rec, err := decodeLogRecord(h.b)
				if err == nil {
					var sp Span
					var ok bool
					if sp, ok, err = rec.keep(service, protoIDBytes); ok {
						if err := out.add(sp); err != nil {
							return err
						}
					}
				}
				if err != nil {
					return fmt.Errorf("OTLP/protobuf log record %d: %v", n, err)
				}
				n++
			}
		}
	}
	return out.flush()
}

func protoIDBytes(b []byte, n int, field string) (string, error) { return protoID(b, n, field) }

func decodeLogRecord(b []byte) (logRecord, error) {
	r := logRecord{digest: sha256.Sum256(b)}
	var body []byte
	attrs := 0
	fs := fields{b: b}
	for fs.more() {
		f, err := fs.nextIn(logRecordSchema)
		if err != nil {
			return r, err
		}
		switch f.num {
		case 1:
			r.time = clampNanos(wireUint(f.u))
		case 11:
			r.observed = clampNanos(wireUint(f.u))
		case 5:
			body = f.b
		case 6:
			attrs++
		case 9:
			r.traceID = f.b
		case 10:
			r.spanID = f.b
		case 12:
			r.name = pbString(f.b)
		}
	}
	var err error
	if attrs > 0 {
		if r.attrs, err = attrMapProto(msg{cur: fields{b: b}}, 6, logRecordSchema, attrs, 0, true); err != nil {
			return r, err
		}
	}
	if body != nil {
		if r.body, err = value(parts{cur: fields{b: body}}, 1, true); err != nil {
			return r, fmt.Errorf("body: %w", err)
		}
	}
	return r, nil
}
