// logs.go: OTLP/JSON log export requests: the GenAI event records, carried to their traces to be joined to their spans.

package ingest

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
)

// OpenTelemetry records events as log records with a name ("events are
// logs with names"): the GenAI instrumentations send each message, or the
// operation-details event, as a record carrying the span's trace and span
// ids. A request (ExportLogsServiceRequest: resourceLogs, scopeLogs,
// logRecords) is read as a trace request is (otlp.go); of its records only
// those the mapping reads are kept: a GenAI event (genaiEvents), named by
// the record's eventName or else its event.name attribute, with a trace id.
// The others are read, checked and dropped. A kept record travels as a
// Span with LogKey set (Span.LogKey) through the same assembly, under the
// same bounds (its Size counts against the byte budget) and grace, and is
// joined to its span when the trace is mapped (build.go). An invalid trace
// or span id fails the request, as for spans; a record without a trace id
// cannot be joined and is dropped.

const attrEventName = "event.name"

// logRecord is a record as read, before it is kept or dropped.
type logRecord struct {
	traceID, spanID []byte // as sent: hex or base64 text (JSON), raw bytes (protobuf)
	name            string
	time, observed  int64
	attrs           map[string]any
	body            any
	size            int
	digest          [sha256.Size]byte
}

// keep turns a record into the Span that carries it, or reports that it
// is not kept. decode reads an id as the encoding sends it.
func (r *logRecord) keep(service string, decode func(b []byte, n int, field string) (string, error)) (Span, bool, error) {
	name := r.name
	if name == "" {
		name, _ = r.attrs[attrEventName].(string)
	}
	var traceID, spanID string
	var err error
	if len(r.traceID) > 0 {
		if traceID, err = decode(r.traceID, 16, "traceId"); err != nil {
			return Span{}, false, err
		}
	}
	if len(r.spanID) > 0 {
		if spanID, err = decode(r.spanID, 8, "spanId"); err != nil {
			return Span{}, false, err
		}
	}
	if !genaiEvents[name] || traceID == "" {
		return Span{}, false, nil
	}
	at := r.time
	if at == 0 {
		at = r.observed
	}
	ev := Event{Name: name, Time: at, Attrs: r.attrs, Body: r.body, Log: true}
	return Span{TraceID: traceID, SpanID: spanID, Start: at, End: at, Events: []Event{ev}, Service: service,
		Size: r.size, LogKey: "log:" + spanID + ":" + hex.EncodeToString(r.digest[:12])}, true, nil
}

// ParseOTLPLogs decodes one OTLP/JSON ExportLogsServiceRequest (the body
// of POST /v1/logs, or one line of a collector's file exporter) into the
// log records the mapping reads, each carried as a Span with LogKey set.
func ParseOTLPLogs(data []byte) ([]Span, error) {
	if !json.Valid(data) {
		var v any
		err := json.Unmarshal(data, &v) // for its message
		return nil, fmt.Errorf("OTLP/JSON logs: %v", err)
	}
	var resourceLogs []byte
	err := members(data, "request", func(key string, val []byte) error {
		if fieldIs(key, "resourceLogs") {
			resourceLogs = val
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("OTLP/JSON logs: %v", err)
	}
	var out []Span
	n := 0
	var recErr error
	jsonID := func(b []byte, size int, field string) (string, error) { return decodeID(string(b), size, field) }
	err = rawList(resourceLogs).each("resourceLogs", func(rl []byte) error {
		var attrs, scopes []byte
		err := members(rl, "resourceLogs[]", func(key string, val []byte) error {
			switch {
			case fieldIs(key, "resource"):
				return members(val, "resource", func(key string, val []byte) error {
					if fieldIs(key, "attributes") {
						attrs = val
					}
					return nil
				})
			case fieldIs(key, "scopeLogs"):
				scopes = val
			}
			return nil
		})
		if err != nil {
			return err
		}
		service := ""
		res, err := attrMap(attrs, 0)
		if err != nil && !errors.Is(err, errDepth) {
			return err
		}
		if res != nil {
			service, _ = res["service.name"].(string)
		}
		return rawList(scopes).each("scopeLogs", func(sl []byte) error {
			var list []byte
			err := members(sl, "scopeLogs[]", func(key string, val []byte) error {
				if fieldIs(key, "logRecords") {
					list = val
				}
				return nil
			})
			if err != nil {
				return err
			}
			return rawList(list).each("logRecords", func(raw []byte) error {
				r, err := parseLogRecord(raw)
				if err == nil {
					var sp Span
					var ok bool
					if sp, ok, err = r.keep(service, jsonID); ok {
						out = append(out, sp)
					}
				}
				if err != nil {
					recErr = fmt.Errorf("OTLP/JSON log record %d: %v", n, err)
					return recErr
				}
				n++
				return nil
			})
		})
	})
	if recErr != nil {
		return nil, recErr
	}
	if err != nil {
		return nil, fmt.Errorf("OTLP/JSON logs: %v", err)
	}
	return out, nil
}

func parseLogRecord(raw []byte) (logRecord, error) {
	r := logRecord{size: len(raw), digest: sha256.Sum256(raw)}
	var traceID, spanID string
	var at, observed wireUint
	var attrs, body []byte
	err := members(raw, "logRecord", func(key string, val []byte) error {
		switch {
		case fieldIs(key, "traceId"):
			return str(val, "traceId", &traceID)
		case fieldIs(key, "spanId"):
			return str(val, "spanId", &spanID)
		case fieldIs(key, "eventName"):
			return str(val, "eventName", &r.name)
		case fieldIs(key, "timeUnixNano"):
			return at.UnmarshalJSON(val)
		case fieldIs(key, "observedTimeUnixNano"):
			return observed.UnmarshalJSON(val)
		case fieldIs(key, "attributes"):
			attrs = val
		case fieldIs(key, "body"):
			body = val
		}
		return nil
	})
	if err != nil {
		return r, err
	}
	r.traceID, r.spanID = []byte(traceID), []byte(spanID)
	r.time, r.observed = clampNanos(at), clampNanos(observed)
	if r.attrs, err = attrMap(attrs, 0); err != nil {
		return r, err
	}
	if body != nil && !isNull(body) {
		if r.body, err = anyValue(body, 1); err != nil {
			return r, fmt.Errorf("body: %w", err)
		}
	}
	return r, nil
}
