package statefulset

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math/rand/v2"
	"time"

	"github.com/rs/zerolog"

	"github.com/kcmlab/kcm/ctrl/history"
	"github.com/kcmlab/kcm/informer"
	"github.com/kcmlab/kcm/kube/api"
	"github.com/kcmlab/kcm/kube/api/decode"
	"github.com/kcmlab/kcm/kube/labels"
	"github.com/kcmlab/kcm/kube/rest"
)

// ErrRevisionOwned: adopting a ControllerRevision that already has a
// controller (history's AdoptControllerRevision refuses it too).
var ErrRevisionOwned = errors.New("statefulset: revision already has a controller")

// revisionControl makes the API calls on a StatefulSet's
// ControllerRevisions, as Kubernetes' history client (realHistory) does:
// list from the cache, create with the collision loop, renumber on a
// rollback, delete, adopt and release with strategic-merge patches of
// ownerReferences. It keeps no state; it is safe for concurrent use.
type revisionControl struct {
	client  *rest.Client
	lister  informer.ControllerRevisionLister
	log     zerolog.Logger
	waitFor func(ctx context.Context, d time.Duration) error // conflict backoff; tests replace it
}

func newRevisionControl(client *rest.Client, revisions informer.ControllerRevisionLister, log zerolog.Logger) *revisionControl {
	return &revisionControl{client: client, lister: revisions, log: log, waitFor: sleepFor}
}

func (rc *revisionControl) in(ns string) *rest.Resources[*api.ControllerRevision] {
	return rest.NewResources(rc.client, rest.ControllerRevisions, decode.Typed[api.ControllerRevision]()).InNamespace(ns)
}

// list returns the cached revisions in set's namespace that match its
// selector and are controlled by set or by nobody (orphans, which
// AdoptOrphanRevisions adopts): history.ListControllerRevisions. The
// slice is new; the revisions are the cache's, read-only.
func (rc *revisionControl) list(set *api.StatefulSet) ([]*api.ControllerRevision, error) {
	sel, err := labels.LabelSelectorAsSelector(set.Spec.Selector)
	if err != nil {
		return nil, fmt.Errorf("statefulset %s: selector: %w", set.Key(), err)
	}
	var owned []*api.ControllerRevision
	for _, r := range rc.lister.ControllerRevisions(set.Namespace).List(sel) {
		if ref := r.ControllerRef(); ref == nil || ref.UID == set.UID {
			owned = append(owned, r)
		}
	}
	return owned, nil
}

// create creates rev for parent (history's CreateControllerRevision). The
// name is RevisionName(parent, Hash(data, *collisionCount)); when it is
// taken, the revision holding it is read from the apiserver: the same
// data is the revision wanted and is returned; other data bump
// *collisionCount and the next name is tried. Only the name changes
// between tries: the labels, hash label included, stay rev's, so a
// revision created after a collision keeps its first try's hash label
// (pinned against kube-controller-manager in ctrl/history's pin test).
func (rc *revisionControl) create(ctx context.Context, parent *api.StatefulSet, rev *api.ControllerRevision,
	collisionCount *int32) (*api.ControllerRevision, error) {
	if collisionCount == nil {
		return nil, errors.New("statefulset: creating a revision needs a collision count")
	}
	clone := *rev
	clone.Namespace = parent.Namespace
	client := rc.in(parent.Namespace)
	for {
		clone.Name = history.RevisionName(parent.Name, history.HashControllerRevision(rev, collisionCount))
		created, err := client.Create(ctx, &clone)
		if err == nil {
			return created, nil
		}
		if !rest.IsAlreadyExists(err) {
			return nil, fmt.Errorf("creating revision %s/%s: %w", parent.Namespace, clone.Name, err)
		}
		exists, err := client.Get(ctx, clone.Name)
		if err != nil {
			return nil, fmt.Errorf("reading revision %s/%s, whose name was taken: %w", parent.Namespace, clone.Name, err)
		}
		if bytes.Equal(exists.Data.Raw, clone.Data.Raw) {
			return exists, nil
		}
		*collisionCount++
		rc.log.Debug().Str("statefulSet", parent.Key()).Str("revision", clone.Name).Int32("collisionCount", *collisionCount).
			Msg("revision name taken by other data")
	}
}

