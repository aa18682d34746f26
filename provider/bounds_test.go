// bounds_test.go: docs/security.md's bounds on the provider result cache (entries and bytes).

package provider

import (
	"fmt"
	"testing"
)

// TestResultCacheBounded: docs/security.md "the in-memory result cache is bounded at
// 64 MiB as well as in entries" (cache_size, default 4096).
func TestResultCacheBounded(t *testing.T) {
	ps, err := New(Settings{Getenv: envOf()})
	if err != nil {
		t.Fatal(err)
	}
	if got := ps.cache.mem.Cap(); got != defaultCacheEntries {
		t.Errorf("result cache without cache_size: %d entries, want the default %d", got, defaultCacheEntries)
	}
	c, err := newResultCache(16, "", 0)
	if err != nil {
		t.Fatal(err)
	}
	for i := range 24 {
		c.put(CacheKey("small", fmt.Sprint(i)), []byte("v"))
	}
	if n := c.mem.Len(); n != 16 {
		t.Errorf("%d entries kept with cache_size 16", n)
	}
	// 80 values of 1 MiB (one shared buffer: only the weight is counted).
	c, err = newResultCache(1000, "", 0)
	if err != nil {
		t.Fatal(err)
	}
	mib := make([]byte, 1<<20)
	for i := range 80 {
		c.put(CacheKey("large", fmt.Sprint(i)), mib)
	}
	if n, w := c.mem.Len(), c.mem.Weight(); w > maxMemBytes || n != maxMemBytes>>20 {
		t.Errorf("%d values of 1 MiB weighing %d bytes kept, want %d within %d bytes", n, w, maxMemBytes>>20, maxMemBytes)
	}
}
