package ctrl

import (
	"errors"
	"fmt"
	"sync"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/kcmlab/kcm/internal/promreg"
	"github.com/kcmlab/kcm/kube/api"
	"github.com/kcmlab/kcm/kube/rest"
)

// GroupResource names a resource apart from its version: what a
// controller writes and what a cache holds ("apps", "replicasets").
type GroupResource struct{ Group, Resource string }

// GroupResourceOf is r's group and resource.
func GroupResourceOf(r rest.Resource) GroupResource {
	return GroupResource{Group: r.Group, Resource: r.Resource}
}

func (g GroupResource) String() string {
	if g.Group == "" {
		return g.Resource
	}
	return g.Resource + "." + g.Group
}

// ResourceVersionSource is a cache that knows the resourceVersion it is
// current at: an informer, its Lister or its store View
// (LastStoreSyncResourceVersion; Kubernetes' LastSyncRVGetter).
type ResourceVersionSource interface {
	LastStoreSyncResourceVersion() string
}

// ErrStale: a controller's cache has not yet seen the controller's own
// last write; a StaleError wraps it.
var ErrStale = errors.New("cache older than the controller's own write")

// StaleError says which cache is behind which write (Kubernetes'
// ConsistencyError).
type StaleError struct {
	// ReadRV is the cache's resourceVersion, WroteRV the write's.
	ReadRV, WroteRV string
	GroupResource   GroupResource
}

func (e *StaleError) Error() string {
	return fmt.Sprintf("read version: %s is not as new as written version: %s for group resource %s",
		e.ReadRV, e.WroteRV, e.GroupResource)
}

// Unwrap makes errors.Is(err, ErrStale) hold.
func (e *StaleError) Unwrap() error { return ErrStale }

// Consistency is the stale-controller check of Kubernetes' KEP-5647
// (kube-controller-manager's ConsistencyStore, on by default since 1.36
// for the ReplicaSet, DaemonSet, Job and StatefulSet controllers and since
// 1.37 for the HorizontalPodAutoscaler). A controller records the
// resourceVersion of each write it makes on behalf of an owner (a
// ReplicaSet's pod creations and status updates), per resource; before it
// syncs that owner again it asks EnsureReady, which fails while the cache
// of any resource written is older than the write. The sync is then
// skipped and retried with backoff, instead of acting on a cache that does
// not show the controller its own work — the expectations' problem (do
// not create twice what the cache has not shown yet) for every write,
// status updates included.
//
// Each owner is recorded under its key (a controller's queue key:
// "namespace/name"; "" for a controller-wide record) and UID: a record of
// another UID is replaced by the next write, so an object deleted and
// created again under the same name starts clean. For each resource the
// newest resourceVersion written is kept (CompareResourceVersion; one
// that cannot be compared replaces the record). EnsureReady passes, and
// drops the record, once every cache is at least as new as the writes;
// a cache with no resourceVersion yet (""), a resource with no cache, and
// resourceVersions that cannot be compared never hold a sync back.
//
// The zero value is not usable; a nil *Consistency records nothing and is
// always ready (the feature turned off). Methods are safe for concurrent
// use; EnsureReady and WroteAt of one owner must not race (the loop syncs
// a key on one worker at a time).
type Consistency struct {
	sources map[GroupResource]ResourceVersionSource
	skips   *StaleSkips

	mu     sync.RWMutex
	owners map[string]*ownerWrites
}

// ownerWrites are one owner's writes: per resource, the newest
// resourceVersion written.
type ownerWrites struct {
	uid string // never changes
	mu  sync.Mutex
	rvs map[GroupResource]string
}

// NewConsistency checks writes against the caches in sources, counting
// each skipped sync in skips (nil: not counted).
func NewConsistency(sources map[GroupResource]ResourceVersionSource, skips *StaleSkips) *Consistency {
	return &Consistency{sources: sources, skips: skips, owners: map[string]*ownerWrites{}}
}