// renumber gives rev the revision number n (history's
// UpdateControllerRevision, a rollback to an earlier template): an update
// retried on conflicts with client-go's DefaultBackoff, each retry on the
// cache's copy; a copy that already has n is done. It returns the
// revision with n, as upstream does: the copy it wrote, not the answer.
func (rc *revisionControl) renumber(ctx context.Context, rev *api.ControllerRevision, n int64) (*api.ControllerRevision, error) {
	clone, err := api.DeepCopy(rev)
	if err != nil {
		return nil, err
	}
	err = retryOnConflict(ctx, conflictBackoff, rc.waitFor, func() error {
		if clone.Revision == n {
			return nil
		}
		clone.Revision = n
		_, err := rc.in(clone.Namespace).Update(ctx, clone)
		if err == nil {
			return nil
		}
		if cached, gerr := rc.lister.ControllerRevisions(clone.Namespace).Get(clone.Name); gerr == nil {
			if c, cerr := api.DeepCopy(cached); cerr == nil {
				clone = c
			}
		}
		return err
	})
	if err != nil {
		return clone, fmt.Errorf("renumbering revision %s/%s to %d: %w", rev.Namespace, rev.Name, n, err)
	}
	return clone, nil
}

// delete deletes rev (history's DeleteControllerRevision: no
// preconditions; NotFound is an error like any other).
func (rc *revisionControl) delete(ctx context.Context, rev *api.ControllerRevision) error {
	if err := rc.in(rev.Namespace).Delete(ctx, rev.Name, rest.DeleteOptions{}); err != nil {
		return fmt.Errorf("deleting revision %s/%s: %w", rev.Namespace, rev.Name, err)
	}
	return nil
}

// ownerPatch is the strategic-merge patch body of adopt and release:
// ownerReferences merge by uid, and metadata.uid is a precondition the
// apiserver checks (the revision must still be the one read). Field order
// is upstream's: adopt writes ownerReferences then uid, release uid then
// ownerReferences.
type adoptPatch struct {
	Metadata struct {
		OwnerReferences []api.OwnerReference `json:"ownerReferences"`
		UID             string               `json:"uid"`
	} `json:"metadata"`
}

type releasePatch struct {
	Metadata struct {
		UID             string              `json:"uid"`
		OwnerReferences []map[string]string `json:"ownerReferences"`
	} `json:"metadata"`
}

// adopt makes parent the controller of the orphan rev (history's
// AdoptControllerRevision): a strategic-merge patch adding a controller
// reference with blockOwnerDeletion, on condition of rev's uid. A
// revision with a controller is ErrRevisionOwned.
func (rc *revisionControl) adopt(ctx context.Context, parent *api.StatefulSet, rev *api.ControllerRevision) (*api.ControllerRevision, error) {
	if ref := rev.ControllerRef(); ref != nil {
		return nil, fmt.Errorf("%w: %s/%s is controlled by %s %s (uid %s)", ErrRevisionOwned, rev.Namespace, rev.Name, ref.Kind, ref.Name, ref.UID)
	}
	yes := true
	var p adoptPatch
	p.Metadata.OwnerReferences = []api.OwnerReference{{APIVersion: history.StatefulSetKind.APIVersion, Kind: history.StatefulSetKind.Kind,
		Name: parent.Name, UID: parent.UID, Controller: &yes, BlockOwnerDeletion: &yes}}
	p.Metadata.UID = rev.UID
	body, err := json.Marshal(&p)
	if err != nil {
		return nil, err
	}
	adopted, err := rc.in(parent.Namespace).Patch(ctx, rev.Name, rest.StrategicMergePatch, body, rest.PatchOptions{})
	if err != nil {
		return nil, fmt.Errorf("adopting revision %s/%s: %w", parent.Namespace, rev.Name, err)
	}
	return adopted, nil
}

// release removes parent's reference from rev (history's
// ReleaseControllerRevision): a strategic-merge patch deleting the
// reference by uid, on condition of rev's uid. A revision gone (NotFound)
// or no longer parent's (Invalid: the uid precondition) is not an error:
// nil, nil.
func (rc *revisionControl) release(ctx context.Context, parent *api.StatefulSet, rev *api.ControllerRevision) (*api.ControllerRevision, error) {
	var p releasePatch
	p.Metadata.UID = rev.UID
	p.Metadata.OwnerReferences = []map[string]string{{"$patch": "delete", "uid": parent.UID}}
	body, err := json.Marshal(&p)
	if err != nil {
		return nil, err
	}
	released, err := rc.in(rev.Namespace).Patch(ctx, rev.Name, rest.StrategicMergePatch, body, rest.PatchOptions{})
	if rest.IsNotFound(err) || rest.IsInvalid(err) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("releasing revision %s/%s: %w", rev.Namespace, rev.Name, err)
	}
	return released, nil
}

// backoff is client-go's wait.Backoff as retry.RetryOnConflict uses it:
// steps tries, the first wait first, each next wait factor times longer,
// plus up to jitter of it at random.
type backoff struct {
	steps          int
	first          time.Duration
	factor, jitter float64
}

