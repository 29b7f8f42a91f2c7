package deployment

import (
	"math"
	"strconv"
	"strings"

	"github.com/kcmlab/kcm/kube/api"
)

// maxRevisionHistoryChars bounds the revision-history annotation
// (kube-controller-manager's maxRevHistoryLengthInChars): the oldest
// entries are dropped to make room.
const maxRevisionHistoryChars = 2000

// skipAnnotation lists the Deployment annotations that are never copied to
// a ReplicaSet: kubectl's last-applied record, the ones this controller
// manages per ReplicaSet, and the rollback request (annotationsToSkip).
func skipAnnotation(key string) bool {
	switch key {
	case LastAppliedAnnotation, RevisionAnnotation, RevisionHistoryAnnotation,
		DesiredReplicasAnnotation, MaxReplicasAnnotation, RollbackToAnnotation:
		return true
	}
	return false
}

// copyDeploymentAnnotations copies d's annotations onto rs, except the
// skipped ones; it reports whether rs changed. Annotations rs has and d
// does not are left alone.
func copyDeploymentAnnotations(d *api.Deployment, rs *api.ReplicaSet) bool {
	changed := false
	if rs.Annotations == nil {
		rs.Annotations = map[string]string{}
	}
	for k, v := range d.Annotations {
		if skipAnnotation(k) {
			continue
		}
		if cur, ok := rs.Annotations[k]; ok && cur == v {
			continue
		}
		rs.Annotations[k] = v
		changed = true
	}
	return changed
}

// setNewReplicaSetAnnotations brings the new ReplicaSet's annotations up
// to date (SetNewReplicaSetAnnotations): the Deployment's copied
// annotations; the revision raised to newRevision when it is lower, the
// previous revision then appended to revision-history; and, for a
// ReplicaSet being created (!exists), desired- and max-replicas. It
// reports whether anything changed. An unreadable revision on rs leaves
// it alone (and reports only what changed before).
func setNewReplicaSetAnnotations(d *api.Deployment, rs *api.ReplicaSet, newRevision int64, exists bool) bool {
	changed := copyDeploymentAnnotations(d, rs)
	old, had := rs.Annotations[RevisionAnnotation]
	oldRev, err := strconv.ParseInt(old, 10, 64)
	if err != nil {
		if old != "" {
			return false
		}
		oldRev = 0
	}
	if oldRev < newRevision {
		rs.Annotations[RevisionAnnotation] = strconv.FormatInt(newRevision, 10)
		changed = true
		if had {
			appendRevisionHistory(rs, old)
		}
	}
	if !exists && setReplicasAnnotations(rs, desired(d), desired(d)+MaxSurge(d)) {
		changed = true
	}
	return changed
}

// appendRevisionHistory adds old to the revision-history list, dropping
// the oldest entries while the list would exceed maxRevisionHistoryChars.
func appendRevisionHistory(rs *api.ReplicaSet, old string) {
	history := rs.Annotations[RevisionHistoryAnnotation]
	if history == "" {
		rs.Annotations[RevisionHistoryAnnotation] = old
		return
	}
	entries := strings.Split(history, ",")
	total := len(history) + len(old) + 1
	start := 0
	for total > maxRevisionHistoryChars && start < len(entries) {
		total -= len(entries[start]) + 1
		start++
	}
	if total <= maxRevisionHistoryChars {
		rs.Annotations[RevisionHistoryAnnotation] = strings.Join(append(entries[start:], old), ",")
	}
}

// setReplicasAnnotations records desired- and max-replicas on rs and
// reports whether either changed.
func setReplicasAnnotations(rs *api.ReplicaSet, want, maxReplicas int32) bool {
	if rs.Annotations == nil {
		rs.Annotations = map[string]string{}
	}
	changed := false
	for k, v := range map[string]string{
		DesiredReplicasAnnotation: strconv.Itoa(int(want)),
		MaxReplicasAnnotation:     strconv.Itoa(int(maxReplicas)),
	} {
		if rs.Annotations[k] != v {
			rs.Annotations[k] = v
			changed = true
		}
	}
	return changed
}

// replicasAnnotationsNeedUpdate reports whether setReplicasAnnotations
// would change rs.
func replicasAnnotationsNeedUpdate(rs *api.ReplicaSet, want, maxReplicas int32) bool {
	return rs.Annotations[DesiredReplicasAnnotation] != strconv.Itoa(int(want)) ||
		rs.Annotations[MaxReplicasAnnotation] != strconv.Itoa(int(maxReplicas))
}

// setDeploymentRevision records revision on d and reports whether it
// changed.
func setDeploymentRevision(d *api.Deployment, revision string) bool {
	if d.Annotations[RevisionAnnotation] == revision {
		return false
	}
	if d.Annotations == nil {
		d.Annotations = map[string]string{}
	}
	d.Annotations[RevisionAnnotation] = revision
	return true
}

// nonNegativeAnnotation reads an annotation holding a count in 0..MaxInt32.
func nonNegativeAnnotation(rs *api.ReplicaSet, key string) (int32, bool) {
	v, ok := rs.Annotations[key]
	if !ok {
		return 0, false
	}
	n, err := strconv.ParseUint(v, 10, 32)
	if err != nil || n > math.MaxInt32 {
		return 0, false
	}
	return int32(n), true
}
