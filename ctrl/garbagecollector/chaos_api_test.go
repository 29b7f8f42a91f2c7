package garbagecollector

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"

	"github.com/kcmlab/kcm/kube/api"
	"github.com/kcmlab/kcm/kube/rest"
)

func statusErr(code int32, reason string) error {
	return rest.StatusErrorFrom("X", "/x", rest.Status{Code: code, Reason: reason})
}

// The simulated apiserver of the chaos suite: the ObjectAPI the collector
// acts through, and the rule every accepted DELETE is checked against.

// Get implements ObjectAPI.
func (s *sim) Get(_ context.Context, res rest.Resource, ns, name string) (*api.RawObject, error) {
	o := s.find(res, ns, name)
	if o == nil {
		return nil, statusErr(404, "NotFound")
	}
	return o.raw(), nil
}

// Delete implements ObjectAPI and checks the collector's rule.
func (s *sim) Delete(_ context.Context, res rest.Resource, ns, name string, opts rest.DeleteOptions) error {
	o := s.find(res, ns, name)
	if o == nil {
		return statusErr(404, "NotFound")
	}
	if p := opts.Preconditions; p != nil && ((p.UID != nil && *p.UID != o.meta.UID) ||
		(p.ResourceVersion != nil && *p.ResourceVersion != o.meta.ResourceVersion)) {
		return statusErr(409, "Conflict")
	}
	if why := s.wrongDeletion(o); why != "" {
		s.t.Errorf("the collector deleted %s (%s) wrongly: %s; owners %+v", o.key(), o.meta.UID, why, o.meta.OwnerReferences)
	}
	s.deletes++
	s.deleteObject(o, opts.PropagationPolicy)
	return nil
}

// owner returns the live object an ownerReference of dependent o
// resolves to, as the collector must resolve it: the referenced kind and
// name, in o's namespace for a namespaced kind, with the referenced uid.
func (s *sim) owner(o *simObject, ref api.OwnerReference) *simObject {
	for _, r := range chaosKinds {
		if r.Kind == ref.Kind && r.GroupVersion() == ref.APIVersion {
			if w := s.find(r, o.meta.Namespace, ref.Name); w != nil && w.meta.UID == ref.UID {
				return w
			}
		}
	}
	return nil
}

func kindNamespaced(kind string) bool {
	for _, r := range chaosKinds {
		if r.Kind == kind {
			return r.Namespaced
		}
	}
	return false
}

// wrongDeletion says why deleting o breaks the rule, or "".
func (s *sim) wrongDeletion(o *simObject) string {
	if len(o.meta.OwnerReferences) == 0 {
		return "it has no owner"
	}
	for _, ref := range o.meta.OwnerReferences {
		if o.meta.Namespace == "" && kindNamespaced(ref.Kind) {
			return "a cluster-scoped object with a namespaced owner is never collected"
		}
		w := s.owner(o, ref)
		if w != nil && !(w.meta.DeletionTimestamp != nil && slices.Contains(w.meta.Finalizers, FinalizerDeleteDependents)) {
			return fmt.Sprintf("its owner %s (%s) exists", w.key(), w.meta.UID)
		}
	}
	return ""
}

// Patch implements ObjectAPI for the patches the collector sends: the
// strategic merge patches of ownerReferences (delete directives, or
// references merged by uid) checked against the uid they carry, and the
// JSON merge patches of finalizers checked against their resourceVersion.
func (s *sim) Patch(_ context.Context, res rest.Resource, ns, name string, pt rest.PatchType, patch []byte) error {
	o := s.find(res, ns, name)
	if o == nil {
		return statusErr(404, "NotFound")
	}
	var p struct {
		Metadata struct {
			UID             string            `json:"uid"`
			ResourceVersion string            `json:"resourceVersion"`
			OwnerReferences []json.RawMessage `json:"ownerReferences"`
			Finalizers      *[]string         `json:"finalizers"`
		} `json:"metadata"`
	}
	if err := json.Unmarshal(patch, &p); err != nil {
		s.t.Fatalf("the collector sent a patch that is not JSON: %s", patch)
	}
	m := p.Metadata
	if (m.UID != "" && m.UID != o.meta.UID) || (m.ResourceVersion != "" && m.ResourceVersion != o.meta.ResourceVersion) {
		return statusErr(409, "Conflict")
	}
	if pt == rest.MergePatch && hasKey(patch, "finalizers") {
		if m.Finalizers == nil {
			o.meta.Finalizers = nil
		} else {
			o.meta.Finalizers = *m.Finalizers
		}
		s.write(o, Updated)
		s.finish(o)
		return nil
	}
	if pt != rest.StrategicMergePatch {
		s.t.Fatalf("unexpected %s patch %s", pt, patch)
	}
	refs := slices.Clone(o.meta.OwnerReferences)
	for _, raw := range m.OwnerReferences {
		var d struct {
			Patch string `json:"$patch"`
			api.OwnerReference
		}
		if err := json.Unmarshal(raw, &d); err != nil {
			s.t.Fatal(err)
		}
		i := slices.IndexFunc(refs, func(r api.OwnerReference) bool { return r.UID == d.UID })
		switch {
		case d.Patch == "delete" && i >= 0:
			refs = slices.Delete(refs, i, i+1)
		case d.Patch == "" && i >= 0:
			refs[i] = d.OwnerReference
		}
	}
	o.meta.OwnerReferences = refs
	s.write(o, Updated)
	return nil
}

func hasKey(patch []byte, key string) bool {
	var m map[string]map[string]any
	_ = json.Unmarshal(patch, &m)
	_, ok := m["metadata"][key]
	return ok
}
