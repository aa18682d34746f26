package lru

import (
	"fmt"
	"sync"
	"testing"
)

// TestLRUWeight: a weighted LRU keeps its values' total weight within its
// budget, evicting the least recently used first, and does not keep a value
// heavier than the whole budget; the count bound still holds.
func TestLRUWeight(t *testing.T) {
	c := NewWeighted[string, []byte](3, 10, func(v []byte) int64 { return int64(len(v)) })
	put := func(k string, n int) { c.Put(k, make([]byte, n)) }
	has := func() (keys string) {
		for _, k := range []string{"a", "b", "c", "d", "e", "big"} {
			if _, ok := c.items[k]; ok {
				keys += k
			}
		}
		return keys
	}
	steps := []struct {
		key  string
		size int
		want string // keys kept afterwards
		why  string
	}{
		{"a", 4, "a", "within budget"},
		{"b", 4, "ab", "8 of 10"},
		{"c", 4, "bc", "12 > 10: the oldest goes"},
		{"b", 1, "bc", "a smaller value under a kept key: 5 of 10"},
		{"d", 1, "bcd", "6 of 10"},
		{"e", 1, "bde", "the count bound (3) evicts too: c, least recently used since b was put again"},
		{"big", 11, "", "heavier than the budget: nothing is kept, itself included"},
	}
	for _, st := range steps {
		put(st.key, st.size)
		if got := has(); got != st.want || c.weight > 10 {
			t.Errorf("after %s=%d: kept %q weighing %d, want %q: %s", st.key, st.size, got, c.weight, st.want, st.why)
		}
	}
}

// TestLRUCount: the count bound evicts the least recently used, and Get
// counts as a use.
func TestLRUCount(t *testing.T) {
	c := New[int, string](2)
	c.Put(1, "one")
	c.Put(2, "two")
	if v, ok := c.Get(1); !ok || v != "one" {
		t.Fatalf("Get(1) = %q, %v", v, ok)
	}
	c.Put(3, "three") // 2 is the least recently used now
	if _, ok := c.Get(2); ok {
		t.Error("2 was kept past the bound")
	}
	if _, ok := c.Get(1); !ok {
		t.Error("1 was evicted though used after 2")
	}
	if n := c.Len(); n != 2 {
		t.Errorf("Len() = %d, want 2", n)
	}
	if New[int, int](0).max != 1 {
		t.Error("a cache keeps at least one entry")
	}
}

// TestLRUConcurrent: safe for concurrent use (run with -race).
func TestLRUConcurrent(t *testing.T) {
	c := New[string, int](64)
	var wg sync.WaitGroup
	for g := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range 1000 {
				k := fmt.Sprint(g, i%100)
				c.Put(k, i)
				c.Get(k)
			}
		}()
	}
	wg.Wait()
	if n := c.Len(); n > 64 {
		t.Errorf("Len() = %d past the bound of 64", n)
	}
}
