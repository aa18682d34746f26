package watch

import (
	"context"
	"io"
	"net/http/httptest"
	"os"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"attest-engine/ingest"
)

// countingBody counts the request bodies begun.
type countingBody struct {
	io.Reader
	begun *atomic.Int32
	once  sync.Once
}

func (b *countingBody) Read(p []byte) (int, error) {
	b.once.Do(func() { b.begun.Add(1) })
	return b.Reader.Read(p)
}

func (b *countingBody) Close() error { return nil }

// TestExportsBounded: while the pipeline takes nothing, at most maxExports
// requests are read and held (each may hold --max-line bytes); the others
// wait unread.
func TestExportsBounded(t *testing.T) {
	data, err := os.ReadFile("../testdata/ingest/basic.input.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	body, _, _ := strings.Cut(string(data), "\n")
	c := &command{o: options{maxLine: 1 << 20}, exports: make(chan struct{}, maxExports)}
	stop, cancel := context.WithCancel(context.Background())
	items := make(chan ingest.Item) // nobody reads: the pipeline is full
	var begun atomic.Int32
	var wg sync.WaitGroup
	const clients = 3 * maxExports
	for range clients {
		wg.Go(func() {
			r := httptest.NewRequest("POST", "/v1/traces", nil)
			r.Body = &countingBody{Reader: strings.NewReader(body), begun: &begun}
			r.Header.Set("Content-Type", "application/json")
			c.export(stop, items, httptest.NewRecorder(), r)
		})
	}
	// Let every client reach its wait: too short a sleep can only hide a
	// failure, never make one.
	time.Sleep(200 * time.Millisecond)
	if n := begun.Load(); n > maxExports {
		t.Errorf("%d of %d request bodies read while the pipeline is full; want at most %d", n, clients, maxExports)
	}
	cancel()
	wg.Wait()
}
