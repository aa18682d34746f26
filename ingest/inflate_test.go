// inflate_test.go: the memory decoding an OTLP/JSON body of many small items takes, against the body's length.

package ingest

import (
	"bytes"
	"encoding/binary"
	"runtime"
	"runtime/debug"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

const inflateHead = `{"resourceSpans":[{"scopeSpans":[{"spans":[{"traceId":"5b8efff798038103d269b633813fc60c","spanId":"eee19b7ec3c1b175","name":"chat m","startTimeUnixNano":"1","endTimeUnixNano":"2",`

// inflated is a body of about size bytes: head, then n copies of item joined by commas, then tail.
func inflated(head, item, tail string, size int) []byte {
	n := (size - len(head) - len(tail)) / (len(item) + 1)
	return []byte(head + strings.Repeat(item+",", n) + item + tail)
}

// inflatedBodies are bodies of one list of tiny items, at each place a list can be, with the most the
// spans they decode to may hold, as a multiple of the body's length.
var inflatedBodies = []struct {
	name, head, item, tail string
	held                   float64
}{
	{"events {}", inflateHead + `"events":[`, `{}`, `]}]}]}]}`, 0.01},
	{"span attributes {}", inflateHead + `"attributes":[`, `{}`, `]}]}]}]}`, 0.01},
	{"event attributes", inflateHead + `"events":[{"name":"e","attributes":[`, `{"key":"k"}`, `]}]}]}]}]}`, 0.01},
	{"kvlist values {}", inflateHead + `"attributes":[{"key":"a","value":{"kvlistValue":{"values":[`, `{}`, `]}}}]}]}]}]}`, 0.01},
	{"resourceSpans {}", `{"resourceSpans":[`, `{}`, `]}`, 0.01},
	{"scopeSpans {}", `{"resourceSpans":[{"scopeSpans":[`, `{}`, `]}]}`, 0.01},
	// The engine's value model: an array of n values is a []any of n, 16 bytes each, for as little as
	// 3 bytes of text ("{},").
	{"array values {}", inflateHead + `"attributes":[{"key":"a","value":{"arrayValue":{"values":[`, `{}`, `]}}}]}]}]}]}`, 5.4},
}

// peakHeap runs f and returns the largest heap in use seen while it ran, above the heap in use before it,
// and the heap still in use after it (what f's result holds), sampled every 50 µs. The collector runs
// when the heap has grown by a tenth (GOGC=10), so garbage adds little to what f holds at once.
func peakHeap(f func()) (peak, held uint64) {
	defer debug.SetGCPercent(debug.SetGCPercent(10))
	var m runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&m)
	base := m.HeapAlloc
	var max atomic.Uint64
	done := make(chan struct{})
	stopped := make(chan struct{})
	go func() {
		defer close(stopped)
		var s runtime.MemStats
		for {
			runtime.ReadMemStats(&s)
			if s.HeapAlloc > max.Load() {
				max.Store(s.HeapAlloc)
			}
			select {
			case <-done:
				return
			case <-time.After(50 * time.Microsecond):
			}
		}
	}()
	f()
	close(done)
	<-stopped
	runtime.ReadMemStats(&m) // before the GC: f's garbage may be the peak
	if m.HeapAlloc > max.Load() {
		max.Store(m.HeapAlloc)
	}
	runtime.GC()
	runtime.ReadMemStats(&m)
	return max.Load() - min(base, max.Load()), m.HeapAlloc - min(base, m.HeapAlloc)
}

// TestOTLPInflation: docs/security.md, watch input: decoding an OTLP/JSON body takes at most a few
// times its length at once, whatever its shape. Bodies of one long list of tiny items ("{}" is 3 bytes)
// took 40 to 100 times their length while decoded, and events and attributes kept 9 and 19 times it in
// the spans, when each list was decoded into a slice of structs. A span now keeps only the events the
// GenAI mapping reads, and every list is walked one element at a time.
func TestOTLPInflation(t *testing.T) {
	const size = 4 << 20
	for _, c := range inflatedBodies {
		body := inflated(c.head, c.item, c.tail, size)
		var spans []Span
		var err error
		peak, held := peakHeap(func() { spans, err = ParseOTLP(body) })
		n := float64(len(body))
		t.Logf("%-18s %d-byte body: peak %5.1f MiB (%4.1f×), held %5.1f MiB (%4.1f×), %d spans, error %v", c.name, len(body),
			float64(peak)/(1<<20), float64(peak)/n, float64(held)/(1<<20), float64(held)/n, len(spans), err)
		if err != nil || len(spans) > 1 {
			t.Errorf("%s: %d spans, error %v", c.name, len(spans), err)
		}
		if float64(peak) > 2*n+2*float64(held) || float64(held) > c.held*n {
			t.Errorf("%s: decoding a %d-byte body took %d bytes at its peak and holds %d after, want at most twice its length and twice what it holds, and %.2f times its length held", c.name, len(body), peak, held, c.held)
		}
		runtime.KeepAlive(spans)
	}
}

