package ingest

import (
	"bytes"
	"os"
	"testing"

	"attest-engine/tape"
)

// BenchmarkOTLP: one OTLP request of a five-span trace read, assembled and
// mapped to an Attest trace (testdata/ingest/basic, both lines).
func BenchmarkOTLP(b *testing.B) {
	data, err := os.ReadFile(dir + "/basic.input.jsonl")
	if err != nil {
		b.Fatal(err)
	}
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	for b.Loop() {
		feed := NewFeed(Limits{}, nil, nil)
		r := NewReader(bytes.NewReader(data), FormatAuto, 0)
		for {
			it, err := r.Next()
			if err != nil {
				break
			}
			feed.Add(it)
		}
		feed.Flush()
		if ts := take(feed); len(ts) != 1 {
			b.Fatal(len(ts))
		}
	}
}

// BenchmarkProtoPath: what the engine does with a trace that arrives as
// binary protobuf, up to the tape evaluation reads, per trace: a request of
// the basic trace's five spans decoded (CheckOTLPProto), assembled, mapped,
// written as JSON (AppendJSON) and parsed into a tape.
func BenchmarkProtoPath(b *testing.B) {
	pb, err := os.ReadFile(dir + "/basic.input.2.pb")
	if err != nil {
		b.Fatal(err)
	}
	data, err := os.ReadFile(dir + "/basic.input.jsonl")
	if err != nil {
		b.Fatal(err)
	}
	first, _, _ := bytes.Cut(data, []byte("\n"))
	js, err := (&pbEncoder{}).request(first)
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	defer reportCPU(b, benchCPU())
	for b.Loop() {
		feed := NewFeed(Limits{}, nil, nil)
		for _, body := range [][]byte{js, pb} {
			req, err := CheckOTLPProto(body, DefaultChunk)
			if err != nil {
				b.Fatal(err)
			}
			req.Each(func(spans []Span, _ bool) error { feed.Add(Item{Spans: spans}); return nil })
		}
		feed.Flush()
		t, ok := feed.Next()
		if !ok {
			b.Fatal("no trace")
		}
		text, err := AppendJSON(nil, t.Value)
		if err != nil {
			b.Fatal(err)
		}
		doc, err := tape.ParseUnique(text)
		if err != nil {
			b.Fatal(err)
		}
		doc.Release()
	}
}
