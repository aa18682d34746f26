// otlp.go: OTLP/JSON trace export requests walked into spans: ids, times, status and the events the mapping reads.

package ingest

import (
	"bytes"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"

	"attest-engine/clip"
	"attest-engine/trace"
)

// Span is one OTLP span, normalized: ids as lower-case hex, times in
// nanoseconds since the Unix epoch, attributes as the engine's value model
// (string, bool, json.Number, []any, map[string]any, nil).
type Span struct {
	TraceID  string // 32 hex digits
	SpanID   string // 16 hex digits
	ParentID string // "" for a root span
	Name     string
	Start    int64
	End      int64
	Attrs    map[string]any
	Events   []Event
	Error    bool   // status code ERROR
	Status   string // status message
	Service  string // resource attribute service.name
	Size     int    // what it holds in memory, estimated (spanHeld), whichever encoding it came in
	Seq      uint64 // the input item it came in (Item.Seq)
	// LogKey is set when this is not a span but an OTLP log record
	// (logs.go) carried to its trace: SpanID is then the span it belongs
	// to ("" for none), Events its one record, and LogKey what tells a
	// re-delivered record from another (held once, as a span is).
	LogKey string
}

// Event is a span event or a log record joined to its span: the GenAI
// conventions carry messages in either (the event-per-message and
// operation-details events), and older ones content in span events.
type Event struct {
	Name  string
	Time  int64          // nanoseconds since the Unix epoch; 0 when not sent
	Attrs map[string]any // the event's or record's attributes
	Body  any            // a log record's body (nil for a span event)
	Log   bool           // delivered as a log record
	// Packed holds a log record's attributes and body, while it waits in
	// the assembler, as the JSON text of [attributes, body] (Attrs and Body
	// nil): small maps cost about 300 bytes each held, their text a
	// fraction of it. Unpacked when the trace is mapped.
	Packed string
}

// pack moves Attrs and Body into Packed.
func (e *Event) pack() {
	if e.Attrs == nil && e.Body == nil {
		return
	}
	b := appendValue(append(appendValue([]byte{'['}, e.Attrs), ','), e.Body)
	e.Packed, e.Attrs, e.Body = string(append(b, ']')), nil, nil
}

// appendValue appends v, a value of the engine's value model, as JSON
// (object members in key order, strings as encoding/json writes them).
func appendValue(b []byte, v any) []byte {
	switch x := v.(type) {
	case nil:
		return append(b, "null"...)
	case string:
		return appendString(b, x)
	case bool:
		return strconv.AppendBool(b, x)
	case json.Number:
		return append(b, x...)
	case []any:
		b = append(b, '[')
		for i, e := range x {
			if i > 0 {
				b = append(b, ',')
			}
			b = appendValue(b, e)
		}
		return append(b, ']')
	case map[string]any:
		if x == nil {
			return append(b, "null"...)
		}
		keys := make([]string, 0, len(x))
		for k := range x {
			keys = append(keys, k)
		}
		slices.Sort(keys)
		b = append(b, '{')
		for i, k := range keys {
			if i > 0 {
				b = append(b, ',')
			}
			b = append(appendString(b, k), ':')
			b = appendValue(b, x[k])
		}
		return append(b, '}')
	}
	return append(b, "null"...)
}

// unpacked is e with Attrs and Body read back from Packed.
func (e Event) unpacked() Event {
	if e.Packed == "" {
		return e
	}
	if d, err := trace.Decode([]byte(e.Packed)); err == nil {
		if pair, ok := d.([]any); ok && len(pair) == 2 {
			e.Attrs, _ = pair[0].(map[string]any)
			e.Body = pair[1]
		}
	}
	e.Packed = ""
	return e
}

