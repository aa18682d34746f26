package ingest

import (
	"bytes"
	"os"
	"testing"
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
