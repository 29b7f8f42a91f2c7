package garbagecollector

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/kcmlab/kcm/kube/api"

	"github.com/kcmlab/kcm/kube/rest"
)

// ObjectAPI is what the workers do on the apiserver, for any resource:
// read an object's metadata, delete it, patch it. RESTObjectAPI is the
// real one; unit tests record calls on a fake.
type ObjectAPI interface {
	// Get returns the object's metadata (a PartialObjectMetadata read).
	Get(ctx context.Context, res rest.Resource, ns, name string) (*api.RawObject, error)
	Delete(ctx context.Context, res rest.Resource, ns, name string, opts rest.DeleteOptions) error
	Patch(ctx context.Context, res rest.Resource, ns, name string, pt rest.PatchType, patch []byte) error
}

// RESTObjectAPI is ObjectAPI over a rest.Client (Kubernetes' metadata
// client).
type RESTObjectAPI struct{ Client *rest.Client }

func (a RESTObjectAPI) resources(res rest.Resource, ns string) *rest.Resources[*api.RawObject] {
	return rest.NewResources(a.Client, res, metaCodec{}).MetadataOnly().InNamespace(ns)
}

// Get implements ObjectAPI.
func (a RESTObjectAPI) Get(ctx context.Context, res rest.Resource, ns, name string) (*api.RawObject, error) {
	return a.resources(res, ns).Get(ctx, name)
}

// Delete implements ObjectAPI.
func (a RESTObjectAPI) Delete(ctx context.Context, res rest.Resource, ns, name string, opts rest.DeleteOptions) error {
	return a.resources(res, ns).Delete(ctx, name, opts)
}

// Patch implements ObjectAPI.
func (a RESTObjectAPI) Patch(ctx context.Context, res rest.Resource, ns, name string, pt rest.PatchType, patch []byte) error {
	_, err := a.resources(res, ns).Patch(ctx, name, pt, patch, rest.PatchOptions{})
	return err
}

// namespaceFor is the namespace to address an object of res in: the
// item's, unless res is cluster-scoped (Kubernetes'
// resourceDefaultNamespace).
func namespaceFor(res rest.Resource, ns string) string {
	if res.Namespaced {
		return ns
	}
	return ""
}

// getObject reads the live object a node stands for. A namespaced kind
// without a namespace is a virtual owner named by a cluster-scoped
// dependent, which it cannot own: it is never looked up (a namespaced
// object has no cluster-wide name), so it is never found absent, and the
// dependent is never collected for it (Kubernetes' getObject).
func (c *Collector) getObject(ctx context.Context, id objectRef) (*api.RawObject, error) {
	res, err := c.mapper.resourceFor(id.APIVersion, id.Kind)
	if err != nil {
		return nil, err
	}
	if res.Namespaced && id.Namespace == "" {
		return nil, ErrNamespacedOwnerOfClusterScoped
	}
	return c.api.Get(ctx, res, namespaceFor(res, id.Namespace), id.Name)
}

// deleteObject deletes the object a node stands for with the given
// propagation policy, on condition that it still has the node's uid and
// the resourceVersion it was last read at, so that an object that was
// replaced, or whose ownerReferences changed since, is not deleted. A
// conflict caused by another change (the ownerReferences are the ones
// read) is retried once at the new resourceVersion (Kubernetes'
// deleteObject).
func (c *Collector) deleteObject(ctx context.Context, id objectRef, rv string, owners []api.OwnerReference, policy string) error {
	res, err := c.mapper.resourceFor(id.APIVersion, id.Kind)
	if err != nil {
		return err
	}
	ns := namespaceFor(res, id.Namespace)
	uid := id.UID
	pre := &rest.Preconditions{UID: &uid}
	if rv != "" {
		pre.ResourceVersion = &rv
	}
	opts := rest.DeleteOptions{Preconditions: pre, PropagationPolicy: policy}
	err = c.api.Delete(ctx, res, ns, id.Name, opts)
	if !rest.IsConflict(err) || rv == "" {
		return err
	}
	live, liveErr := c.api.Get(ctx, res, ns, id.Name)
	if rest.IsNotFound(liveErr) {
		return liveErr // gone meanwhile: the caller handles it as any NotFound
	}
	if liveErr == nil && live.UID == id.UID && live.ResourceVersion != rv &&
		slices.EqualFunc(live.OwnerReferences, owners, ownerRefsEqual) {
		newRV := live.ResourceVersion
		opts.Preconditions = &rest.Preconditions{UID: &uid, ResourceVersion: &newRV}
		return c.api.Delete(ctx, res, ns, id.Name, opts)
	}
	return err
}