// OTLP/JSON is opentelemetry-proto's JSON mapping: lowerCamelCase member
// names, 64-bit integers as decimal strings, ids as hex strings.
//
// A request is walked in place (lists.go), not decoded into structs:
// decoding a list into a slice costs tens of bytes per element even for
// "{}", so a body of 16 MiB of empty events or attributes took hundreds of
// MiB before anything was kept (TestOTLPInflation), and decoding a nested
// value level by level re-read what lay below it at every level. The walk
// reads each element once, holds one at a time, and reads members as
// encoding/json would decode them into the wire structs (names matched
// exactly or else without regard to case, null leaving a field as it was,
// a value of the wrong type an error), which FuzzOTLPWalk checks against
// such a decoder. Where encoding/json keeps the last of a repeated member,
// a body that repeats a name in any object is refused first (names.go).

// wireUint is a uint64 sent as a decimal string (the JSON mapping) or,
// leniently, as a JSON number.
type wireUint uint64

func (u *wireUint) UnmarshalJSON(b []byte) error {
	s := strings.Trim(string(b), `"`)
	if s == "" || s == "null" {
		*u = 0
		return nil
	}
	n, err := strconv.ParseUint(s, 10, 64)
	if err != nil {
		return fmt.Errorf("time %s is not an unsigned 64-bit integer", clipped(string(b)))
	}
	*u = wireUint(n)
	return nil
}

// wireInt is an int64 sent as a decimal string or a JSON number, kept as
// its canonical decimal text (as from protobuf): strconv.ParseInt also
// takes "+7" and "007", which are not JSON numbers, and a json.Number of
// them would fail to encode.
type wireInt string

func (i *wireInt) UnmarshalJSON(b []byte) error {
	n, err := strconv.ParseInt(strings.Trim(string(b), `"`), 10, 64)
	if err != nil {
		return fmt.Errorf("intValue %s is not a 64-bit integer", clipped(string(b)))
	}
	*i = wireInt(strconv.FormatInt(n, 10))
	return nil
}

// wireStatus is a status code as a number (2 is ERROR) or an enum name.
type wireStatus bool // true: ERROR

func (s *wireStatus) UnmarshalJSON(b []byte) error {
	v := strings.Trim(string(b), `"`)
	*s = v == "2" || v == "STATUS_CODE_ERROR"
	return nil
}

// ParseOTLP decodes one OTLP/JSON ExportTraceServiceRequest (the body of
// POST /v1/traces, or one line of a collector's file exporter) into spans.
// A span with an invalid trace or span id is an error for the whole request:
// the sender's encoding is wrong, and guessing would mis-assemble traces.
func ParseOTLP(data []byte) ([]Span, error) { return collect(data, eachOTLP) }

// eachOTLP decodes an OTLP/JSON request as ParseOTLP does, passing each
// span to visit in order; an error from visit ends the walk and is
// returned (wrapped).
func eachOTLP(data []byte, visit func(Span) error) error {
	n := 0
	return walkOTLPJSON(data, spanLists, func(service string, raw []byte) (bool, error) {
		sp, err := parseSpan(raw)
		if err != nil {
			return true, fmt.Errorf("OTLP/JSON span %d: %v", n, err)
		}
		sp.Service = service
		n++
		return false, visit(sp)
	})
}

// otlpLists names the lists of an OTLP/JSON export request of one signal:
// resources, their scopes, the scopes' items.
type otlpLists struct {
	what                     string // the error's prefix
	resources, scopes, items string
}

var (
	spanLists = otlpLists{"OTLP/JSON", "resourceSpans", "scopeSpans", "spans"}
	logLists  = otlpLists{"OTLP/JSON logs", "resourceLogs", "scopeLogs", "logRecords"}
)

