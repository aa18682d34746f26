// logs_test.go: OTLP log requests: protobuf read as JSON is, the records kept and their bounds, fuzzing.

package ingest

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"

	"attest-engine/trace"

	"github.com/google/go-cmp/cmp"
)

// logsRequest encodes one OTLP/JSON ExportLogsServiceRequest line as binary
// protobuf (logs.proto's field numbers), with the encoder's variations.
func (e *pbEncoder) logsRequest(line []byte) ([]byte, error) {
	d := json.NewDecoder(bytes.NewReader(line))
	d.UseNumber()
	var req map[string]any
	if err := d.Decode(&req); err != nil {
		return nil, err
	}
	var m pbMsg
	for _, rl := range jlist(req["resourceLogs"]) {
		rl := jobj(rl)
		var r pbMsg
		if res := jobj(rl["resource"]); res != nil {
			var rm pbMsg
			for _, kv := range jlist(res["attributes"]) {
				rm.bytes(1, false, e.keyValue(jobj(kv)))
			}
			r.bytes(1, true, e.finish(rm))
		}
		for _, sl := range jlist(rl["scopeLogs"]) {
			var s pbMsg
			s.bytes(1, true, []byte("\x0a\x05scope"))
			for _, rec := range jlist(jobj(sl)["logRecords"]) {
				s.bytes(2, false, e.logRecord(jobj(rec)))
			}
			r.bytes(2, false, e.finish(s))
		}
		m.bytes(1, false, e.finish(r))
	}
	return e.finish(m), nil
}

func (e *pbEncoder) logRecord(r map[string]any) []byte {
	var m pbMsg
	m.fixed64(1, uintOf(r["timeUnixNano"]))
	m.fixed64(11, uintOf(r["observedTimeUnixNano"]))
	m.varint(2, uintOf(r["severityNumber"]))
	if jhas(r, "body") {
		m.bytes(5, true, e.anyValue(jobj(r["body"])))
	}
	for _, kv := range jlist(r["attributes"]) {
		m.bytes(6, false, e.keyValue(jobj(kv)))
	}
	m.fixed32(8, 1)
	if jhas(r, "traceId") {
		m.bytes(9, true, id(jstr(r["traceId"])))
	}
	if jhas(r, "spanId") {
		m.bytes(10, true, id(jstr(r["spanId"])))
	}
	if jhas(r, "eventName") {
		m.bytes(12, true, []byte(jstr(r["eventName"])))
	}
	return e.finish(m)
}

// logsRequests are the resourceLogs lines of the golden inputs, and cases.
func logsRequests(t testing.TB) map[string][]byte {
	reqs := map[string][]byte{}
	inputs, _ := filepath.Glob(filepath.Join(dir, "*.input.jsonl"))
	for _, in := range inputs {
		data, err := os.ReadFile(in)
		if err != nil {
			t.Fatal(err)
		}
		for i, line := range bytes.Split(bytes.TrimSpace(data), []byte("\n")) {
			if looksOTLP(line, "resourceLogs") {
				reqs[filepath.Base(in)+":"+string(rune('1'+i))] = line
			}
		}
	}
	if len(reqs) < 10 {
		t.Fatalf("only %d OTLP log lines among the golden inputs", len(reqs))
	}
	for name, c := range logsCases {
		reqs[name] = []byte(c)
	}
	return reqs
}

var logsCases = map[string]string{
	"bad span id":   `{"resourceLogs":[{"scopeLogs":[{"logRecords":[{"traceId":"5b8efff798038103d269b633813fc60c","spanId":"zz","eventName":"gen_ai.user.message"}]}]}]}`,
	"zero trace id": `{"resourceLogs":[{"scopeLogs":[{"logRecords":[{"traceId":"00000000000000000000000000000000","eventName":"gen_ai.user.message"}]}]}]}`,
	"deep body":     `{"resourceLogs":[{"scopeLogs":[{"logRecords":[{"traceId":"5b8efff798038103d269b633813fc60c","eventName":"gen_ai.user.message","body":` + strings.Repeat(`{"arrayValue":{"values":[`, 40) + strings.Repeat(`]}}`, 40) + `}]}]}]}`,
	"no trace":      `{"resourceLogs":[{"scopeLogs":[{"logRecords":[{"eventName":"gen_ai.user.message","body":{"stringValue":"hi"}}]}]}]}`,
	"other event":   `{"resourceLogs":[{"scopeLogs":[{"logRecords":[{"traceId":"5b8efff798038103d269b633813fc60c","eventName":"http.request","body":{"stringValue":"hi"}}]}]}]}`,
}

