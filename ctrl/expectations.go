package ctrl

import (
	"sync"
	"time"

	"github.com/rs/zerolog"

	"github.com/kcmlab/kcm/clock"
)

// ExpectationsTimeout is how long expectations hold a controller back
// before they are considered lost and it syncs anyway (Kubernetes'
// controller.ExpectationsTimeout: long enough for a slow watch at scale,
// short enough that a missed event does not stall a controller for long).
const ExpectationsTimeout = 5 * time.Minute

// ControllerExpectations remember, per controller key (a ReplicaSet's
// "namespace/name"), how many creations and deletions the controller has
// made that its informer has not shown it yet (Kubernetes'
// controller.ControllerExpectations).
//
// The problem they solve: a ReplicaSet controller that has just created 3
// pods syncs again before the pod informer has seen them; counting pods
// from the cache it would create 3 more. So before writing it calls
// ExpectCreations(key, 3); the pod handler calls CreationObserved(key)
// for each new pod; and a sync acts only when SatisfiedExpectations(key).
//
// The rules, Kubernetes':
//   - a key without expectations is satisfied (a new controller syncs);
//   - expectations are satisfied once every expected creation and
//     deletion was observed (counts ≤ 0), or once ExpectationsTimeout has
//     passed since they were set;
//   - once set, expectations are only lowered — by observations, and by
//     the controller itself for writes that failed or were skipped (a
//     failed create will never be observed).
//
// All methods are safe for concurrent use.
type ControllerExpectations struct {
	clock clock.Clock
	log   zerolog.Logger
	mu    sync.Mutex
	m     map[string]*expectation
}

// expectation is one key's outstanding counts (ControlleeExpectations).
type expectation struct {
	add, del int64
	// at is when the expectation was set; it expires ExpectationsTimeout
	// later.
	at time.Time
}

// NewControllerExpectations returns an empty store on clk (nil: real).
func NewControllerExpectations(clk clock.Clock, log zerolog.Logger) *ControllerExpectations {
	if clk == nil {
		clk = clock.Real{}
	}
	return &ControllerExpectations{clock: clk, log: log, m: map[string]*expectation{}}
}

// GetExpectations returns the outstanding creations and deletions of key;
// ok is false when key has none recorded.
func (c *ControllerExpectations) GetExpectations(key string) (add, del int64, ok bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	e, ok := c.m[key]
	if !ok {
		return 0, 0, false
	}
	return e.add, e.del, true
}

// SatisfiedExpectations reports whether the controller may sync key: it
// has no expectations, they were all observed, or they expired.
func (c *ControllerExpectations) SatisfiedExpectations(key string) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	e, ok := c.m[key]
	if !ok {
		return true // never set, or deleted
	}
	if e.add <= 0 && e.del <= 0 {
		return true // fulfilled
	}
	expired := c.clock.Since(e.at) > ExpectationsTimeout
	if expired {
		c.log.Debug().Str("key", key).Int64("add", e.add).Int64("del", e.del).Msg("expectations expired")
	}
	return expired
}

// SetExpectations replaces key's expectations with add creations and del
// deletions, starting a new timeout.
func (c *ControllerExpectations) SetExpectations(key string, add, del int) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.m[key] = &expectation{add: int64(add), del: int64(del), at: c.clock.Now()}
}

// ExpectCreations sets key to expect n creations and no deletions.
func (c *ControllerExpectations) ExpectCreations(key string, n int) { c.SetExpectations(key, n, 0) }

// ExpectDeletions sets key to expect n deletions and no creations.
func (c *ControllerExpectations) ExpectDeletions(key string, n int) { c.SetExpectations(key, 0, n) }

// LowerExpectations subtracts from key's counts, if it has expectations.
func (c *ControllerExpectations) LowerExpectations(key string, add, del int) {
	c.adjust(key, -add, -del)
}

// RaiseExpectations adds to key's counts, if it has expectations.
func (c *ControllerExpectations) RaiseExpectations(key string, add, del int) { c.adjust(key, add, del) }

func (c *ControllerExpectations) adjust(key string, add, del int) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if e, ok := c.m[key]; ok {
		e.add += int64(add)
		e.del += int64(del)
	}
}

// CreationObserved records that one expected creation was seen (or will
// never be: call it for a create that failed).
func (c *ControllerExpectations) CreationObserved(key string) { c.LowerExpectations(key, 1, 0) }

// DeletionObserved records that one expected deletion was seen.
func (c *ControllerExpectations) DeletionObserved(key string) { c.LowerExpectations(key, 0, 1) }

// DeleteExpectations forgets key (its object was deleted).
func (c *ControllerExpectations) DeleteExpectations(key string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	delete(c.m, key)
}

// UIDTrackingControllerExpectations are ControllerExpectations whose
// deletions are tracked by the keys ("namespace/name") of the pods being
// deleted (Kubernetes' UIDTrackingControllerExpectations). A pod being
// deleted is seen twice — an update setting deletionTimestamp, then the
// delete — and the controller treats both as its deletion; tracking which
// pods it waits for makes the second sighting count for nothing.
type UIDTrackingControllerExpectations struct {
	*ControllerExpectations
	mu sync.Mutex
	// pending holds, per controller key, the pod keys whose deletion has
	// not been observed yet.
	pending map[string]map[string]bool
}

// NewUIDTrackingControllerExpectations wraps c.
func NewUIDTrackingControllerExpectations(c *ControllerExpectations) *UIDTrackingControllerExpectations {
	return &UIDTrackingControllerExpectations{ControllerExpectations: c, pending: map[string]map[string]bool{}}
}

// ExpectDeletions sets key to expect the deletion of exactly the pods
// named by podKeys (duplicates count once), replacing what it waited for.
func (u *UIDTrackingControllerExpectations) ExpectDeletions(key string, podKeys []string) {
	u.mu.Lock()
	defer u.mu.Unlock()
	if old := u.pending[key]; len(old) > 0 {
		u.log.Warn().Str("key", key).Int("pending", len(old)).Msg("replacing deletions still expected")
	}
	set := make(map[string]bool, len(podKeys))
	for _, k := range podKeys {
		set[k] = true
	}
	u.pending[key] = set
	u.ControllerExpectations.ExpectDeletions(key, len(set))
}

// DeletionObserved records that the pod podKey is gone (or going); it
// lowers key's count only the first time, and only for a pod key expected.
func (u *UIDTrackingControllerExpectations) DeletionObserved(key, podKey string) {
	u.mu.Lock()
	defer u.mu.Unlock()
	if set := u.pending[key]; set[podKey] {
		delete(set, podKey)
		u.ControllerExpectations.DeletionObserved(key)
	}
}

// GetUIDs returns the pod keys whose deletion key still waits for.
func (u *UIDTrackingControllerExpectations) GetUIDs(key string) []string {
	u.mu.Lock()
	defer u.mu.Unlock()
	out := make([]string, 0, len(u.pending[key]))
	for k := range u.pending[key] {
		out = append(out, k)
	}
	return out
}

// DeleteExpectations forgets key's counts and pending pod keys.
func (u *UIDTrackingControllerExpectations) DeleteExpectations(key string) {
	u.mu.Lock()
	defer u.mu.Unlock()
	u.ControllerExpectations.DeleteExpectations(key)
	delete(u.pending, key)
}
