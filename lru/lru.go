// lru.go: Cache, the least-recently-used map bounded in entries and weight.

package lru

import (
	"container/list"
	"sync"
)

// Cache is a fixed-capacity least-recently-used map.
type Cache[K comparable, V any] struct {
	mu    sync.Mutex
	max   int
	order *list.List // front = most recent; elements hold *entry
	items map[K]*list.Element

	// With weigh set, the entries' total weight stays within maxWeight too:
	// a cache of values that vary in size is bounded in bytes, not only in
	// number. A value heavier than maxWeight alone is not kept.
	weigh     func(V) int64
	maxWeight int64
	weight    int64
}

type entry[K comparable, V any] struct {
	key K
	val V
}

// New returns a cache of at most max entries (at least 1).
func New[K comparable, V any](max int) *Cache[K, V] {
	if max < 1 {
		max = 1
	}
	return &Cache[K, V]{max: max, order: list.New(), items: make(map[K]*list.Element)}
}

// NewWeighted is New bounded also by the total weight of its values.
func NewWeighted[K comparable, V any](max int, maxWeight int64, weigh func(V) int64) *Cache[K, V] {
	c := New[K, V](max)
	c.weigh, c.maxWeight = weigh, maxWeight
	return c
}

func (c *Cache[K, V]) weightOf(v V) int64 {
	if c.weigh == nil {
		return 0
	}
	return c.weigh(v)
}

// Get returns the value kept for k, marking it most recently used.
func (c *Cache[K, V]) Get(k K) (V, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if e, ok := c.items[k]; ok {
		c.order.MoveToFront(e)
		return e.Value.(*entry[K, V]).val, true
	}
	var zero V
	return zero, false
}

// Put keeps v for k, evicting the least recently used entries beyond the bounds.
func (c *Cache[K, V]) Put(k K, v V) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if e, ok := c.items[k]; ok {
		ent := e.Value.(*entry[K, V])
		c.weight += c.weightOf(v) - c.weightOf(ent.val)
		ent.val = v
		c.order.MoveToFront(e)
	} else {
		c.items[k] = c.order.PushFront(&entry[K, V]{key: k, val: v})
		c.weight += c.weightOf(v)
	}
	for c.order.Len() > c.max || c.weight > c.maxWeight {
		last := c.order.Back()
		ent := last.Value.(*entry[K, V])
		c.order.Remove(last)
		delete(c.items, ent.key)
		c.weight -= c.weightOf(ent.val)
	}
}

// Len is the number of entries kept.
func (c *Cache[K, V]) Len() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return len(c.items)
}

// Weight is the total weight of the values kept (0 without a weigh function).
func (c *Cache[K, V]) Weight() int64 {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.weight
}

// Cap is the most entries the cache keeps.
func (c *Cache[K, V]) Cap() int { return c.max }
