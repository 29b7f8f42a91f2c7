package authdelegate

import (
	"sync"
	"time"

	"github.com/kcmlab/kcm/clock"
)

// DefaultCacheSize bounds each cache: a flood of distinct credentials
// evicts entries rather than growing memory without end
// (k8s.io/apiserver's token cache is a striped LRU of similar size).
const DefaultCacheSize = 4096

// ttlCache maps keys to values that expire ttl after they were added,
// by an injected clock. It holds at most size entries: adding to a full
// cache first drops the expired ones, then the entry that expires
// soonest. Safe for concurrent use.
type ttlCache[V any] struct {
	clk  clock.Clock
	size int

	mu      sync.Mutex
	entries map[string]cacheEntry[V] // guarded by mu
}

type cacheEntry[V any] struct {
	v       V
	expires time.Time
}

func newTTLCache[V any](clk clock.Clock, size int) *ttlCache[V] {
	if size <= 0 {
		size = DefaultCacheSize
	}
	return &ttlCache[V]{clk: clk, size: size, entries: make(map[string]cacheEntry[V])}
}

// get returns the value under key while it has not expired.
func (c *ttlCache[V]) get(key string) (V, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	e, ok := c.entries[key]
	if !ok {
		var zero V
		return zero, false
	}
	if !c.clk.Now().Before(e.expires) {
		delete(c.entries, key)
		var zero V
		return zero, false
	}
	return e.v, true
}

// add stores v under key for ttl; a ttl ≤ 0 stores nothing (caching off).
func (c *ttlCache[V]) add(key string, v V, ttl time.Duration) {
	if ttl <= 0 {
		return
	}
	now := c.clk.Now()
	c.mu.Lock()
	defer c.mu.Unlock()
	if _, ok := c.entries[key]; !ok && len(c.entries) >= c.size {
		c.evictLocked(now)
	}
	c.entries[key] = cacheEntry[V]{v: v, expires: now.Add(ttl)}
}

// evictLocked makes room for one entry.
func (c *ttlCache[V]) evictLocked(now time.Time) {
	var soonest string
	var at time.Time
	for k, e := range c.entries {
		if !now.Before(e.expires) {
			delete(c.entries, k)
			continue
		}
		if soonest == "" || e.expires.Before(at) {
			soonest, at = k, e.expires
		}
	}
	if len(c.entries) >= c.size {
		delete(c.entries, soonest)
	}
}

// len is the number of entries held, expired ones included.
func (c *ttlCache[V]) len() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return len(c.entries)
}