// patch sends a strategic merge patch, which built-in kinds accept, and
// falls back to a JSON merge patch built by jmp when the server refuses
// the type (custom resources answer 415 Unsupported Media Type).
func (c *Collector) patch(ctx context.Context, id objectRef, smp []byte, jmp func(context.Context) ([]byte, error)) error {
	res, err := c.mapper.resourceFor(id.APIVersion, id.Kind)
	if err != nil {
		return err
	}
	ns := namespaceFor(res, id.Namespace)
	err = c.api.Patch(ctx, res, ns, id.Name, rest.StrategicMergePatch, smp)
	if !errors.Is(err, rest.ErrUnsupportedMedia) {
		return err
	}
	p, err := jmp(ctx)
	if err != nil {
		return err
	}
	return c.api.Patch(ctx, res, ns, id.Name, rest.MergePatch, p)
}

// The patches the collector writes. It only ever changes metadata, and
// always with a patch, never an update: a controller that does not model
// a kind must not write its body back.
type (
	metaPatch struct {
		Metadata patchMeta `json:"metadata"`
	}
	patchMeta struct {
		UID             string `json:"uid,omitempty"`
		ResourceVersion string `json:"resourceVersion,omitempty"`
		// OwnerReferences holds api.OwnerReferences, or deleteDirectives.
		OwnerReferences []any `json:"ownerReferences"`
	}
	// deleteDirective is a strategic merge patch's "remove the list
	// element with this merge key".
	deleteDirective struct {
		Patch string `json:"$patch"`
		UID   string `json:"uid"`
	}
	finalizersPatch struct {
		Metadata struct {
			ResourceVersion string   `json:"resourceVersion"`
			Finalizers      []string `json:"finalizers"`
		} `json:"metadata"`
	}
)

// deleteOwnerRefsSMP is the strategic merge patch that removes the
// ownerReferences with these uids, on condition that the object is still
// the dependent (its uid in the patch): {"metadata":{"ownerReferences":
// [{"$patch":"delete","uid":"…"}],"uid":"…"}}.
func deleteOwnerRefsSMP(dependentUID string, ownerUIDs ...string) []byte {
	p := metaPatch{Metadata: patchMeta{UID: dependentUID}}
	for _, u := range ownerUIDs {
		p.Metadata.OwnerReferences = append(p.Metadata.OwnerReferences, deleteDirective{Patch: "delete", UID: u})
	}
	return mustJSON(p)
}

// ownerRefsMergePatch is the JSON merge patch that sets the object's
// ownerReferences to refs (null when none), on condition of the
// resourceVersion they were read at.
func ownerRefsMergePatch(rv string, refs []api.OwnerReference) []byte {
	p := metaPatch{Metadata: patchMeta{ResourceVersion: rv}}
	for _, r := range refs {
		p.Metadata.OwnerReferences = append(p.Metadata.OwnerReferences, r)
	}
	return mustJSON(p)
}

// deleteOwnerRefsJMP reads the object and builds the JSON merge patch
// that drops the ownerReferences with these uids.
func (c *Collector) deleteOwnerRefsJMP(id objectRef, ownerUIDs ...string) func(context.Context) ([]byte, error) {
	return func(ctx context.Context) ([]byte, error) {
		live, err := c.getObject(ctx, id)
		if err != nil {
			return nil, err
		}
		kept := slices.DeleteFunc(slices.Clone(live.OwnerReferences), func(r api.OwnerReference) bool {
			return slices.Contains(ownerUIDs, r.UID)
		})
		return ownerRefsMergePatch(live.ResourceVersion, kept), nil
	}
}

