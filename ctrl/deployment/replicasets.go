package deployment

import (
	"cmp"
	"fmt"
	"slices"
	"strconv"

	"github.com/kcmlab/kcm/kube/api"
)

// The helpers of this file read a Deployment's ReplicaSets: which one is
// new, which are old, their counts, their order and their revisions
// (pkg/controller and pkg/controller/deployment/util in Kubernetes). A nil
// ReplicaSet — "no new ReplicaSet yet" — is skipped by every count.

// byCreation orders oldest first, then by name
// (ReplicaSetsByCreationTimestamp).
func byCreation(a, b *api.ReplicaSet) int {
	if c := a.CreationTimestamp.Compare(b.CreationTimestamp.Time); c != 0 {
		return c
	}
	return cmp.Compare(a.Name, b.Name)
}

// bySizeOlder orders largest first, the older first among equals: the
// order in which proportional scaling takes replicas away
// (ReplicaSetsBySizeOlder).
func bySizeOlder(a, b *api.ReplicaSet) int {
	if c := cmp.Compare(specReplicas(b), specReplicas(a)); c != 0 {
		return c
	}
	return byCreation(a, b)
}

// bySizeNewer orders largest first, the newer first among equals: the
// order in which proportional scaling hands replicas out
// (ReplicaSetsBySizeNewer).
func bySizeNewer(a, b *api.ReplicaSet) int {
	if c := cmp.Compare(specReplicas(b), specReplicas(a)); c != 0 {
		return c
	}
	return byCreation(b, a)
}

// byRevision orders by the revision annotation, oldest first; ReplicaSets
// whose revisions are equal or unreadable fall back to creation order
// (ReplicaSetsByRevision).
func byRevision(a, b *api.ReplicaSet) int {
	ra, errA := revision(a)
	rb, errB := revision(b)
	if errA != nil || errB != nil || ra == rb {
		return byCreation(a, b)
	}
	return cmp.Compare(ra, rb)
}

// activeReplicaSets keeps the non-nil ReplicaSets with spec.replicas > 0
// (FilterActiveReplicaSets).
func activeReplicaSets(rss []*api.ReplicaSet) []*api.ReplicaSet {
	var out []*api.ReplicaSet
	for _, rs := range rss {
		if rs != nil && specReplicas(rs) > 0 {
			out = append(out, rs)
		}
	}
	return out
}

// totalSpecReplicas sums spec.replicas (GetReplicaCountForReplicaSets).
func totalSpecReplicas(rss []*api.ReplicaSet) int32 {
	return sum(rss, specReplicas)
}

// The status sums (GetActual/Ready/AvailableReplicaCountForReplicaSets).
func totalStatusReplicas(rss []*api.ReplicaSet) int32 {
	return sum(rss, func(rs *api.ReplicaSet) int32 { return rs.Status.Replicas })
}

func totalReady(rss []*api.ReplicaSet) int32 {
	return sum(rss, func(rs *api.ReplicaSet) int32 { return rs.Status.ReadyReplicas })
}

func totalAvailable(rss []*api.ReplicaSet) int32 {
	return sum(rss, func(rs *api.ReplicaSet) int32 { return rs.Status.AvailableReplicas })
}

func sum(rss []*api.ReplicaSet, f func(*api.ReplicaSet) int32) int32 {
	var n int32
	for _, rs := range rss {
		if rs != nil {
			n += f(rs)
		}
	}
	return n
}

// owned pairs a ReplicaSet with its pod template as read (JSON or
// protobuf), read once per sync.
type owned struct {
	rs       *api.ReplicaSet
	template podTemplate
}

// findNewReplicaSet returns the oldest ReplicaSet whose template equals
// the Deployment's with the hash label ignored, or nil
// (FindNewReplicaSet). Oldest, because two equal ReplicaSets can only come
// from a race, and the older one is the one with the history.
//
// A template that cannot be compared (ErrMixedEncodings, a malformed
// message) is an error: the sync fails rather than take a current
// ReplicaSet for an old one.
func findNewReplicaSet(dTemplate podTemplate, rss []owned) (*api.ReplicaSet, error) {
	sorted := slices.Clone(rss)
	slices.SortStableFunc(sorted, func(a, b owned) int { return byCreation(a.rs, b.rs) })
	for _, o := range sorted {
		eq, err := o.template.equalIgnoreHash(dTemplate)
		if err != nil {
			return nil, fmt.Errorf("replica set %s: %w", o.rs.Key(), err)
		}
		if eq {
			return o.rs, nil
		}
	}
	return nil, nil
}

// oldReplicaSets returns every ReplicaSet but newRS (FindOldReplicaSets'
// second result).
func oldReplicaSets(newRS *api.ReplicaSet, rss []owned) []*api.ReplicaSet {
	var old []*api.ReplicaSet
	for _, o := range rss {
		if newRS != nil && o.rs.UID == newRS.UID {
			continue
		}
		old = append(old, o.rs)
	}
	return old
}

// findActiveOrLatest returns the only ReplicaSet with replicas, or, when
// none has any, the new one or else the newest old one; nil when several
// have replicas (FindActiveOrLatest). It sorts oldRSs newest first.
func findActiveOrLatest(newRS *api.ReplicaSet, oldRSs []*api.ReplicaSet) *api.ReplicaSet {
	if newRS == nil && len(oldRSs) == 0 {
		return nil
	}
	slices.SortStableFunc(oldRSs, func(a, b *api.ReplicaSet) int { return byCreation(b, a) })
	all := activeReplicaSets(append(slices.Clone(oldRSs), newRS))
	switch len(all) {
	case 0:
		if newRS != nil {
			return newRS
		}
		return oldRSs[0]
	case 1:
		return all[0]
	}
	return nil
}

// revision reads the revision annotation; a missing one is 0.
func revision(rs *api.ReplicaSet) (int64, error) {
	v, ok := rs.Annotations[RevisionAnnotation]
	if !ok {
		return 0, nil
	}
	return strconv.ParseInt(v, 10, 64)
}

// maxRevision is the highest readable revision among rss (MaxRevision).
func maxRevision(rss []*api.ReplicaSet) int64 {
	var m int64
	for _, rs := range rss {
		if v, err := revision(rs); err == nil && v > m {
			m = v
		}
	}
	return m
}

// lastRevision is the second-highest revision: the one before the current
// (LastRevision).
func lastRevision(rss []*api.ReplicaSet) int64 {
	var top, second int64
	for _, rs := range rss {
		v, err := revision(rs)
		switch {
		case err != nil:
		case v >= top:
			second, top = top, v
		case v > second:
			second = v
		}
	}
	return second
}