// TestLogsProtoMatchesJSON: the binary form of every log request reads to
// the records its JSON form reads to (Size and LogKey apart: each form has
// its own bytes), or fails where JSON fails.
func TestLogsProtoMatchesJSON(t *testing.T) {
	strip := unpackAll
	for name, js := range logsRequests(t) {
		want, wantErr := ParseOTLPLogs(js)
		for ename, newEnc := range encoders {
			t.Run(name+"/"+ename, func(t *testing.T) {
				pb, err := newEnc().logsRequest(js)
				if err != nil {
					t.Fatal(err)
				}
				got, err := ParseOTLPLogsProto(pb)
				if (err != nil) != (wantErr != nil) {
					t.Fatalf("protobuf error %v, JSON error %v", err, wantErr)
				}
				if diff := cmp.Diff(strip(want), strip(got)); diff != "" {
					t.Errorf("records differ (-JSON +protobuf):\n%s", diff)
				}
			})
		}
	}
}

// TestLogsKept: only GenAI events with a trace id are kept, the records of
// one span together, in order, keyed by their bytes (a re-delivery is the
// same key), their attributes and body packed until mapped.
func TestLogsKept(t *testing.T) {
	spans, err := ParseOTLPLogs([]byte(`{"resourceLogs":[{"resource":{"attributes":[{"key":"service.name","value":{"stringValue":"svc"}}]},"scopeLogs":[{"logRecords":[
		{"traceId":"5b8efff798038103d269b633813fc60c","spanId":"eee19b7ec3c1b174","timeUnixNano":"7","eventName":"gen_ai.user.message","body":{"kvlistValue":{"values":[{"key":"content","value":{"stringValue":"hi"}}]}}},
		{"traceId":"5b8efff798038103d269b633813fc60c","spanId":"eee19b7ec3c1b174","observedTimeUnixNano":"9","attributes":[{"key":"event.name","value":{"stringValue":"gen_ai.choice"}}]},
		{"traceId":"5b8efff798038103d269b633813fc60c","eventName":"something.else"},
		{"eventName":"gen_ai.user.message"}]}]}]}`))
	if err != nil {
		t.Fatal(err)
	}
	if len(spans) != 1 || len(spans[0].Events) != 2 {
		t.Fatalf("kept %+v, want one carrier of 2 records", spans)
	}
	a := spans[0]
	if !strings.HasPrefix(a.LogKey, "log:eee19b7ec3c1b174:") || a.SpanID != "eee19b7ec3c1b174" || a.Service != "svc" || a.ParentID != "" || a.Start != 7 || a.End != 9 {
		t.Errorf("carrier %+v", a)
	}
	if e := a.Events[0].unpacked(); !e.Log || e.Name != "gen_ai.user.message" || e.Time != 7 || e.Body.(map[string]any)["content"] != "hi" {
		t.Errorf("first record's event %+v", e)
	}
	if e := a.Events[1].unpacked(); e.Name != "gen_ai.choice" || e.Time != 9 || e.Attrs["event.name"] != "gen_ai.choice" {
		t.Errorf("second record's event (named by attribute, observed time) %+v", e)
	}
}

func logsSeeds(f *testing.F) {
	for _, name := range slices.Sorted(func(yield func(string) bool) {
		for k := range logsRequests(f) {
			if !yield(k) {
				return
			}
		}
	}) {
		f.Add(logsRequests(f)[name])
	}
}

// checkLogs: records parsed from any input assemble, with spans or alone,
// into traces that pass the engine's own validation, within the bounds.
func checkLogs(t *testing.T, spans []Span, size int) {
	for i, sp := range spans {
		for _, e := range sp.Events {
			if _, err := trace.Decode([]byte(e.Packed)); e.Packed != "" && err != nil {
				t.Fatalf("record %d: packed %q does not read: %v", i, e.Packed, err)
			}
		}
		if sp.LogKey == "" || len(sp.Events) == 0 || !sp.Events[0].Log || len(sp.TraceID) != 32 || sp.Size > heldSpan+20*size {
			t.Fatalf("record %d: %+v", i, sp)
		}
	}
	feed := NewFeed(Limits{OpenTraces: 4, SpansPerTrace: 64}, nil, nil)
	feed.Add(Item{Spans: spans})
	feed.Flush()
	traces := take(feed)
	for _, tr := range traces {
		if _, verr := trace.Validate(tr.Value, trace.Options{Strict: true}); verr != nil && encodedSize(t, tr.Value) <= trace.MaxTraceBytes {
			t.Fatalf("trace %s fails validation: %v", tr.ID, verr)
		}
	}
}

// FuzzOTLPLogs: any JSON log request is an error or records that assemble
// into valid traces.
func FuzzOTLPLogs(f *testing.F) {
	logsSeeds(f)
	f.Fuzz(func(t *testing.T, data []byte) {
		spans, err := ParseOTLPLogs(data)
		if err != nil {
			return
		}
		checkLogs(t, spans, len(data))
	})
}

