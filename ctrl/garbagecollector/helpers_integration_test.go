//go:build !nocluster

package garbagecollector

import (
	"context"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/kcmlab/kcm/ctrl"
	"github.com/kcmlab/kcm/internal/testing/ctrltest"
	"github.com/kcmlab/kcm/kube/api"
	"github.com/kcmlab/kcm/kube/api/decode"
	"github.com/kcmlab/kcm/kube/rest"
	"github.com/kcmlab/kcm/testenv"
)

// testResync is the discovery period of the integration tests: short, so
// that a CRD installed during a test joins the graph quickly.
const testResync = time.Second

// cluster is a garbage collector running against the shared real
// kube-apiserver, and a namespace of the test's own.
type cluster struct {
	t      *testing.T
	ctx    context.Context
	client *rest.Client
	ns     string
	gc     *GarbageCollector
}

// startCluster runs the collector as the manager wires it (its
// descriptor's constructor, a controller context of its own), with a
// short discovery period and 4 workers per queue.
func startCluster(t *testing.T) *cluster {
	t.Helper()
	cl := testenv.Shared(t)
	client, err := rest.NewClient(cl.ManagerConfig())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(client.CloseIdleConnections)
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	t.Cleanup(cancel)
	c := &cluster{t: t, ctx: ctx, client: client, ns: cl.Namespace(t)}
	d := Descriptor()
	build := Constructor(Options{ResyncPeriod: testResync})
	d.Constructor = func(ctx context.Context, cc ctrl.ControllerContext, name string) (ctrl.Controller, error) {
		gc, err := build(ctx, cc, name)
		if gc != nil {
			c.gc = gc.(*GarbageCollector)
		}
		return gc, err
	}
	ctrltest.Start(t, ctx, client, d, 4)
	return c
}

// resources returns a client of res in the test's namespace (or cluster
// wide for a cluster-scoped res).
func (c *cluster) resources(res rest.Resource) *rest.Resources[*api.RawObject] {
	return rest.NewResources(c.client, res, decode.Raw()).InNamespace(c.ns)
}

// create creates an object of res from a map (namespace filled in).
func (c *cluster) create(res rest.Resource, m map[string]any) *api.RawObject {
	c.t.Helper()
	if res.Namespaced {
		m["metadata"].(map[string]any)["namespace"] = c.ns
	}
	o, err := api.NewRawObject(m)
	if err != nil {
		c.t.Fatal(err)
	}
	out, err := c.resources(res).Create(c.ctx, o)
	if err != nil {
		c.t.Fatalf("create %s %s: %v", res.Kind, o.Name, err)
	}
	return out
}

// ownerRefMap is an ownerReference as a dependent writes it.
func ownerRefMap(o *api.RawObject, controller, block bool) map[string]any {
	return map[string]any{"apiVersion": o.APIVersion, "kind": o.Kind, "name": o.Name, "uid": o.UID,
		"controller": controller, "blockOwnerDeletion": block}
}

func configMap(name string, owners ...map[string]any) map[string]any {
	md := map[string]any{"name": name}
	if len(owners) > 0 {
		md["ownerReferences"] = anySlice(owners)
	}
	return map[string]any{"apiVersion": "v1", "kind": "ConfigMap", "metadata": md, "data": map[string]any{"k": "v"}}
}

func anySlice(ms []map[string]any) []any {
	out := make([]any, len(ms))
	for i, m := range ms {
		out[i] = m
	}
	return out
}

// get reads an object; nil when it does not exist.
func (c *cluster) get(res rest.Resource, name string) *api.RawObject {
	c.t.Helper()
	o, err := c.resources(res).Get(c.ctx, name)
	if rest.IsNotFound(err) {
		return nil
	}
	if err != nil {
		c.t.Fatal(err)
	}
	return o
}

// deletion is one object seen deleted, at the resourceVersion of its
// deletion (etcd's revision, so deletions of different resources order
// by it).
type deletion struct {
	what string // "Kind/name"
	rv   uint64
}

// recorder watches resources of the namespace and records deletions.
type recorder struct {
	mu      sync.Mutex
	deleted []deletion
	changed chan struct{}
	err     error
}

// watchDeletions starts a watch per resource, from a list's
// resourceVersion, recording each DELETED event until the test ends.
func (c *cluster) watchDeletions(resources ...rest.Resource) *recorder {
	c.t.Helper()
	r := &recorder{changed: make(chan struct{})}
	ctx, cancel := context.WithCancel(c.ctx)
	var wg sync.WaitGroup
	c.t.Cleanup(func() { cancel(); wg.Wait() })
	for _, res := range resources {
		list, err := c.resources(res).List(ctx, rest.ListOptions{})
		if err != nil {
			c.t.Fatal(err)
		}
		w, err := c.resources(res).Watch(ctx, rest.WatchOptions{ListOptions: rest.ListOptions{ResourceVersion: list.ResourceVersion, TimeoutSeconds: 600}})
		if err != nil {
			c.t.Fatal(err)
		}
		wg.Go(func() {
			defer w.Close()
			for {
				ev, err := w.Next()
				r.mu.Lock()
				if err != nil {
					if ctx.Err() == nil {
						r.err = err
					}
				} else if ev.Type == rest.Deleted {
					rv, _ := strconv.ParseUint(ev.Object.ResourceVersion, 10, 64)
					r.deleted = append(r.deleted, deletion{res.Kind + "/" + ev.Object.Name, rv})
				}
				close(r.changed)
				r.changed = make(chan struct{})
				r.mu.Unlock()
				if err != nil {
					return
				}
			}
		})
	}
	return r
}