// conflictBackoff is client-go's retry.DefaultBackoff (history's
// UpdateControllerRevision); statusBackoff is retry.DefaultRetry (the
// status updater's).
var (
	conflictBackoff = backoff{steps: 4, first: 10 * time.Millisecond, factor: 5, jitter: 0.1}
	statusBackoff   = backoff{steps: 5, first: 10 * time.Millisecond, factor: 1, jitter: 0.1}
)

// retryOnConflict runs fn until it succeeds, fails with anything but a
// Conflict, or has run b.steps times, waiting between tries
// (retry.RetryOnConflict). It returns fn's last error.
func retryOnConflict(ctx context.Context, b backoff, waitFor func(context.Context, time.Duration) error, fn func() error) error {
	d := b.first
	for try := 1; ; try++ {
		err := fn()
		if err == nil || !rest.IsConflict(err) || try >= b.steps {
			return err
		}
		wait := d + time.Duration(rand.Float64()*b.jitter*float64(d))
		if werr := waitFor(ctx, wait); werr != nil {
			return errors.Join(err, werr)
		}
		d = time.Duration(float64(d) * b.factor)
	}
}

// sleepFor waits d or until ctx ends.
func sleepFor(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
		return nil
	}
}

// getStatefulSetRevisions returns set's current and update revisions and
// the collision count to record, as the statefulset controller does
// (revisions sorted, SortControllerRevisions):
//
//   - the update revision is the one of set's template now
//     (history.NewStatefulSetRevision, numbered after the last, named with
//     the collision count read from status, nil read as 0);
//   - when the latest revision holds the same data, it is the update
//     revision; when an older one does, that one is renumbered to the next
//     number (a rollback); when none does but restoring the latest
//     revision gives set's template (setMatchesLatestExistingRevision),
//     the latest is the update revision; otherwise the revision is created
//     (the collision loop may bump the count);
//   - the current revision is the one named by status.currentRevision,
//     else the update revision (a new history).
func (c *setControl) getStatefulSetRevisions(ctx context.Context, set *api.StatefulSet,
	revisions []*api.ControllerRevision) (current, update *api.ControllerRevision, collisionCount int32, err error) {
	history.SortControllerRevisions(revisions)
	if set.Status.CollisionCount != nil {
		collisionCount = *set.Status.CollisionCount
	}
	proposed, err := history.NewStatefulSetRevision(set, history.NextRevision(revisions), &collisionCount)
	if err != nil {
		return nil, nil, collisionCount, err
	}
	n := len(revisions)
	equal := history.FindEqualRevisions(revisions, proposed)
	switch {
	case len(equal) > 0 && history.EqualRevision(revisions[n-1], equal[len(equal)-1]):
		update = revisions[n-1]
	case len(equal) > 0:
		if update, err = c.revisions.renumber(ctx, equal[len(equal)-1], proposed.Revision); err != nil {
			return nil, nil, collisionCount, err
		}
	case n > 0 && c.equality.setMatchesLatestExistingRevision(set, proposed, revisions[n-1]):
		update = revisions[n-1]
	default:
		if update, err = c.revisions.create(ctx, set, proposed, &collisionCount); err != nil {
			return nil, nil, collisionCount, err
		}
	}
	for _, r := range revisions {
		if r.Name == set.Status.CurrentRevision {
			current = r
			break
		}
	}
	if current == nil {
		current = update
	}
	return current, update, collisionCount, nil
}

// truncateHistory deletes set's oldest revisions that no one uses until
// at most revisionHistoryLimit of them remain (the statefulset
// controller's truncateHistory). Live, never deleted: the current and
// update revisions and every revision a pod's controller-revision-hash
// label names. revisions are sorted, oldest first; a negative limit keeps
// everything. The first failed deletion ends it.
func (c *setControl) truncateHistory(ctx context.Context, set *api.StatefulSet, pods []*api.Pod,
	revisions []*api.ControllerRevision, current, update *api.ControllerRevision) error {
	live := make(map[string]bool, len(pods)+2)
	if current != nil {
		live[current.Name] = true
	}
	if update != nil {
		live[update.Name] = true
	}
	for _, p := range pods {
		live[getPodRevision(p)] = true
	}
	var old []*api.ControllerRevision
	for _, r := range revisions {
		if !live[r.Name] {
			old = append(old, r)
		}
	}
	limit := revisionHistoryLimit(set)
	if limit < 0 || len(old) <= limit {
		return nil
	}
	for _, r := range old[:len(old)-limit] {
		if err := c.revisions.delete(ctx, r); err != nil {
			return err
		}
	}
	return nil
}

// revisionHistoryLimit is spec.revisionHistoryLimit, 10 (the API's
// default) when unset.
func revisionHistoryLimit(set *api.StatefulSet) int {
	if set.Spec.RevisionHistoryLimit == nil {
		return 10
	}
	return int(*set.Spec.RevisionHistoryLimit)
}