// FuzzOTLPLogsProto: any protobuf log request is an error or records that
// assemble into valid traces; a JSON request's binary form reads alike.
func FuzzOTLPLogsProto(f *testing.F) {
	for _, name := range slices.Sorted(func(yield func(string) bool) {
		for k := range logsRequests(f) {
			if !yield(k) {
				return
			}
		}
	}) {
		pb, err := (&pbEncoder{unknown: true, split: true}).logsRequest(logsRequests(f)[name])
		if err != nil {
			f.Fatal(err)
		}
		f.Add(pb)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		spans, err := ParseOTLPLogsProto(data)
		if err != nil {
			return
		}
		checkLogs(t, spans, len(data))
	})
}

// TestLogsProtoBodies: testdata/ingest/weather_events_logs.input.N.pb, the
// binary form of line N of weather_events_logs.input.jsonl (spans, then
// log records) that watch's listener test posts, are what the encoders
// write (rewritten with -update) and read to that line's spans and records.
func TestLogsProtoBodies(t *testing.T) {
	data, err := os.ReadFile(filepath.Join(dir, "weather_events_logs.input.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	for i, line := range bytes.Split(bytes.TrimSpace(data), []byte("\n")) {
		path := filepath.Join(dir, fmt.Sprintf("weather_events_logs.input.%d.pb", i+1))
		encode, parseJSON, parseProto := (&pbEncoder{}).request, ParseOTLP, ParseOTLPProto
		if looksOTLP(line, "resourceLogs") {
			encode, parseJSON, parseProto = (&pbEncoder{}).logsRequest, ParseOTLPLogs, ParseOTLPLogsProto
		}
		pb, err := encode(line)
		if err != nil {
			t.Fatal(err)
		}
		if *update {
			if err := os.WriteFile(path, pb, 0o644); err != nil {
				t.Fatal(err)
			}
			continue
		}
		golden, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(golden, pb) {
			t.Errorf("%s differs from the encoding of line %d (-update rewrites it)", path, i+1)
		}
		want, err := parseJSON(line)
		if err != nil {
			t.Fatal(err)
		}
		got, err := parseProto(golden)
		if err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(unpackAll(want), unpackAll(got)); diff != "" {
			t.Errorf("%s: differ (-JSON +protobuf):\n%s", path, diff)
		}
	}
}

// TestLogsBounded: log records are held under the assembly's bounds as
// spans are: their Size counts against Limits.Bytes (a trace past it is
// closed early, incomplete), and a record delivered twice is held once.
func TestLogsBounded(t *testing.T) {
	line := func(n int, content string) []byte {
		var recs []string
		for i := range n {
			recs = append(recs, fmt.Sprintf(`{"traceId":"5b8efff798038103d269b633813fc60c","spanId":"eee19b7ec3c1b174","timeUnixNano":"%d","eventName":"gen_ai.user.message","body":{"kvlistValue":{"values":[{"key":"content","value":{"stringValue":%q}}]}}}`, i+1, content))
		}
		return []byte(`{"resourceLogs":[{"scopeLogs":[{"logRecords":[` + strings.Join(recs, ",") + `]}]}]}`)
	}
	spans, err := ParseOTLPLogs(line(10, strings.Repeat("x", 1000)))
	if err != nil {
		t.Fatal(err)
	}
	feed := NewFeed(Limits{Bytes: 5000}, nil, nil)
	feed.Add(Item{Spans: spans, Seq: 1})
	out := take(feed)
	if len(out) == 0 || !out[0].Incomplete {
		t.Fatalf("10 records of 1 kB under a 5 kB budget: %d traces out, want the trace closed early and incomplete", len(out))
	}
	dup, err := ParseOTLPLogs(line(2, "hi"))
	if err != nil {
		t.Fatal(err)
	}
	feed = NewFeed(Limits{}, nil, nil)
	feed.Add(Item{Spans: dup, Seq: 1})
	feed.Add(Item{Spans: dup, Seq: 2})
	if feed.Duplicates() != 1 {
		t.Errorf("a request of records sent twice: %d duplicates, want 1", feed.Duplicates())
	}
}

// unpackAll is records with their events unpacked, Size and LogKey zero:
// what two encodings of the same records must agree on (the packed text
// may order members differently).
func unpackAll(spans []Span) []Span {
	out := slices.Clone(spans)
	for i := range out {
		out[i].Size, out[i].LogKey = 0, ""
		evs := make([]Event, len(out[i].Events))
		for k, e := range out[i].Events {
			evs[k] = e.unpacked()
		}
		out[i].Events = evs
	}
	return out
}

// FuzzPlainValue: whenever plainValue writes an AnyValue, what it writes
// reads back to what anyValue reads (plain.go's fast path changes nothing).
func FuzzPlainValue(f *testing.F) {
	for _, s := range []string{`{"stringValue":"a\u00e9\n"}`, `{"intValue":"7"}`, `{"doubleValue":1.5e300}`, `{"boolValue":false}`,
		`{"kvlistValue":{"values":[{"key":"content","value":{"stringValue":"hi"}},{"key":"n","value":{"intValue":3}}]}}`,
		`{"arrayValue":{"values":[{"stringValue":"x"},{"kvlistValue":{}}]}}`, `{"bytesValue":"AAE="}`, `{"kvlistValue":{"values":[{"key":"a"}]}}`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		if !json.Valid(data) {
			return
		}
		plain, ok := plainValue(nil, data, 1)
		if !ok {
			return
		}
		want, err := anyValue(data, 1)
		if err != nil {
			t.Fatalf("plainValue wrote %s where anyValue fails: %v", plain, err)
		}
		got, err := trace.Decode(plain)
		if err != nil {
			t.Fatalf("plainValue wrote %s, not JSON: %v", plain, err)
		}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Fatalf("%s: plainValue %s reads differently (-anyValue +plain):\n%s", data, plain, diff)
		}
	})
}