// walkOTLPJSON checks an OTLP/JSON export request whole (valid JSON, no
// member name twice: names.go) and then walks it in place, passing each
// item's raw JSON, in order, with its resource's service.name, to visit.
// An error visit returns ends the walk; it is returned as it is when visit
// says so (final), else wrapped with the request's prefix, as the walk's
// own errors are.
func walkOTLPJSON(data []byte, l otlpLists, visit func(service string, raw []byte) (final bool, err error)) error {
	if !json.Valid(data) {
		var v any
		err := json.Unmarshal(data, &v) // for its message
		return fmt.Errorf("%s: %v", l.what, err)
	}
	if err := uniqueNames(data); err != nil {
		return fmt.Errorf("%s: %v", l.what, err)
	}
	var resources []byte
	err := members(data, "request", func(key string, val []byte) error {
		if fieldIs(key, l.resources) {
			resources = val
		}
		return nil
	})
	if err != nil {
		return fmt.Errorf("%s: %v", l.what, err)
	}
	var finalErr error
	err = rawList(resources).each(l.resources, func(rs []byte) error {
		var attrs, scopes []byte
		err := members(rs, l.resources+"[]", func(key string, val []byte) error {
			switch {
			case fieldIs(key, "resource"):
				return members(val, "resource", func(key string, val []byte) error {
					if fieldIs(key, "attributes") {
						attrs = val
					}
					return nil
				})
			case fieldIs(key, l.scopes):
				scopes = val
			}
			return nil
		})
		if err != nil {
			return err
		}
		// A resource attribute nested too deeply costs only the service
		// name; a resource that is not OTLP/JSON fails the request.
		service := ""
		res, err := attrMap(attrs, 0)
		if err != nil && !errors.Is(err, errDepth) {
			return err
		}
		if res != nil {
			service, _ = res["service.name"].(string)
		}
		return rawList(scopes).each(l.scopes, func(sc []byte) error {
			var list []byte
			err := members(sc, l.scopes+"[]", func(key string, val []byte) error {
				if fieldIs(key, l.items) {
					list = val
				}
				return nil
			})
			if err != nil {
				return err
			}
			return rawList(list).each(l.items, func(raw []byte) error {
				final, err := visit(service, raw)
				if err != nil && final {
					finalErr = err
				}
				return err
			})
		})
	})
	switch {
	case finalErr != nil:
		return finalErr
	case err != nil:
		return fmt.Errorf("%s: %v", l.what, err)
	}
	return nil
}

func parseSpan(raw []byte) (Span, error) {
	var sp Span
	var traceID, spanID, parentID string
	var start, end wireUint
	var status wireStatus
	var attrs, events []byte
	err := members(raw, "span", func(key string, val []byte) error {
		switch {
		case fieldIs(key, "traceId"):
			return str(val, "traceId", &traceID)
		case fieldIs(key, "spanId"):
			return str(val, "spanId", &spanID)
		case fieldIs(key, "parentSpanId"):
			return str(val, "parentSpanId", &parentID)
		case fieldIs(key, "name"):
			return str(val, "name", &sp.Name)
		case fieldIs(key, "startTimeUnixNano"):
			return start.UnmarshalJSON(val)
		case fieldIs(key, "endTimeUnixNano"):
			return end.UnmarshalJSON(val)
		case fieldIs(key, "attributes"):
			attrs = val
		case fieldIs(key, "events"):
			events = val
		case fieldIs(key, "status"):
			return members(val, "status", func(key string, val []byte) error {
				switch {
				case fieldIs(key, "code"):
					return status.UnmarshalJSON(val)
				case fieldIs(key, "message"):
					return str(val, "status.message", &sp.Status)
				}
				return nil
			})
		}
		return nil
	})
	if err != nil {
		return Span{}, err
	}
	sp.Start, sp.End, sp.Error = clampNanos(start), clampNanos(end), bool(status)
	if sp.TraceID, err = decodeID(traceID, 16, "traceId"); err != nil {
		return Span{}, err
	}
	if sp.SpanID, err = decodeID(spanID, 8, "spanId"); err != nil {
		return Span{}, err
	}
	if parentID != "" {
		if sp.ParentID, err = decodeID(parentID, 8, "parentSpanId"); err != nil {
			return Span{}, err
		}
	}
	if sp.Attrs, err = attrMap(attrs, 0); err != nil {
		return Span{}, err
	}
	var ev eventKeeper
	err = rawList(events).each("events", func(elem []byte) error {
		var name string
		var attrs []byte
		var at wireUint
		err := members(elem, "event", func(key string, val []byte) error {
			switch {
			case fieldIs(key, "name"):
				return str(val, "event name", &name)
			case fieldIs(key, "attributes"):
				attrs = val
			case fieldIs(key, "timeUnixNano"):
				return at.UnmarshalJSON(val)
			}
			return nil
		})
		if err != nil {
			return err
		}
		return ev.add(name, clampNanos(at), attrs)
	})
	if err != nil {
		return Span{}, err
	}
	sp.Events = ev.kept
	sp.Size = spanHeld(&sp)
	return sp, nil
}

