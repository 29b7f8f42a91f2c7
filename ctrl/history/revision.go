package history

import (
	"bytes"
	"cmp"
	"maps"
	"slices"

	"github.com/kcmlab/kcm/kube/api"
)

// Kind names the kind of a revision's parent, as its controller reference
// carries it.
type Kind struct {
	APIVersion string
	Kind       string
}

// StatefulSetKind is the parent kind of a StatefulSet's revisions.
var StatefulSetKind = Kind{APIVersion: "apps/v1", Kind: "StatefulSet"}

// NewControllerRevision returns the revision of parent holding data
// (history.NewControllerRevision): labelled with templateLabels and
// HashLabel, controlled by parent (controller and blockOwnerDeletion set),
// numbered revision, and named RevisionName(parent's name, hash), the hash
// taken with collisionCount. Unlike Kubernetes' it also carries parent's
// namespace, where it is to be created. data is not copied.
func NewControllerRevision(parent api.Object, kind Kind, templateLabels map[string]string, data []byte,
	revision int64, collisionCount *int32) *api.ControllerRevision {
	m := parent.GetObjectMeta()
	labels := make(map[string]string, len(templateLabels)+1)
	maps.Copy(labels, templateLabels)
	hash := Hash(data, collisionCount)
	labels[HashLabel] = hash
	yes := true
	return &api.ControllerRevision{
		ObjectMeta: api.ObjectMeta{
			Name:      RevisionName(m.Name, hash),
			Namespace: m.Namespace,
			Labels:    labels,
			OwnerReferences: []api.OwnerReference{{APIVersion: kind.APIVersion, Kind: kind.Kind, Name: m.Name, UID: m.UID,
				Controller: &yes, BlockOwnerDeletion: &yes}},
		},
		Data:     api.RawExtension{Raw: data},
		Revision: revision,
	}
}

// EqualRevision reports whether two revisions hold the same data, byte for
// byte (history.EqualRevision); two nils are equal, a nil and a revision
// are not. Names, labels and revision numbers are not compared.
func EqualRevision(a, b *api.ControllerRevision) bool {
	if a == nil || b == nil {
		return a == b
	}
	return bytes.Equal(a.Data.Raw, b.Data.Raw)
}

// FindEqualRevisions returns the revisions equal to needle (EqualRevision),
// in their order (history.FindEqualRevisions).
func FindEqualRevisions(revisions []*api.ControllerRevision, needle *api.ControllerRevision) []*api.ControllerRevision {
	var eq []*api.ControllerRevision
	for _, r := range revisions {
		if EqualRevision(r, needle) {
			eq = append(eq, r)
		}
	}
	return eq
}

// SortControllerRevisions sorts revisions by revision number, in place
// and stably (history.SortControllerRevisions); equal numbers are ordered
// by creation time, older first, then by name.
func SortControllerRevisions(revisions []*api.ControllerRevision) {
	slices.SortStableFunc(revisions, func(a, b *api.ControllerRevision) int {
		if c := cmp.Compare(a.Revision, b.Revision); c != 0 {
			return c
		}
		if c := a.CreationTimestamp.Compare(b.CreationTimestamp.Time); c != 0 {
			return c
		}
		return cmp.Compare(a.Name, b.Name)
	})
}

// NextRevision is the number of the next revision: 1 for none, else one
// more than the last of revisions, which must be sorted
// (SortControllerRevisions; the statefulset controller's nextRevision).
func NextRevision(revisions []*api.ControllerRevision) int64 {
	if len(revisions) == 0 {
		return 1
	}
	return revisions[len(revisions)-1].Revision + 1
}
