package testenv

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/rs/zerolog"

	"github.com/kcmlab/kcm/kube/api"
	"github.com/kcmlab/kcm/kube/api/decode"
	"github.com/kcmlab/kcm/kube/rest"
)

// The claim binder is to PersistentVolumeClaims what kwok is to pods: a
// fake that plays the part of machinery a test cluster lacks. A real
// cluster binds a claim through kube-controller-manager's
// persistentvolume-binder controller (and a provisioner that makes the
// volume); a test cluster runs neither (kcm has no such controller, and a
// differential test runs kube-controller-manager with only the compared
// controllers). A claim then stays Pending, and kube-scheduler refuses
// every pod that uses it ("pod has unbound immediate
// PersistentVolumeClaims"): its volumebinding plugin treats a claim as
// bound only when spec.volumeName is set and the claim carries the
// annotation pv.kubernetes.io/bind-completed (isPVCFullyBound in
// pkg/scheduler/framework/plugins/volumebinding/binder.go), and then needs
// the volume to exist.
//
// For each claim it sees without a volume, the binder creates a hostPath
// PersistentVolume named after the claim (ClaimVolumeName), sized to the
// claim's storage request, with the claim's access modes, class and
// volume mode and a claimRef (namespace, name, uid); sets its phase Bound;
// then sets the claim's spec.volumeName, the annotations
// pv.kubernetes.io/bind-completed=yes and pv.kubernetes.io/bound-by-controller=yes
// (what the binder controller writes), and the claim's status: phase
// Bound, the access modes and the capacity. No file is ever written: no
// kubelet mounts anything.
//
// It also plays the two protection controllers for its claims, which a
// test cluster does not run either: kube-apiserver's
// StorageObjectInUseProtection admission puts the finalizers
// kubernetes.io/pvc-protection on every claim and kubernetes.io/pv-protection
// on every volume, and without their controllers a deleted claim would stay
// Terminating forever. The binder removes a terminating claim's finalizer
// once no pod of its namespace that has not finished uses it (the
// pvc-protection rule), checking again every claimBinderRecheck while one
// waits; and when a claim is gone it deletes the claim's volume (finalizer
// removed first), so that the deletion of a claim is complete and
// observable, and a claim of the same name made later gets a new volume.
//
// Claims bound to a volume someone else named are left alone.

// Annotations the binder writes on the claims it binds (Kubernetes'
// pkg/controller/volume/persistentvolume/util).
const (
	AnnBindCompleted     = "pv.kubernetes.io/bind-completed"
	AnnBoundByController = "pv.kubernetes.io/bound-by-controller"
)

// ClaimBinderLabel marks the PersistentVolumes the claim binder made.
const ClaimBinderLabel = "testenv.kcm.local/claim-binder"

// The protection finalizers of StorageObjectInUseProtection admission.
const (
	pvcProtectionFinalizer = "kubernetes.io/pvc-protection"
	pvProtectionFinalizer  = "kubernetes.io/pv-protection"
)

// claimBinderRecheck is how often the binder tries again what failed, and
// looks again at terminating claims that pods still use.
const claimBinderRecheck = 250 * time.Millisecond

// claimBinderStopGrace bounds the wait for the binder's goroutines on stop.
const claimBinderStopGrace = 10 * time.Second

// persistentVolumes is the cluster-scoped core/v1 resource; kcm's rest
// package lists only what its controllers use.
var persistentVolumes = rest.Resource{Version: "v1", Resource: "persistentvolumes", Kind: "PersistentVolume"}

// ErrClaimBinderStuck is returned by stop when the binder's goroutine did
// not end within claimBinderStopGrace.
var ErrClaimBinderStuck = errors.New("testenv: the claim binder did not stop")

// ClaimVolumeName is the name of the PersistentVolume the binder makes for
// claim name in namespace ns: "pv-<ns>-<name>", or "pv-" and a digest of
// both when that would exceed the 253 characters of a name. The name does
// not depend on the claim's uid, so that two runs of one scenario bind
// their claims to volumes of the same names.
func ClaimVolumeName(ns, name string) string {
	n := "pv-" + ns + "-" + name
	if len(n) <= 253 {
		return n
	}
	sum := sha256.Sum256([]byte(ns + "/" + name))
	return "pv-" + hex.EncodeToString(sum[:])
}

