package namespace

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/kcmlab/kcm/kube/api"
	"github.com/kcmlab/kcm/kube/api/decode"
	"github.com/kcmlab/kcm/kube/rest"
)

// FinalizerEstimate is the wait, in seconds, assumed for objects that are
// left only because they carry finalizers (Kubernetes'
// finalizerEstimateSeconds): time for whoever owns the finalizer (the
// garbage collector, an operator) to finish.
const FinalizerEstimate = 15

// ErrContentRemains is wrapped by the error for objects still there after
// their deletion, with neither a grace period nor a finalizer to explain
// it.
var ErrContentRemains = errors.New("unexpected items still remain in namespace")

// resourceLeft is what deleting one resource type in a namespace left:
// the estimate of how long the rest will take (0 = no estimate, not "all
// gone"), how many objects remain, and how many of them wait on each
// finalizer.
type resourceLeft struct {
	estimate    int64
	count       int
	byFinalizer map[string]int
}

// background is the propagation policy of every delete the controller
// sends: it deletes all content itself, so it never wants the garbage
// collector's orphan finalizer put on anything.
var background = rest.DeleteOptions{PropagationPolicy: rest.PropagationBackground}

// deleteResource removes every object of one resource type from namespace
// ns (Kubernetes' deleteAllContentForGroupVersionResource):
//
//  1. estimate the graceful termination still owed (pods only);
//  2. delete the collection, or, where that is not supported, list and
//     delete each object;
//  3. list again: nothing left is done; objects left with an estimate or
//     finalizers are expected; objects left with neither are an error.
func (c *Controller) deleteResource(ctx context.Context, t target, ns string, deletedAt time.Time) (resourceLeft, error) {
	estimate, err := c.estimateGracefulTermination(ctx, t.res, ns, deletedAt)
	if err != nil {
		return resourceLeft{}, err
	}
	done, err := c.deleteCollection(ctx, t, ns)
	if err != nil {
		return resourceLeft{estimate: estimate}, err
	}
	if !done {
		if err := c.deleteEachItem(ctx, t, ns); err != nil {
			return resourceLeft{estimate: estimate}, err
		}
	}
	items, listed, err := c.listCollection(ctx, t, ns)
	if err != nil || !listed {
		return resourceLeft{estimate: estimate}, err
	}
	if len(items) == 0 {
		return resourceLeft{}, nil
	}
	byFinalizer := map[string]int{}
	for _, it := range items {
		for _, f := range it.finalizers {
			byFinalizer[f]++
		}
	}
	left := resourceLeft{estimate: estimate, count: len(items), byFinalizer: byFinalizer}
	switch {
	case estimate != 0:
		return left, nil
	case len(byFinalizer) > 0:
		left.estimate = FinalizerEstimate
		return left, nil
	}
	left.byFinalizer = nil
	return left, fmt.Errorf("%w: %s for gvr: %s", ErrContentRemains, ns, gvrString(t.res))
}

// deleteCollection deletes all of the namespace's objects of t with one
// request. It reports false when the resource does not support it
// (discovery does not list the verb, or the server answers 405 or 404),
// and the error of a supported request that failed.
func (c *Controller) deleteCollection(ctx context.Context, t target, ns string) (bool, error) {
	if !t.deleteCollection {
		return false, nil
	}
	err := c.metadata(t.res, ns).DeleteCollection(ctx, background, rest.ListOptions{})
	switch {
	case err == nil:
		return true, nil
	case notSupported(err):
		c.log.Debug().Str("namespace", ns).Stringer("resource", t.res).Msg("deletecollection not supported")
		return false, nil
	}
	return true, err
}

// item is what the controller keeps of a listed object.
type item struct {
	name       string
	finalizers []string
}

// listCollection lists the namespace's objects of t, metadata only. It
// reports false when the resource cannot be listed (no list verb, or
// 405/404).
func (c *Controller) listCollection(ctx context.Context, t target, ns string) ([]item, bool, error) {
	if !t.list {
		return nil, false, nil
	}
	var items []item
	_, err := c.metadata(t.res, ns).ListEach(ctx, rest.ListOptions{}, func(o *api.RawObject) error {
		items = append(items, item{name: o.Name, finalizers: o.Finalizers})
		return nil
	})
	switch {
	case err == nil:
		return items, true, nil
	case notSupported(err):
		return nil, false, nil
	}
	return nil, true, err
}

// deleteEachItem lists t's objects and deletes them one at a time; one
// already gone, or a resource that refuses deletes, is not an error.
func (c *Controller) deleteEachItem(ctx context.Context, t target, ns string) error {
	items, listed, err := c.listCollection(ctx, t, ns)
	if err != nil || !listed {
		return err
	}
	client := c.metadata(t.res, ns)
	for _, it := range items {
		if err := client.Delete(ctx, it.name, background); err != nil && !notSupported(err) {
			return err
		}
	}
	return nil
}

// estimateGracefulTermination returns how many seconds the namespace's
// pods may still take to terminate: the longest
// terminationGracePeriodSeconds among pods not yet Succeeded or Failed,
// or 0 once that long has passed since the namespace was deleted. Other
// resources have no grace period.
func (c *Controller) estimateGracefulTermination(ctx context.Context, res rest.Resource, ns string, deletedAt time.Time) (int64, error) {
	if !isPods(res) {
		return 0, nil
	}
	var estimate int64
	_, err := c.pods.InNamespace(ns).ListEach(ctx, rest.ListOptions{}, func(p *api.Pod) error {
		if p.Status.Phase == api.PodSucceeded || p.Status.Phase == api.PodFailed {
			return nil
		}
		if g := p.Spec.TerminationGracePeriodSeconds; g != nil && *g > estimate {
			estimate = *g
		}
		return nil
	})
	if err != nil {
		return 0, err
	}
	if c.clock.Since(deletedAt) >= time.Duration(estimate)*time.Second {
		return 0, nil
	}
	return estimate, nil
}

// metadata is a metadata-only client for res in namespace ns: the
// controller never needs more than names and finalizers, so it reads
// protobuf on a protobuf client (decode.Wire; PartialObjectMetadata has a
// protobuf form for every resource, custom ones included).
func (c *Controller) metadata(res rest.Resource, ns string) *rest.Resources[*api.RawObject] {
	return rest.NewResources(c.client, res, decode.Wire()).InNamespace(ns).MetadataOnly()
}

// notSupported reports the answers that mean "this resource does not do
// that": 405, and the 404 of a resource discovery lists but serves no
// verbs at the collection.
func notSupported(err error) bool {
	return errors.Is(err, rest.ErrMethodNotAllowed) || rest.IsNotFound(err)
}