// TestDeprecatedNames: the events are read for every deprecated name, and only those, in order.
func TestDeprecatedNames(t *testing.T) {
	if len(deprecatedNames) != len(deprecated()) {
		t.Fatalf("deprecatedNames has %d names, deprecated %d", len(deprecatedNames), len(deprecated()))
	}
	for i, n := range deprecatedNames {
		if _, ok := deprecated()[n]; !ok || (i > 0 && deprecatedNames[i-1] >= n) {
			t.Errorf("deprecatedNames[%d] = %q: not a deprecated name, or out of order", i, n)
		}
	}
}

// TestProtoMergeInflation: a protobuf message sent in parts is merged (protovalue.go), and values nest
// maxValueDepth deep: a long string under every level of arrays and key-value lists each sent in two parts
// (the second empty) is decoded in at most a few times the body's length, not a copy of it per level.
func TestProtoMergeInflation(t *testing.T) {
	const size = 1 << 20
	str := enc(func(m *pbMsg) { m.bytes(1, true, []byte(strings.Repeat("x", size))) }) // AnyValue{stringValue}
	arrays, kvlists := str, str
	for range maxValueDepth - 1 {
		arrays = append(wrap(arrays, 1, 5), 0x2a, 0) // AnyValue{arrayValue{values: [v]}, arrayValue{}}
		kv := slices.Concat(wrap([]byte("k"), 1), wrap(kvlists, 2), []byte{0x12, 0})
		kvlists = append(wrap(kv, 1, 6), 0x32, 0) // AnyValue{kvlistValue{values: [{k, v, {}}]}, kvlistValue{}}
	}
	for _, c := range []struct {
		name  string
		value []byte
	}{{"arrays", arrays}, {"kvlists", kvlists}} {
		body := protoSpan(goodTrace, goodSpan, attr("a", c.value))
		var spans []Span
		var err error
		peak, held := peakHeap(func() { spans, err = ParseOTLPProto(body) })
		n := float64(len(body))
		t.Logf("%-8s %d-byte body: peak %5.1f MiB (%4.1f×), held %5.1f MiB (%4.1f×), error %v", c.name, len(body),
			float64(peak)/(1<<20), float64(peak)/n, float64(held)/(1<<20), float64(held)/n, err)
		if err != nil || len(spans) != 1 {
			t.Fatalf("%s: %d spans, error %v", c.name, len(spans), err)
		}
		if float64(peak) > 2*n+2*float64(held) {
			t.Errorf("%s: decoding a %d-byte body took %d bytes at its peak and holds %d after, want at most twice its length and twice what it holds", c.name, len(body), peak, held)
		}
		runtime.KeepAlive(spans)
	}
}

// TestProtoSpanSizeCountsMemory: what --max-open-bytes counts of a protobuf span (Size, spanHeld)
// covers what the span holds: a body of the smallest spans (28 bytes each on the wire, ~250 held) held
// ~9× the encoded length, which Size first counted.
func TestProtoSpanSizeCountsMemory(t *testing.T) {
	const n = 100_000
	var scope []byte
	for i := range n {
		span := []byte{0x0a, 16}
		span = append(span, bytes.Repeat([]byte{0x5b}, 16)...)
		span = append(span, 0x12, 8)
		span = binary.BigEndian.AppendUint64(span, uint64(i+1))
		scope = append(scope, 0x12, byte(len(span)))
		scope = append(scope, span...)
	}
	wrap := func(field byte, b []byte) []byte {
		return append(binary.AppendUvarint([]byte{field}, uint64(len(b))), b...)
	}
	body := wrap(0x0a, wrap(0x12, scope)) // ExportTraceServiceRequest{resource_spans{scope_spans{spans…}}}
	var spans []Span
	var err error
	_, held := peakHeap(func() { spans, err = ParseOTLPProto(body) })
	if err != nil || len(spans) != n {
		t.Fatalf("%d spans, error %v", len(spans), err)
	}
	counted := 0
	for _, sp := range spans {
		counted += sp.Size
	}
	t.Logf("%d-byte body, %d spans: held %d bytes, counted %d (%.2f×)", len(body), n, held, counted, float64(held)/float64(counted))
	if float64(held) > 3*float64(counted) {
		t.Errorf("%d spans hold %d bytes but count %d against --max-open-bytes: more than 3× what is counted", n, held, counted)
	}
	runtime.KeepAlive(spans)
}
