// lru.go: a small bounded LRU map, safe for concurrent use (the result cache's memory; assert keeps its own for compiled checks).

package provider

import (
	"container/list"
	"sync"
)

// lru is a fixed-capacity least-recently-used cache. Every cache in the
// engine is one of these, so no input can make memory grow without bound.
type lru[K comparable, V any] struct {
	mu    sync.Mutex
	max   int
	order *list.List // front = most recent; elements hold *lruEntry
	items map[K]*list.Element

	// With weigh set, the entries' total weight stays within maxWeight too:
	// a cache of values that vary in size is bounded in bytes, not only in
	// number. A value heavier than maxWeight alone is not kept.
	weigh     func(V) int64
	maxWeight int64
	weight    int64
}

type lruEntry[K comparable, V any] struct {
	key K
	val V
}

func newLRU[K comparable, V any](max int) *lru[K, V] {
	if max < 1 {
		max = 1
	}
	return &lru[K, V]{max: max, order: list.New(), items: make(map[K]*list.Element)}
}

// newWeightedLRU is newLRU bounded also by the total weight of its values.
func newWeightedLRU[K comparable, V any](max int, maxWeight int64, weigh func(V) int64) *lru[K, V] {
	c := newLRU[K, V](max)
	c.weigh, c.maxWeight = weigh, maxWeight
	return c
}

func (c *lru[K, V]) weightOf(v V) int64 {
	if c.weigh == nil {
		return 0
	}
	return c.weigh(v)
}

func (c *lru[K, V]) get(k K) (V, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if e, ok := c.items[k]; ok {
		c.order.MoveToFront(e)
		return e.Value.(*lruEntry[K, V]).val, true
	}
	var zero V
	return zero, false
}

func (c *lru[K, V]) put(k K, v V) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if e, ok := c.items[k]; ok {
		ent := e.Value.(*lruEntry[K, V])
		c.weight += c.weightOf(v) - c.weightOf(ent.val)
		ent.val = v
		c.order.MoveToFront(e)
	} else {
		c.items[k] = c.order.PushFront(&lruEntry[K, V]{key: k, val: v})
		c.weight += c.weightOf(v)
	}
	for c.order.Len() > c.max || c.weight > c.maxWeight {
		last := c.order.Back()
		ent := last.Value.(*lruEntry[K, V])
		c.order.Remove(last)
		delete(c.items, ent.key)
		c.weight -= c.weightOf(ent.val)
	}
}