// eventKeeper keeps of a span's events only what the mapping reads from
// them: the GenAI events (events.go: the event-per-message and
// operation-details events) whole, and of any other event the deprecated
// attributes (semconv.go, mapper.attr), each from the first event where it
// is set. At most maxKeptEvents are kept; every event is still converted,
// and an invalid one is an error as before. What is kept is part of the
// span's own text, so it is within Span.Size, counted against the
// assembly's byte budget.
type eventKeeper struct {
	found [len(deprecatedNames)]bool
	kept  []Event
}

// maxKeptEvents bounds the events a span keeps (GenAI SDKs record one per
// message; past the bound the later ones are dropped).
const maxKeptEvents = 1024

func (k *eventKeeper) add(name string, at int64, list []byte) error {
	attrs, err := attrMap(list, 0)
	if err != nil {
		return err
	}
	k.keep(name, at, attrs)
	return nil
}

// keep keeps a GenAI event whole, and of another event the attributes the
// mapping reads that no earlier event set.
func (k *eventKeeper) keep(name string, at int64, attrs map[string]any) {
	if len(k.kept) >= maxKeptEvents {
		return
	}
	if genaiEvents[name] {
		k.kept = append(k.kept, Event{Name: name, Time: at, Attrs: attrs})
		return
	}
	for i, old := range deprecatedNames {
		if v := attrs[old]; v != nil && !k.found[i] {
			k.found[i] = true
			k.kept = append(k.kept, Event{Name: name, Time: at, Attrs: map[string]any{old: v}})
		}
	}
}

func clampNanos(u wireUint) int64 {
	if u > math.MaxInt64 {
		return math.MaxInt64
	}
	return int64(u)
}

// decodeID accepts the OTLP/JSON hex form and, because some exporters
// use protobuf's generic JSON mapping for bytes, base64 (standard or URL
// alphabet, padded or not). The length tells them apart: 2n hex digits
// against ceil(4n/3) base64 characters for an n-byte id.
func decodeID(s string, n int, field string) (string, error) {
	if len(s) == 2*n {
		if b, err := hex.DecodeString(s); err == nil {
			if allZero(b) {
				return "", fmt.Errorf("%s is all zeros (an invalid id)", field)
			}
			return hex.EncodeToString(b), nil
		}
	}
	if len(s) <= 4*n/3+4 {
		t := strings.TrimRight(s, "=")
		for _, enc := range []*base64.Encoding{base64.RawStdEncoding, base64.RawURLEncoding} {
			if b, err := enc.DecodeString(t); err == nil && len(b) == n {
				if allZero(b) {
					return "", fmt.Errorf("%s is all zeros (an invalid id)", field)
				}
				return hex.EncodeToString(b), nil
			}
		}
	}
	return "", fmt.Errorf("%s %s is neither %d hex digits nor base64 of %d bytes", field, clipped(strconv.Quote(s)), 2*n, n)
}

func allZero(b []byte) bool { return len(bytes.Trim(b, "\x00")) == 0 }

// clipped is text quoted in an error message: at most 80 bytes (package
// clip).
func clipped(s string) string { return clip.String(s, 80) }
