package statefulset

import (
	"bytes"
	"container/list"
	"encoding/json"
	"sync"

	"github.com/kcmlab/kcm/ctrl/history"
	"github.com/kcmlab/kcm/kube/api"
)

// The semantic comparison with the latest revision (feature gate
// StatefulSetSemanticRevisionComparison, on by default at the reference
// release).
//
// When no revision holds the bytes of set's template now, Kubernetes asks
// one more question before creating a revision: would restoring the latest
// revision give this template? It applies the revision to the set, runs
// the scheme's defaulting on the result, encodes the patch again and
// compares bytes. This keeps a StatefulSet from rolling when only the
// encoding of its template changed — Kubernetes 1.34 stopped writing
// "creationTimestamp": null in a template's metadata, so every revision
// written before looks different to a 1.34+ controller — or when a new
// release defaults a field the old revision lacks.
//
// kcm has no scheme and no defaulting. It re-derives the revision from
// history.ApplyRevision (which re-encodes the revision's template through
// generic JSON values, the path StatefulSetPatch takes for a live set)
// and, standing in for the typed round trip, drops a null
// metadata.creationTimestamp from the template, which the 1.34+ Go struct
// would not write. What it does not do: default fields (a revision
// written before a release that defaults a new template field differs
// from the defaulted live template here, and kcm creates a revision where
// kube-controller-manager would not), and drop fields or nulls the typed
// round trip would drop other than that one.
//
// So the difference is one-sided. When kcm says "match", the latest
// revision, less that null, is byte for byte the patch of the live
// template, which the apiserver served already defaulted and which 1.37's
// typed round trip leaves as it is: upstream says "match" too. When kcm
// says "no match", upstream may still say "match" — only for a revision
// whose template differs from the live one by defaults or by what the
// typed round trip drops — and kcm then creates a revision (and rolls the
// pods) where kube-controller-manager would not.
//
// Why this is safe for revisions written by kube-controller-manager 1.37
// (and by kcm): such a revision's data is byte for byte StatefulSetPatch
// of the set it was made from, and StatefulSetPatch(ApplyRevision(set,
// rev)) is rev's data (ctrl/history's guarantee, pinned against the
// reference binary by its pin test). So the reconstruction is the latest
// revision's own bytes, and it equals set's patch exactly when the latest
// revision is byte-equal to it — which FindEqualRevisions has already
// ruled out before this comparison runs. Upstream reaches the same answer:
// re-encoding and defaulting a template that 1.37 encoded from an already
// defaulted set gives the same bytes again. Both say "not a match", and
// both create (or reuse) the same revision.

// maxRevisionEqualityCacheEntries bounds the cache of matches (upstream's
// 10,000, about 1 MB).
const maxRevisionEqualityCacheEntries = 10_000

// revisionEqualityKey remembers that the revision at a resourceVersion
// matched the set of a uid at a generation (upstream's key).
type revisionEqualityKey struct {
	setUID                  string
	setGeneration           int64
	revisionResourceVersion string
}

// revisionEqualityCache is a least-recently-used set of matches, safe for
// concurrent use (k8s.io/utils/lru as upstream uses it).
type revisionEqualityCache struct {
	mu    sync.Mutex
	size  int
	order *list.List // of revisionEqualityKey, most recently used first
	items map[revisionEqualityKey]*list.Element
}

func newRevisionEqualityCache(size int) *revisionEqualityCache {
	return &revisionEqualityCache{size: size, order: list.New(), items: map[revisionEqualityKey]*list.Element{}}
}

// has reports whether k is cached, marking it used.
func (c *revisionEqualityCache) has(k revisionEqualityKey) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	e, ok := c.items[k]
	if ok {
		c.order.MoveToFront(e)
	}
	return ok
}

// add caches k, evicting the least recently used key when full.
func (c *revisionEqualityCache) add(k revisionEqualityKey) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if e, ok := c.items[k]; ok {
		c.order.MoveToFront(e)
		return
	}
	c.items[k] = c.order.PushFront(k)
	if c.order.Len() > c.size {
		last := c.order.Back()
		c.order.Remove(last)
		delete(c.items, last.Value.(revisionEqualityKey))
	}
}

func (c *revisionEqualityCache) len() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.order.Len()
}

// setMatchesLatestExistingRevision reports whether restoring latest to
// set gives the revision proposed (set's template now), remembering a
// match under (set uid, set generation, latest's resourceVersion) so that
// a steady set is compared once.
func (c *revisionEqualityCache) setMatchesLatestExistingRevision(set *api.StatefulSet, proposed, latest *api.ControllerRevision) bool {
	key := revisionEqualityKey{setUID: set.UID, setGeneration: set.Generation, revisionResourceVersion: latest.ResourceVersion}
	if c.has(key) {
		return true
	}
	restored, err := history.ApplyRevision(set, latest)
	if err != nil {
		return false
	}
	reconstructed, err := history.NewStatefulSetRevision(restored, -1, nil)
	if err != nil {
		return false
	}
	data, err := withoutNullCreationTimestamp(reconstructed.Data.Raw)
	if err != nil || !bytes.Equal(proposed.Data.Raw, data) {
		return false
	}
	c.add(key)
	return true
}

// withoutNullCreationTimestamp returns a StatefulSet patch without a null
// spec.template.metadata.creationTimestamp, encoded as StatefulSetPatch
// encodes (generic values, encoding/json): the member Kubernetes 1.34+
// no longer writes. A patch without it is returned as is.
func withoutNullCreationTimestamp(patch []byte) ([]byte, error) {
	if !bytes.Contains(patch, []byte(`"creationTimestamp":null`)) {
		return patch, nil
	}
	var p map[string]any
	if err := json.Unmarshal(patch, &p); err != nil {
		return nil, err
	}
	spec, _ := p["spec"].(map[string]any)
	template, _ := spec["template"].(map[string]any)
	meta, _ := template["metadata"].(map[string]any)
	if ts, ok := meta["creationTimestamp"]; !ok || ts != nil {
		return patch, nil
	}
	delete(meta, "creationTimestamp")
	return json.Marshal(p)
}
