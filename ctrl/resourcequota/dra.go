package resourcequota

import (
	"context"
	"fmt"
	"sync"

	"github.com/rs/zerolog"

	"github.com/kcmlab/kcm/clock"
	"github.com/kcmlab/kcm/ctrl/resourcequota/quota"
	"github.com/kcmlab/kcm/informer"
	"github.com/kcmlab/kcm/kube/api"
	"github.com/kcmlab/kcm/kube/api/decode"
	"github.com/kcmlab/kcm/kube/labels"
	"github.com/kcmlab/kcm/kube/rest"
	"github.com/kcmlab/kcm/processor"
	"github.com/kcmlab/kcm/reflector"
	"github.com/kcmlab/kcm/store"
)

// This file is the controller's part of Dynamic Resource Allocation: the
// ResourceClaim evaluator (quota.NewResourceClaimEvaluator) reads claims'
// specs and DeviceClasses' extended-resource names, which the metadata
// monitors trim, so the controller keeps typed caches of both
// (kube-controller-manager's shared ResourceClaim and DeviceClass
// informers, which quota's NewEvaluators asks for). They are the
// controller's own, run by Run and not waited for by the manager: on a
// cluster that does not serve resource.k8s.io/v1 they never sync, and only
// the quotas that name claims' resources wait (ErrNotSynced), as only
// those depend on them. Their requests go through a client named and
// limited as the shared informers' (Constructor), as kube-controller-
// manager's shared informers do, not through the controller's rate
// limiter, which the monitors' lists and watches share.

// draCaches are the typed ResourceClaim and DeviceClass informers.
type draCaches struct {
	claims  *informer.Informer[*api.ResourceClaim]
	classes *informer.Informer[*api.DeviceClass]
	// claimsReg is the claims' replenishment handler: its HasSynced says
	// the claims cache is complete.
	claimsReg *processor.Registration
}

// resourceClaimsGR is resource.k8s.io resourceclaims, which the typed claims
// cache monitors (no metadata monitor: typedResources).
var resourceClaimsGR = quota.ResourceClaimsResource

func newDRACaches(client *rest.Client, clk clock.Clock, log zerolog.Logger) (*draCaches, error) {
	claims, err := informer.New(reflector.FromResources(
		rest.NewResources(client, rest.ResourceClaims, decode.Compact[api.ResourceClaim]()), rest.Chunked),
		informer.Options[*api.ResourceClaim]{
			Name: rest.ResourceClaims.String() + "(" + Name + ")", Indexers: store.BuiltinIndexers[*api.ResourceClaim](store.IndexNamespace),
			Clock: clk, Logger: log, ShutdownTimeout: monitorShutdownTimeout,
		})
	if err != nil {
		return nil, fmt.Errorf("%s: resourceclaims informer: %w", Name, err)
	}
	classes, err := informer.New(reflector.FromResources(
		rest.NewResources(client, rest.DeviceClasses, decode.Compact[api.DeviceClass]()), rest.Chunked),
		informer.Options[*api.DeviceClass]{
			Name: rest.DeviceClasses.String() + "(" + Name + ")", Indexers: store.BuiltinIndexers[*api.DeviceClass](),
			Clock: clk, Logger: log, ShutdownTimeout: monitorShutdownTimeout,
		})
	if err != nil {
		return nil, fmt.Errorf("%s: deviceclasses informer: %w", Name, err)
	}
	return &draCaches{claims: claims, classes: classes}, nil
}

// claimLister lists a namespace's claims, or fails with ErrNotSynced
// until the claims cache has synced (a quota's usage would be too low),
// and the classes cache too: a quota naming extended resources as well
// as claims is retried until the classes that map them are known.
func (d *draCaches) claimLister() quota.ResourceClaimLister {
	l := d.claims.Lister()
	return func(ns string) ([]*api.ResourceClaim, error) {
		if d.claimsReg == nil || !d.claimsReg.HasSynced() {
			return nil, fmt.Errorf("%w: %s", ErrNotSynced, rest.ResourceClaims)
		}
		if !d.classes.HasSynced() {
			return nil, fmt.Errorf("%w: %s", ErrNotSynced, rest.DeviceClasses)
		}
		return l.Namespace(ns).List(labels.Everything()), nil
	}
}

// classLister lists the DeviceClasses cached so far (as upstream's
// extended-resource cache, filled by events, is not waited for).
func (d *draCaches) classLister() quota.DeviceClassLister {
	l := d.classes.Lister()
	return func() ([]*api.DeviceClass, error) { return l.List(labels.Everything()), nil }
}

// register adds the claims' replenishment handler: a deleted claim, or
// one whose usage changed (its owner references or annotation, which the
// extended-resource rule reads), signals a change of resourceclaims in
// its namespace. (Kubernetes' update filter passes no claim update; a
// claim's spec is immutable, and kcm recalculates as soon as a usage
// changes rather than at the next full resync.)
func (d *draCaches) register(c *Controller) error {
	reg, err := d.claims.AddEventHandler(replenisher(c, resourceClaimsGR, c.resourceClaimChanged), processor.HandlerOptions{Name: Name})
	if err != nil {
		return fmt.Errorf("%s: resourceclaims handler: %w", Name, err)
	}
	d.claimsReg = reg
	return nil
}

// resourceClaimChanged is the claims' update filter: the claim
// evaluator's usage of old and cur differ.
func (c *Controller) resourceClaimChanged(old, cur *api.ResourceClaim) bool {
	e := c.registry.Get(resourceClaimsGR)
	if e == nil {
		return false
	}
	uo, errO := e.Usage(old)
	uc, errC := e.Usage(cur)
	return errO != nil || errC != nil || !quota.Equals(uo, uc)
}

// synced reports whether both caches have synced (the claims' through
// the replenishment handler, which syncs after its informer).
func (d *draCaches) synced() bool {
	return d.claimsReg != nil && d.claimsReg.HasSynced() && d.classes.HasSynced()
}

// run runs both informers until ctx ends; the returned function cancels
// them and waits for them.
func (d *draCaches) run(ctx context.Context, log zerolog.Logger) (stop func()) {
	ctx, cancel := context.WithCancel(ctx)
	var wg sync.WaitGroup
	runOne := func(name string, run func(context.Context) error) {
		wg.Go(func() {
			if err := run(ctx); err != nil && ctx.Err() == nil {
				log.Error().Err(err).Str("informer", name).Msg("quota informer stopped with errors")
			}
		})
	}
	runOne(d.claims.Name(), d.claims.Run)
	runOne(d.classes.Name(), d.classes.Run)
	return func() {
		cancel()
		wg.Wait()
	}
}

// draOptions installs the ResourceClaim evaluator when l has its listers.
func draOptions(l listers) []quota.RegistryOption {
	if l.resourceClaims == nil {
		return nil
	}
	return []quota.RegistryOption{quota.WithResourceClaims(l.resourceClaims, l.deviceClasses)}
}