// oneSpanRecords is a logs request of n records, all for one span.
func oneSpanRecords(n int) []byte {
	var b strings.Builder
	b.WriteString(`{"resourceLogs":[{"scopeLogs":[{"logRecords":[`)
	for i := range n {
		if i > 0 {
			b.WriteByte(',')
		}
		fmt.Fprintf(&b, `{"traceId":"5b8efff798038103d269b633813fc60c","spanId":"00000000000000a2","eventName":"gen_ai.user.message","body":{"stringValue":"m%d"}}`, i)
	}
	b.WriteString(`]}]}]}`)
	return []byte(b.String())
}

// TestLogsOneSpanBounded: the records of one span in a request keep at
// most maxKeptEvents, as a span's events do, and reading them allocates in
// proportion to the request: ten times the records, at most 15 times the
// bytes allocated (a carrier's key is hashed as its records come, never
// grown by concatenation).
func TestLogsOneSpanBounded(t *testing.T) {
	alloc := func(n int) uint64 {
		data := oneSpanRecords(n)
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		spans, err := ParseOTLPLogs(data)
		runtime.ReadMemStats(&after)
		if err != nil || len(spans) != 1 || len(spans[0].Events) != min(n, maxKeptEvents) {
			t.Fatalf("%d records: %d carriers, error %v", n, len(spans), err)
		}
		return after.TotalAlloc - before.TotalAlloc
	}
	small, large := alloc(2000), alloc(20000)
	t.Logf("2,000 records: %d bytes allocated; 20,000: %d", small, large)
	if large > 15*small {
		t.Errorf("ten times the records allocated %.1f times the bytes; want at most 15", float64(large)/float64(small))
	}
}

// TestTraceEventsBounded: a trace maps at most maxTraceEvents span events
// and log records, the spans' first; the rest are counted as dropped and
// the trace is incomplete (watch's peak memory with such traces:
// TestWatchBudgetEvents).
func TestTraceEventsBounded(t *testing.T) {
	const tid, spans, each = "5b8efff798038103d269b633813fc60c", 20, 1024
	events := make([]Event, each)
	for i := range events {
		events[i] = Event{Name: "gen_ai.user.message", Attrs: map[string]any{"content": fmt.Sprint("m", i)}}
	}
	in := []Span{{TraceID: tid, SpanID: "00000000000000a1", Name: "invoke_agent a", Start: 1, End: 100,
		Attrs: map[string]any{"gen_ai.operation.name": "invoke_agent"}}}
	for s := range spans {
		in = append(in, Span{TraceID: tid, SpanID: fmt.Sprintf("%016x", 0x100+s), ParentID: "00000000000000a1", Name: "chat m",
			Start: int64(2 + s), End: int64(3 + s), Attrs: map[string]any{"gen_ai.operation.name": "chat"}, Events: events})
	}
	records, err := ParseOTLPLogs(oneSpanRecords(100))
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range records { // joined to the first chat span
		r.SpanID = "0000000000000100"
		in = append(in, r)
	}
	feed := NewFeed(Limits{}, nil, nil)
	feed.Add(Item{Spans: in, Seq: 1})
	feed.Flush()
	out := take(feed)
	if len(out) != 1 {
		t.Fatalf("%d traces", len(out))
	}
	otel := out[0].Value["metadata"].(map[string]any)["otel"].(map[string]any)
	want := json.Number(fmt.Sprint(spans*each + 100 - maxTraceEvents))
	if !out[0].Incomplete || otel["dropped_events"] != want {
		t.Errorf("incomplete %v, dropped_events %v; want true, %v", out[0].Incomplete, otel["dropped_events"], want)
	}
}