// waitDeleted waits until every one of whats ("Kind/name") was deleted.
func (r *recorder) waitDeleted(t *testing.T, ctx context.Context, whats ...string) {
	t.Helper()
	for {
		r.mu.Lock()
		missing := slices.DeleteFunc(slices.Clone(whats), func(w string) bool {
			return slices.ContainsFunc(r.deleted, func(d deletion) bool { return d.what == w })
		})
		err, ch := r.err, r.changed
		r.mu.Unlock()
		if len(missing) == 0 {
			return
		}
		if err != nil {
			t.Fatalf("watch ended: %v", err)
		}
		select {
		case <-ctx.Done():
			t.Fatalf("%v never deleted (deleted so far: %v)", missing, r.order())
		case <-ch:
		}
	}
}

// order returns what was deleted, in the order of the deletions'
// resourceVersions.
func (r *recorder) order() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	ds := slices.Clone(r.deleted)
	sort.SliceStable(ds, func(i, j int) bool { return ds[i].rv < ds[j].rv })
	out := make([]string, len(ds))
	for i, d := range ds {
		out[i] = d.what
	}
	return out
}

// waitObserved waits until the collector's graph holds each of objs as
// observed (not virtual) with all its owner references. A test that
// deletes an owner right after creating its dependents must: the
// collector learns of each kind on its own watch, so a foreground
// deletion it sees before a dependent's ADDED event finds no dependents
// and lets the owner go first — which Kubernetes' collector does too —
// and the dependent is collected later as dangling. The graph has no
// change notification, so this polls it.
func (c *cluster) waitObserved(objs ...*api.RawObject) {
	c.t.Helper()
	tick := time.NewTicker(5 * time.Millisecond)
	defer tick.Stop()
	for {
		missing := slices.DeleteFunc(slices.Clone(objs), func(o *api.RawObject) bool {
			it, ok := c.gc.Collector().Graph().Item(o.UID)
			return ok && !it.Virtual && len(it.Owners) == len(o.OwnerReferences)
		})
		if len(missing) == 0 {
			return
		}
		select {
		case <-c.ctx.Done():
			c.t.Fatalf("the collector's graph never observed %s (and %d more)", describe(missing[0]), len(missing)-1)
		case <-tick.C:
		}
	}
}

// deleteWith deletes an object with a propagation policy.
func (c *cluster) deleteWith(res rest.Resource, name, policy string) {
	c.t.Helper()
	if err := c.resources(res).Delete(c.ctx, name, rest.DeleteOptions{PropagationPolicy: policy}); err != nil {
		c.t.Fatalf("delete %s %s: %v", res.Kind, name, err)
	}
}

// waitEvent watches the namespace's core/v1 Events until one with the
// reason about the named object arrives, and returns its message.
func (c *cluster) waitEvent(ns, reason, objectName string) string {
	c.t.Helper()
	events := rest.NewResources(c.client, rest.Events, decode.Typed[api.CoreEvent]()).InNamespace(ns)
	match := func(e *api.CoreEvent) bool { return e.Reason == reason && e.InvolvedObject.Name == objectName }
	list, err := events.List(c.ctx, rest.ListOptions{})
	if err != nil {
		c.t.Fatal(err)
	}
	for _, e := range list.Items {
		if match(e) {
			return e.Message
		}
	}
	w, err := events.Watch(c.ctx, rest.WatchOptions{ListOptions: rest.ListOptions{ResourceVersion: list.ResourceVersion, TimeoutSeconds: 600}})
	if err != nil {
		c.t.Fatal(err)
	}
	defer w.Close()
	for {
		ev, err := w.Next()
		if err != nil {
			c.t.Fatalf("waiting for a %s event on %s: %v", reason, objectName, err)
		}
		if (ev.Type == rest.Added || ev.Type == rest.Modified) && match(ev.Object) {
			return ev.Object.Message
		}
	}
}

// waitObject watches one object from resourceVersion rv until cond holds
// for it.
func (c *cluster) waitObject(res rest.Resource, name, rv, what string, cond func(*api.RawObject) bool) {
	c.t.Helper()
	w, err := c.resources(res).Watch(c.ctx, rest.WatchOptions{ListOptions: rest.ListOptions{ResourceVersion: rv,
		FieldSelector: "metadata.name=" + name, TimeoutSeconds: 600}})
	if err != nil {
		c.t.Fatal(err)
	}
	defer w.Close()
	for {
		ev, err := w.Next()
		if err != nil {
			c.t.Fatalf("waiting for %s: %v", what, err)
		}
		if ev.Type == rest.Deleted {
			c.t.Fatalf("waiting for %s: %s %s was deleted", what, res.Kind, name)
		}
		if ev.Type == rest.Modified && cond(ev.Object) {
			return
		}
	}
}

// describe renders an object's identity and references for a failure.
func describe(o *api.RawObject) string {
	if o == nil {
		return "<gone>"
	}
	var refs []string
	for _, r := range o.OwnerReferences {
		refs = append(refs, r.Kind+"/"+r.Name+"("+r.UID+")")
	}
	return o.Kind + " " + o.Namespace + "/" + o.Name + " ownerReferences " + strings.Join(refs, ", ")
}
