// chunks_test.go: ParseOTLPChunks and ParseOTLPProtoChunks: the same spans as a whole decode, in bounded chunks, a bad request never half taken.

package ingest

import (
	"errors"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// chunkParsers are the two encodings' chunked decoders with a body of
// each made from an OTLP/JSON request.
var chunkParsers = []struct {
	name   string
	body   func(t *testing.T, js []byte) []byte
	whole  func([]byte) ([]Span, error)
	chunks func([]byte, int, func([]Span, bool) error) error
}{
	{"json", func(t *testing.T, js []byte) []byte { return js }, ParseOTLP, ParseOTLPChunks},
	{"protobuf", func(t *testing.T, js []byte) []byte {
		pb, err := (&pbEncoder{}).request(js)
		if err != nil {
			t.Fatal(err)
		}
		return pb
	}, ParseOTLPProto, ParseOTLPProtoChunks},
}

// TestChunks: the chunks, joined, are the spans of a whole decode, in
// order; each holds at most the bound, unless it is one span larger than
// the bound; a request within the bound is one chunk.
func TestChunks(t *testing.T) {
	big := `{"key":"big","value":{"stringValue":"` + strings.Repeat("x", 5000) + `"}}`
	for _, p := range chunkParsers {
		for _, c := range []struct {
			name       string
			js         []byte
			max        int
			wantChunks int // 0: more than one
		}{
			{"one span", heldBody(1, ""), DefaultChunk, 1},
			{"1,000 spans, default bound", heldBody(1000, ""), DefaultChunk, 1},
			{"1,000 spans, 4 KiB", heldBody(1000, ""), 4 << 10, 0},
			{"spans larger than the bound", heldBody(7, big), 1 << 10, 7},
			{"bound 1", heldBody(5, ""), 1, 5},
		} {
			t.Run(p.name+"/"+c.name, func(t *testing.T) {
				body := p.body(t, c.js)
				want, err := p.whole(body)
				if err != nil {
					t.Fatal(err)
				}
				var got []Span
				chunks := 0
				lastMore := true
				err = p.chunks(body, c.max, func(spans []Span, more bool) error {
					if !lastMore {
						t.Errorf("chunk %d after one that said no more follow", chunks+1)
					}
					lastMore = more
					chunks++
					held := 0
					for _, sp := range spans {
						held += sp.Size
					}
					if len(spans) == 0 || (held > c.max && len(spans) > 1) {
						t.Errorf("chunk %d: %d spans holding %d bytes, bound %d", chunks, len(spans), held, c.max)
					}
					got = append(got, spans...)
					return nil
				})
				if err != nil {
					t.Fatal(err)
				}
				if lastMore {
					t.Error("the last chunk says more follow")
				}
				if diff := cmp.Diff(want, got); diff != "" {
					t.Errorf("chunks joined differ from the whole decode (-whole +chunks):\n%s", diff)
				}
				if (c.wantChunks == 0 && chunks < 2) || (c.wantChunks > 0 && chunks != c.wantChunks) {
					t.Errorf("%d chunks, want %d (0: several)", chunks, c.wantChunks)
				}
			})
		}
	}
}

// TestChunksAllOrNothing: a request that does not decode, wherever its
// error is, hands on no span and returns the whole decode's error; an
// error from emit ends the decoding and is returned.
func TestChunksAllOrNothing(t *testing.T) {
	good := string(heldBody(600, ""))
	// The last span's trace id made invalid: the error comes after many chunks' worth.
	last := strings.LastIndex(good, `"traceId":"`) + len(`"traceId":"`)
	bad := []byte(good[:last] + "zz" + good[last+2:])
	for _, p := range chunkParsers {
		t.Run(p.name, func(t *testing.T) {
			body := p.body(t, bad)
			if p.name == "protobuf" { // the encoder refuses a bad id: cut the body short instead
				body = p.body(t, []byte(good))
				body = body[:len(body)-3]
			}
			_, wantErr := p.whole(body)
			if wantErr == nil {
				t.Fatal("the whole decode takes the bad body")
			}
			emitted := 0
			err := p.chunks(body, 2<<10, func(spans []Span, _ bool) error { emitted += len(spans); return nil })
			if err == nil || err.Error() != wantErr.Error() || emitted != 0 {
				t.Errorf("error %v, %d spans handed on; want %v and none", err, emitted, wantErr)
			}
			stop := errors.New("stop")
			calls := 0
			err = p.chunks(p.body(t, []byte(good)), 2<<10, func([]Span, bool) error { calls++; return stop })
			if err != stop || calls != 1 {
				t.Errorf("emit failing: error %v after %d calls, want %v after 1", err, calls, stop)
			}
		})
	}
}

// TestChunksMemory: decoding a request of 200,000 spans chunk by chunk,
// the chunks dropped as they come, holds a few chunks at its peak, where
// the whole decode holds every span (~70 MiB).
func TestChunksMemory(t *testing.T) {
	if testing.Short() {
		t.Skip("decodes 200,000 spans three times")
	}
	body := heldBody(200000, "")
	for _, p := range chunkParsers {
		b := p.body(t, body)
		n := 0
		peak, _ := peakHeap(func() {
			if err := p.chunks(b, DefaultChunk, func(spans []Span, _ bool) error { n += len(spans); return nil }); err != nil {
				t.Error(err)
			}
		})
		t.Logf("%s: %d-byte body, %d spans: peak %.1f MiB above the body", p.name, len(b), n, float64(peak)/(1<<20))
		// A few chunks, and the garbage peakHeap's GOGC=10 lets grow
		// over a heap that holds the bodies.
		if n != 200000 || peak > 16<<20 {
			t.Errorf("%s: %d spans, peak %d bytes; want 200,000 and at most 16 MiB", p.name, n, peak)
		}
	}
}
