// logs.go: OTLP/JSON log export requests: the GenAI event records, carried to their traces to be joined to their spans.

package ingest

import (
	"bytes"
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
// joined to its span when the trace is mapped (build.go). The records of
// one request for one span travel as one such Span, their events in the
// order sent: a carrier per record held about twice the memory of the same
// messages in span attributes (TestDeliveryHeld). An invalid trace
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
	packed          string // attributes and body already packed (plain.go); attrs and body nil then
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
	ev := Event{Name: name, Time: at, Attrs: r.attrs, Body: r.body, Log: true, Packed: r.packed}
	ev.pack()
	return Span{TraceID: traceID, SpanID: spanID, Start: at, End: at, Events: []Event{ev}, Service: service,
		Size: r.size, LogKey: hex.EncodeToString(r.digest[:12])}, true, nil
}

// carriers gathers a request's kept records by trace and span, in the
// order each pair first came: one Span per pair, its events in order, its
// Size their sum, its LogKey from their digests (the same records sent
// again are held once).
type carriers struct {
	out []Span
	at  map[[2]string]int
}

func (c *carriers) add(sp Span) {
	k := [2]string{sp.TraceID, sp.SpanID}
	i, ok := c.at[k]
	if !ok {
		if c.at == nil {
			c.at = map[[2]string]int{}
		}
		c.at[k] = len(c.out)
		c.out = append(c.out, sp)
		return
	}
	cur := &c.out[i]
	cur.Events = append(cur.Events, sp.Events...)
	cur.Size += sp.Size
	cur.Start, cur.End = min(cur.Start, sp.Start), max(cur.End, sp.End)
	cur.LogKey += sp.LogKey
}

// spans are the carriers, each LogKey the digest of its records' digests.
func (c *carriers) spans() []Span {
	for i := range c.out {
		sum := sha256.Sum256([]byte(c.out[i].LogKey))
		c.out[i].LogKey = "log:" + c.out[i].SpanID + ":" + hex.EncodeToString(sum[:12])
	}
	return c.out
}

// nonEmptyID is a JSON id string as sent, nil for none or "".
func nonEmptyID(q []byte) []byte {
	if len(q) <= 2 {
		return nil
	}
	return q
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
	if err := uniqueNames(data); err != nil { // as for traces (names.go)
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
	var out carriers
	n := 0
	var recErr error
	// Ids come as JSON strings; the records of a request mostly share
	// them, so the last one of each size is remembered.
	var lastRaw [2][]byte
	var lastID [2]string
	jsonID := func(b []byte, size int, field string) (string, error) {
		k := size / 16 // 0 span, 1 trace
		if lastRaw[k] != nil && bytes.Equal(b, lastRaw[k]) {
			return lastID[k], nil
		}
		var s string
		if err := str(b, field, &s); err != nil {
			return "", err
		}
		id, err := decodeID(s, size, field)
		if err == nil {
			lastRaw[k], lastID[k] = b, id
		}
		return id, err
	}
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
						out.add(sp)
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
	return out.spans(), nil
}

func parseLogRecord(raw []byte) (logRecord, error) {
	r := logRecord{size: len(raw), digest: sha256.Sum256(raw)}
	var traceID, spanID []byte // the JSON strings, read by keep
	var at, observed wireUint
	var attrs, body []byte
	err := members(raw, "logRecord", func(key string, val []byte) error {
		switch {
		case fieldIs(key, "traceId"), fieldIs(key, "spanId"):
			dst := &traceID
			if fieldIs(key, "spanId") && !fieldIs(key, "traceId") {
				dst = &spanID
			}
			switch {
			case isNull(val): // leaves it as it was, as encoding/json does
			case len(val) == 0 || val[0] != '"':
				return fmt.Errorf("%s: must be a string", key)
			default:
				*dst = val
			}
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
	r.traceID, r.spanID = nonEmptyID(traceID), nonEmptyID(spanID)
	r.time, r.observed = clampNanos(at), clampNanos(observed)
	if r.name != "" { // named by its field: its attributes need not be read for event.name
		if p, ok := plainRecord(attrs, body); ok {
			r.packed = p
			return r, nil
		}
	}
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