// WroteAt records that the controller wrote resource at resourceVersion
// rv on behalf of the owner (key, uid). An empty rv records nothing.
func (c *Consistency) WroteAt(owner, uid string, resource GroupResource, rv string) {
	if c == nil || rv == "" {
		return
	}
	w := c.writesOf(owner, uid)
	w.mu.Lock()
	defer w.mu.Unlock()
	if cur, ok := w.rvs[resource]; ok {
		if cmp, err := api.CompareResourceVersion(cur, rv); err == nil && cmp >= 0 {
			return
		}
	}
	w.rvs[resource] = rv
}

// writesOf returns the owner's record, a new one if it has none or one of
// another UID.
func (c *Consistency) writesOf(owner, uid string) *ownerWrites {
	c.mu.RLock()
	w := c.owners[owner]
	c.mu.RUnlock()
	if w != nil && w.uid == uid {
		return w
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if w := c.owners[owner]; w != nil && w.uid == uid {
		return w
	}
	w = &ownerWrites{uid: uid, rvs: map[GroupResource]string{}}
	c.owners[owner] = w
	return w
}

// Clear forgets the owner's writes: those of its UID, or whatever its UID
// when uid is "" (an owner gone from the cache, whose UID is unknown).
func (c *Consistency) Clear(owner, uid string) {
	if c == nil {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if w := c.owners[owner]; w != nil && (uid == "" || w.uid == uid) {
		delete(c.owners, owner)
	}
}

// EnsureReady returns nil when every cache is at least as new as the
// owner's writes to it, and then forgets them; otherwise a *StaleError
// (wrapping ErrStale) naming the first cache found behind, counted in the
// skips metric.
func (c *Consistency) EnsureReady(owner string) error {
	if c == nil {
		return nil
	}
	c.mu.RLock()
	w := c.owners[owner]
	c.mu.RUnlock()
	if w == nil {
		return nil
	}
	if err := c.behind(w); err != nil {
		c.skips.inc(err.GroupResource)
		return err
	}
	c.Clear(owner, w.uid)
	return nil
}

// behind returns the first of w's writes its cache has not seen, or nil.
func (c *Consistency) behind(w *ownerWrites) *StaleError {
	w.mu.Lock()
	defer w.mu.Unlock()
	for gr, wrote := range w.rvs {
		src := c.sources[gr]
		if src == nil {
			continue
		}
		read := src.LastStoreSyncResourceVersion()
		if read == "" {
			continue // the cache has no resourceVersion yet: nothing to compare
		}
		if cmp, err := api.CompareResourceVersion(wrote, read); err == nil && cmp > 0 {
			return &StaleError{ReadRV: read, WroteRV: wrote, GroupResource: gr}
		}
	}
	return nil
}

// StaleSkips counts the syncs a controller skipped because a cache was
// older than its own write: kube-controller-manager's
// <subsystem>_stale_sync_skips_total counter, labelled group and
// resource (the cache that was behind). A nil *StaleSkips counts nothing.
type StaleSkips struct{ vec *prometheus.CounterVec }

func (s *StaleSkips) inc(gr GroupResource) {
	if s != nil {
		s.vec.WithLabelValues(gr.Group, gr.Resource).Inc()
	}
}

// StaleSyncSkips returns the counter <subsystem>_stale_sync_skips_total of
// a controller (subsystem "replicaset_controller"; kind, "ReplicaSet",
// names it in the help text as kube-controller-manager's does), registered
// once on the metrics' registry. A nil *Metrics returns nil.
func (m *Metrics) StaleSyncSkips(subsystem, kind string) (*StaleSkips, error) {
	if m == nil {
		return nil, nil
	}
	var err error
	vec := promreg.Keep(m.reg, prometheus.NewCounterVec(prometheus.CounterOpts{
		Subsystem: subsystem, Name: "stale_sync_skips_total",
		Help: "Total number of " + kind + " syncs skipped due to a stale watch cache.",
	}, []string{"group", "resource"}), &err)
	if err != nil {
		return nil, err
	}
	return &StaleSkips{vec: vec}, nil
}
