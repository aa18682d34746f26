// bounds_test.go: the README threat model's cache bounds, each filled past its size through the engine.

package assert

import (
	"context"
	"encoding/json"
	"fmt"
	"testing"
)

// lruLen is the number of entries c holds.
func lruLen[K comparable, V any](c *lru[K, V]) int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return len(c.items)
}

// TestEngineCachesBounded: README "every cache is a bounded LRU (compiled
// assertions, parsed paths, idempotency results, provider results)". Each
// cache is driven past its size by distinct inputs and must stay at it.
func TestEngineCachesBounded(t *testing.T) {
	eng, err := New(Config{})
	if err != nil {
		t.Fatal(err)
	}
	refund := loadTrace(t, "refund")
	ctx := context.Background()

	// Compiled assertions: one distinct spec per batch, a few past the bound.
	for i := range compiledCacheSize + 8 {
		a := Assertion{ID: "c", Type: "constraint", Spec: map[string]any{"field": "metadata.cost_usd", "operator": "lte", "value": json.Number(fmt.Sprint(i))}}
		if _, err := eng.Evaluate(ctx, refund, []Assertion{a}); err != nil {
			t.Fatal(err)
		}
	}
	if n := lruLen(eng.compiled); n != compiledCacheSize {
		t.Errorf("compiled-assertion cache: %d entries after %d distinct specs, want %d", n, compiledCacheSize+8, compiledCacheSize)
	}

	// Idempotency results: one request_id per batch (spec §2.2).
	cost := map[string]any{"field": "metadata.cost_usd", "operator": "lte", "value": json.Number("0.01")}
	for i := range resultCacheSize + 8 {
		a := Assertion{ID: "r", Type: "constraint", Spec: cost, RequestID: fmt.Sprint("req_", i)}
		if _, err := eng.Evaluate(ctx, refund, []Assertion{a}); err != nil {
			t.Fatal(err)
		}
	}
	if n := lruLen(eng.results); n != resultCacheSize {
		t.Errorf("idempotency record: %d entries after %d request_ids, want %d", n, resultCacheSize+8, resultCacheSize)
	}

	// Parsed paths: shared by every engine of the process, so only the
	// bound is checked, not the count.
	for i := range pathCacheSize + 8 {
		if _, err := parseTarget(spec{"target": fmt.Sprintf("output.structured.field_%d", i)}, "target"); err != nil {
			t.Fatal(err)
		}
	}
	if n := lruLen(parsedPaths); n != pathCacheSize {
		t.Errorf("parsed-path cache: %d entries after %d distinct paths, want %d", n, pathCacheSize+8, pathCacheSize)
	}
}

// TestResultCacheBounded: README "the in-memory result cache is bounded at
// 64 MiB as well as in entries" (cache_size, default 4096).
func TestResultCacheBounded(t *testing.T) {
	ps, err := newProviders(ProviderSettings{Getenv: envOf()})
	if err != nil {
		t.Fatal(err)
	}
	if got := ps.cache.mem.max; got != defaultCacheEntries {
		t.Errorf("result cache without cache_size: %d entries, want the default %d", got, defaultCacheEntries)
	}
	c, err := newResultCache(16, "", 0)
	if err != nil {
		t.Fatal(err)
	}
	for i := range 24 {
		c.put(cacheKey("small", fmt.Sprint(i)), []byte("v"))
	}
	if n := lruLen(c.mem); n != 16 {
		t.Errorf("%d entries kept with cache_size 16", n)
	}
	// 80 values of 1 MiB (one shared buffer: only the weight is counted).
	c, err = newResultCache(1000, "", 0)
	if err != nil {
		t.Fatal(err)
	}
	mib := make([]byte, 1<<20)
	for i := range 80 {
		c.put(cacheKey("large", fmt.Sprint(i)), mib)
	}
	if n, w := lruLen(c.mem), c.mem.weight; w > maxMemBytes || n != maxMemBytes>>20 {
		t.Errorf("%d values of 1 MiB weighing %d bytes kept, want %d within %d bytes", n, w, maxMemBytes>>20, maxMemBytes)
	}
}