// StartClaimBinder starts the claim binder on the cluster (see above) and
// returns once it has listed the claims and watches them; it binds in the
// background until Stop. It is idempotent. Options.ClaimBinder starts it
// with the cluster.
func (c *Cluster) StartClaimBinder(ctx context.Context) error {
	c.helpers.Lock()
	defer c.helpers.Unlock()
	c.mu.Lock()
	stopped, running := c.stopped, c.binder != nil
	c.mu.Unlock()
	if stopped {
		return ErrStopped
	}
	if running {
		return nil
	}
	b, err := startClaimBinder(ctx, c.Config(), c.log)
	if err != nil {
		return err
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.stopped {
		return errors.Join(ErrStopped, b.stop())
	}
	c.binder = b
	return nil
}

// claimBinder is the running binder. Only its run goroutine touches its
// maps.
type claimBinder struct {
	log    zerolog.Logger
	client *rest.Client
	claims *rest.Resources[*api.PersistentVolumeClaim]
	pvs    *rest.Resources[*api.RawObject]
	pods   *rest.Resources[*api.Pod]
	cancel context.CancelFunc
	done   chan struct{}

	known map[string]*api.PersistentVolumeClaim // latest claim by "ns/name"
	retry map[string]bool                       // claims to look at again
}

// startClaimBinder lists the claims with ctx and starts the goroutine that
// binds them and watches for more.
func startClaimBinder(ctx context.Context, cfg *rest.Config, log zerolog.Logger) (*claimBinder, error) {
	client, err := rest.NewClient(cfg)
	if err != nil {
		return nil, fmt.Errorf("testenv: claim binder: %w", err)
	}
	b := &claimBinder{log: log, client: client,
		claims: rest.NewResources(client, rest.PersistentVolumeClaims, decode.Typed[api.PersistentVolumeClaim]()),
		pvs:    rest.NewResources(client, persistentVolumes, decode.Raw()),
		pods:   rest.NewResources(client, rest.Pods, decode.Typed[api.Pod]()),
		done:   make(chan struct{}),
		known:  map[string]*api.PersistentVolumeClaim{}, retry: map[string]bool{}}
	list, err := b.claims.List(ctx, rest.ListOptions{})
	if err != nil {
		client.CloseIdleConnections()
		return nil, fmt.Errorf("testenv: claim binder: list claims: %w", err)
	}
	rctx, cancel := context.WithCancel(context.Background())
	b.cancel = cancel
	go b.run(rctx, list)
	log.Info().Int("claims", len(list.Items)).Msg("claim binder running")
	return b, nil
}

// stop ends the binder and waits, at most claimBinderStopGrace, for it.
func (b *claimBinder) stop() error {
	b.cancel()
	defer b.client.CloseIdleConnections()
	select {
	case <-b.done:
		return nil
	case <-time.After(claimBinderStopGrace):
		return ErrClaimBinderStuck
	}
}

// run applies the listed claims, then follows a watch from the list's
// resourceVersion; when the watch ends it lists again. A timer brings
// back the claims marked for retry.
func (b *claimBinder) run(ctx context.Context, list *rest.List[*api.PersistentVolumeClaim]) {
	defer close(b.done)
	tick := time.NewTicker(claimBinderRecheck)
	defer tick.Stop()
	for ctx.Err() == nil {
		if list == nil {
			var err error
			if list, err = b.claims.List(ctx, rest.ListOptions{}); err != nil {
				b.log.Warn().Err(err).Msg("claim binder: list claims")
				if !waitTick(ctx, tick) {
					return
				}
				continue
			}
		}
		b.resync(ctx, list.Items)
		b.follow(ctx, list.ResourceVersion, tick)
		list = nil
	}
}

// waitTick waits for the next tick; false when ctx ended first.
func waitTick(ctx context.Context, tick *time.Ticker) bool {
	select {
	case <-ctx.Done():
		return false
	case <-tick.C:
		return true
	}
}

// resync applies a full list: every claim listed is synced, and the volume
// of every known claim that is no longer there is released.
func (b *claimBinder) resync(ctx context.Context, items []*api.PersistentVolumeClaim) {
	seen := map[string]bool{}
	for _, pvc := range items {
		seen[claimKey(pvc)] = true
		b.apply(ctx, rest.Modified, pvc)
	}
	for key, pvc := range b.known {
		if !seen[key] {
			b.apply(ctx, rest.Deleted, pvc)
		}
	}
}

// follow watches claims from rv until the watch ends or ctx does, applying
// each event, and on every tick the claims marked for retry.
func (b *claimBinder) follow(ctx context.Context, rv string, tick *time.Ticker) {
	wctx, cancel := context.WithCancel(ctx)
	defer cancel()
	w, err := b.claims.Watch(wctx, rest.WatchOptions{ListOptions: rest.ListOptions{ResourceVersion: rv}})
	if err != nil {
		b.log.Warn().Err(err).Msg("claim binder: watch claims")
		waitTick(ctx, tick)
		return
	}
	events := make(chan rest.WatchEvent[*api.PersistentVolumeClaim])
	go func() {
		defer close(events)
		defer w.Close()
		for {
			ev, err := w.Next()
			if err != nil || ev.Type == rest.Error {
				return
			}
			select {
			case events <- ev:
			case <-wctx.Done():
				return
			}
		}
	}()
	defer func() {
		cancel()
		for range events { // let the reader end
		}
	}()
	for {
		select {
		case <-ctx.Done():
			return
		case ev, ok := <-events:
			if !ok {
				return
			}
			if ev.Type == rest.Added || ev.Type == rest.Modified || ev.Type == rest.Deleted {
				b.apply(ctx, ev.Type, ev.Object)
			}
		case <-tick.C:
			keys := make([]string, 0, len(b.retry))
			for k := range b.retry {
				keys = append(keys, k)
			}
			slices.Sort(keys)
			for _, k := range keys {
				if pvc, ok := b.known[k]; ok {
					delete(b.retry, k)
					b.apply(ctx, rest.Modified, pvc)
				} else {
					delete(b.retry, k)
				}
			}
		}
	}
}

func claimKey(pvc *api.PersistentVolumeClaim) string { return pvc.Namespace + "/" + pvc.Name }

// apply handles one claim event; what fails or must wait is marked for
// retry.
func (b *claimBinder) apply(ctx context.Context, t rest.EventType, pvc *api.PersistentVolumeClaim) {
	key := claimKey(pvc)
	if t == rest.Deleted {
		delete(b.known, key)
		delete(b.retry, key)
		if err := b.release(ctx, pvc); err != nil && ctx.Err() == nil {
			b.log.Warn().Err(err).Str("claim", key).Msg("claim binder: release the volume")
		}
		return
	}
	b.known[key] = pvc
	var err error
	again := false
	if pvc.DeletionTimestamp != nil {
		again, err = b.unprotect(ctx, pvc)
	} else {
		err = b.bind(ctx, pvc)
	}
	if err != nil && ctx.Err() == nil {
		b.log.Warn().Err(err).Str("claim", key).Msg("claim binder: will retry")
	}
	if err != nil || again {
		b.retry[key] = true
	}
}
