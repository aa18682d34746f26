// logs.go: OTLP/JSON log export requests: the GenAI event records, carried to their traces to be joined to their spans.

package ingest

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"hash"
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
// joined to its span when the trace is mapped (build.go). Consecutive
// records of one request for one span (as an SDK's batch sends them)
// travel as one such Span, their events in the order sent: a carrier per
// record held about twice the memory of the same messages in span
// attributes (TestDeliveryHeld). A request is read carrier by carrier, and
// taken in chunks as a trace request is (chunks.go). An invalid trace
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
		LogKey: hex.EncodeToString(r.digest[:12])}, true, nil
}

// carriers gathers a request's kept records by trace and span as they
// come: consecutive records of one pair travel as one Span, its events in
// order (at most maxKeptEvents, as a span's: the rest of the run read,
// checked and dropped), its LogKey the digest of its records' digests (the
// same records sent again are held once), its Size its estimated memory
// (spanHeld) once whole. Each carrier is handed to visit when a record of
// another pair comes or the request ends, so a request is read holding one
// carrier, not all of them.
type carriers struct {
	cur   Span
	open  bool
	key   hash.Hash // of the records' digests, as they come
	visit func(Span) error
}

func (c *carriers) add(sp Span) error {
	if c.open && sp.TraceID == c.cur.TraceID && sp.SpanID == c.cur.SpanID {
		if len(c.cur.Events) >= maxKeptEvents {
			return nil
		}
		c.cur.Events = append(c.cur.Events, sp.Events...)
		c.cur.Start, c.cur.End = min(c.cur.Start, sp.Start), max(c.cur.End, sp.End)
		c.key.Write([]byte(sp.LogKey))
		return nil
	}
	if err := c.flush(); err != nil {
		return err
	}
	if c.key == nil {
		c.key = sha256.New()
	}
	c.key.Reset()
	c.key.Write([]byte(sp.LogKey))
	c.cur, c.open = sp, true
	return nil
}

// flush hands on the carrier being gathered.
func (c *carriers) flush() error {
	if !c.open {
		return nil
	}
	sp := c.cur
	c.cur, c.open = Span{}, false
	sp.LogKey = "log:" + sp.SpanID + ":" + hex.EncodeToString(c.key.Sum(nil)[:12])
	sp.Size = spanHeld(&sp)
	return c.visit(sp)
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
// log records the mapping reads, carried as Spans with LogKey set.
func ParseOTLPLogs(data []byte) ([]Span, error) { return collect(data, eachOTLPLogs) }

// collect gathers what each passes on.
func collect(data []byte, each func([]byte, func(Span) error) error) ([]Span, error) {
	var spans []Span
	err := each(data, func(sp Span) error {
		spans = append(spans, sp)
		return nil
	})
	if err != nil {
		return nil, err
	}
	return spans, nil
}

// eachOTLPLogs decodes a logs request as ParseOTLPLogs does, passing each
// carrier to visit in order; an error from visit ends the walk and is
// returned as it is.
func eachOTLPLogs(data []byte, visit func(Span) error) error {
	out := carriers{visit: visit}
	n := 0
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
	err := walkOTLPJSON(data, logLists, func(service string, raw []byte) (bool, error) {
		r, err := parseLogRecord(raw)
		if err == nil {
			var sp Span
			var ok bool
			if sp, ok, err = r.keep(service, jsonID); ok {
				if err := out.add(sp); err != nil {
					return true, err
				}
			}
		}
		if err != nil {
			return true, fmt.Errorf("OTLP/JSON log record %d: %v", n, err)
		}
		n++
		return false, nil
	})
	if err != nil {
		return err
	}
	return out.flush()
}

func parseLogRecord(raw []byte) (logRecord, error) {
	r := logRecord{digest: sha256.Sum256(raw)}
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