// unblockOwnerRefsSMP is the strategic merge patch that sets
// blockOwnerDeletion to false on the item's blocking references (merged
// by uid), or nil when none blocks: the patch would then carry
// "ownerReferences": null, which removes every reference. (Kubernetes
// sends a patch with the uid alone then, which changes nothing.)
func unblockOwnerRefsSMP(it Item) []byte {
	p := metaPatch{Metadata: patchMeta{UID: it.Identity.UID}}
	for _, o := range it.Owners {
		if blocks(o) {
			o.BlockOwnerDeletion = new(bool)
			p.Metadata.OwnerReferences = append(p.Metadata.OwnerReferences, o)
		}
	}
	if len(p.Metadata.OwnerReferences) == 0 {
		return nil
	}
	return mustJSON(p)
}

// unblockOwnerRefsJMP reads the object's resourceVersion and builds the
// JSON merge patch that writes the item's references back with
// blockOwnerDeletion false.
func (c *Collector) unblockOwnerRefsJMP(it Item) func(context.Context) ([]byte, error) {
	return func(ctx context.Context) ([]byte, error) {
		live, err := c.getObject(ctx, it.Identity)
		if err != nil {
			return nil, err
		}
		refs := slices.Clone(it.Owners)
		for i := range refs {
			refs[i].BlockOwnerDeletion = new(bool)
		}
		return ownerRefsMergePatch(live.ResourceVersion, refs), nil
	}
}

func mustJSON(v any) []byte {
	b, err := json.Marshal(v)
	if err != nil {
		panic(err) // only plain structs of strings and bools are encoded here
	}
	return b
}

// conflictBackoff is client-go's retry.DefaultBackoff, which Kubernetes'
// removeFinalizer retries conflicts with: 4 tries, 10 ms growing ×5, 10%
// jitter.
var conflictBackoff = struct {
	steps  int
	first  time.Duration
	factor float64
	jitter float64
}{4, 10 * time.Millisecond, 5, 0.1}

// ErrTooManyConflicts: removing a finalizer met a conflict on every try;
// the worker retries the item later.
var ErrTooManyConflicts = errors.New("too many conflicts")

// removeFinalizer removes finalizer f from the object a node stands for,
// with a JSON merge patch of the finalizer list on condition of the
// resourceVersion it was read at, retrying conflicts (Kubernetes'
// removeFinalizer). An object already gone, or without f, is done.
func (c *Collector) removeFinalizer(ctx context.Context, id objectRef, f string) error {
	delay := conflictBackoff.first
	for try := 1; ; try++ {
		err := c.removeFinalizerOnce(ctx, id, f)
		if !rest.IsConflict(err) {
			return err
		}
		if try == conflictBackoff.steps {
			return fmt.Errorf("removing finalizer %s from %s: %w (%d tries): %w", f, id, ErrTooManyConflicts, try, err)
		}
		d := delay + time.Duration(c.jitter()*conflictBackoff.jitter*float64(delay))
		t := c.clock.NewTimer(d)
		select {
		case <-ctx.Done():
			t.Stop()
			return ctx.Err()
		case <-t.C():
		}
		delay = time.Duration(float64(delay) * conflictBackoff.factor)
	}
}

func (c *Collector) removeFinalizerOnce(ctx context.Context, id objectRef, f string) error {
	live, err := c.getObject(ctx, id)
	if rest.IsNotFound(err) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("cannot finalize %s, because cannot get it: %w", id, err)
	}
	if !slices.Contains(live.Finalizers, f) {
		c.log.Debug().Stringer("item", id).Str("finalizer", f).Msg("finalizer already removed")
		return nil
	}
	var p finalizersPatch
	p.Metadata.ResourceVersion = live.ResourceVersion
	p.Metadata.Finalizers = slices.DeleteFunc(slices.Clone(live.Finalizers), func(s string) bool { return s == f })
	if len(p.Metadata.Finalizers) == 0 {
		p.Metadata.Finalizers = nil // null: the list goes
	}
	res, err := c.mapper.resourceFor(id.APIVersion, id.Kind)
	if err != nil {
		return err
	}
	return c.api.Patch(ctx, res, namespaceFor(res, id.Namespace), id.Name, rest.MergePatch, mustJSON(p))
}
