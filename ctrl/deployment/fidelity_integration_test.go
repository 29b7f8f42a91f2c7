//go:build !nocluster

package deployment

import (
	"context"
	"maps"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/kcmlab/kcm/ctrl/replicaset"
	"github.com/kcmlab/kcm/internal/testing/ctrltest"
	"github.com/kcmlab/kcm/kube/api"
	"github.com/kcmlab/kcm/kube/api/decode"
	"github.com/kcmlab/kcm/kube/rest"
	"github.com/kcmlab/kcm/testenv"
)

// fidelityDeployment is a Deployment as a user writes one: fields kcm
// does not model (dnsConfig, the pod's and a container's securityContext,
// a container's lifecycle with an explicit 0, readinessGates), empty
// objects ({} securityContexts, resources, an emptyDir), an explicit
// false, and an empty array (which the apiserver stores as nothing).
const fidelityDeployment = `{"apiVersion":"apps/v1","kind":"Deployment","metadata":{"name":"fid"},` +
	`"spec":{"replicas":2,"selector":{"matchLabels":{"app":"fid"}},` +
	`"template":{"metadata":{"labels":{"app":"fid"},"annotations":{"note":"kept"}},"spec":{` +
	`"securityContext":{},"dnsConfig":{"options":[{"name":"ndots","value":"2"}]},"enableServiceLinks":false,` +
	`"readinessGates":[{"conditionType":"example.com/ready"}],"volumes":[{"name":"scratch","emptyDir":{}}],` +
	`"containers":[{"name":"c","image":"registry.k8s.io/pause:3.10","securityContext":{},"resources":{},"ports":[],` +
	`"lifecycle":{"preStop":{"sleep":{"seconds":0}}},"volumeMounts":[{"name":"scratch","mountPath":"/s"}]}]}}}}`

// TestTemplateFidelityOnRealAPIServer: kcm's Deployment and ReplicaSet
// controllers, on the test run's encoding (testenv.ContentType: protobuf
// by default, JSON under make test-json), turn fidelityDeployment into a
// ReplicaSet and pods; read back as JSON, the ReplicaSet's template is the
// Deployment's member for member (the hash label aside) — so equal as
// Kubernetes compares — and each pod's spec has every member of the
// template's spec as the template has it (the pod's containers' extra
// volumeMounts aside: ServiceAccount admission adds the token's), and its
// labels (with the hash) and annotations.
func TestTemplateFidelityOnRealAPIServer(t *testing.T) {
	ns, base, ctx := onRealAPIServer(t, 2*time.Minute)
	runD := ctrltest.Start(t, ctx, base, Descriptor(), 1)
	defer runD.Stop(t)
	runRS := ctrltest.Start(t, ctx, base, replicaset.Descriptor(), 1)
	defer runRS.Stop(t)

	// JSON clients: the objects' JSON is what is compared.
	ds := rest.NewResources(base, rest.Deployments, decode.Raw()).InNamespace(ns)
	rss := rest.NewResources(base, rest.ReplicaSets, decode.Raw()).InNamespace(ns)
	pods := rest.NewResources(base, rest.Pods, decode.Raw()).InNamespace(ns)
	obj, err := api.DecodeRawObject([]byte(fidelityDeployment))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := ds.Create(ctx, obj); err != nil {
		t.Fatal(err)
	}
	const sel = "app=fid"
	var podList []*api.RawObject
	w, err := pods.Watch(ctx, rest.WatchOptions{ListOptions: rest.ListOptions{LabelSelector: sel, TimeoutSeconds: 100}})
	if err != nil {
		t.Fatal(err)
	}
	seen := map[string]*api.RawObject{}
	for len(seen) < 2 {
		ev, err := w.Next()
		if err != nil {
			t.Fatalf("waiting for two pods: %v (have %d)", err, len(seen))
		}
		if ev.Type == rest.Added {
			seen[ev.Object.Name] = ev.Object
		}
	}
	w.Close()
	for _, p := range seen {
		podList = append(podList, p)
	}

	d, err := ds.Get(ctx, "fid")
	if err != nil {
		t.Fatal(err)
	}
	list, err := rss.List(ctx, rest.ListOptions{LabelSelector: sel})
	if err != nil {
		t.Fatal(err)
	}
	if len(list.Items) != 1 {
		t.Fatalf("%d ReplicaSets", len(list.Items))
	}
	rs := list.Items[0]
	hash := rs.Labels[PodTemplateHashLabel]
	dt := jsonAt(t, d, "spec", "template").(map[string]any)
	rt := jsonAt(t, rs, "spec", "template").(map[string]any)
	if got := withoutHash(rt); !reflect.DeepEqual(got, dt) {
		t.Fatalf("the ReplicaSet's template is not the Deployment's:\n got %v\nwant %v", got, dt)
	}
	for _, member := range []string{`"securityContext":{}`, `"resources":{}`, `"emptyDir":{}`, `"enableServiceLinks":false`,
		`"seconds":0`, `"dnsConfig":{"options":[{"name":"ndots","value":"2"}]}`, `"readinessGates":[{"conditionType":"example.com/ready"}]`} {
		if !strings.Contains(string(rs.Raw()), member) {
			t.Errorf("the ReplicaSet lost %s: %s", member, rs.Raw())
		}
	}
	tspec := rt["spec"].(map[string]any)
	tmeta := rt["metadata"].(map[string]any)
	for _, p := range podList {
		pod, err := pods.Get(ctx, p.Name)
		if err != nil {
			t.Fatal(err)
		}
		if !pod.IsControlledBy(string(rs.UID)) || pod.Labels[PodTemplateHashLabel] != hash {
			t.Fatalf("pod %s: owners %+v labels %v", pod.Name, pod.OwnerReferences, pod.Labels)
		}
		pspec := jsonAt(t, pod, "spec").(map[string]any)
		for k, want := range tspec {
			got := withoutToken(k, pspec[k])
			if !reflect.DeepEqual(got, want) {
				t.Errorf("pod %s: spec.%s = %v, template has %v", pod.Name, k, got, want)
			}
		}
		for _, k := range []string{"labels", "annotations"} {
			if got := jsonAt(t, pod, "metadata", k); !reflect.DeepEqual(got, tmeta[k]) {
				t.Errorf("pod %s: metadata.%s = %v, template has %v", pod.Name, k, got, tmeta[k])
			}
		}
	}
}

// TestRollbackFidelityOnRealAPIServer: kcm, on the test run's encoding,
// rolls fidelityDeployment out, then out again with another image; the
// deprecated rollback annotation to revision 1 then writes revision 1's
// ReplicaSet's template back into the Deployment: read back as JSON it is
// that template member for member, the hash label aside, with the fields
// kcm does not model and the empty objects; the annotation is gone.
func TestRollbackFidelityOnRealAPIServer(t *testing.T) {
	ns, base, ctx := onRealAPIServer(t, 2*time.Minute)
	run := ctrltest.Start(t, ctx, base, Descriptor(), 1)
	defer run.Stop(t)
	ds := rest.NewResources(base, rest.Deployments, decode.Raw()).InNamespace(ns)
	rss := rest.NewResources(base, rest.ReplicaSets, decode.Raw()).InNamespace(ns)
	obj, err := api.DecodeRawObject([]byte(fidelityDeployment))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := ds.Create(ctx, obj); err != nil {
		t.Fatal(err)
	}
	// waitRS returns the ReplicaSet of revision rev once there is one.
	waitRS := func(rev string) *api.RawObject {
		t.Helper()
		w, err := rss.Watch(ctx, rest.WatchOptions{ListOptions: rest.ListOptions{TimeoutSeconds: 100}})
		if err != nil {
			t.Fatal(err)
		}
		defer w.Close()
		for {
			ev, err := w.Next()
			if err != nil {
				t.Fatalf("waiting for the ReplicaSet of revision %s: %v", rev, err)
			}
			if ev.Type != rest.Deleted && ev.Object.Annotations[RevisionAnnotation] == rev {
				return ev.Object
			}
		}
	}
	first := waitRS("1")
	// A new image, then the rollback request: each a retried edit of the
	// Deployment's JSON (kcm writes its status meanwhile).
	edit := func(fn func(m map[string]any)) {
		t.Helper()
		for try := 0; ; try++ {
			d, err := ds.Get(ctx, "fid")
			if err != nil {
				t.Fatal(err)
			}
			e, err := d.Edit(func(m map[string]any) error { fn(m); return nil })
			if err != nil {
				t.Fatal(err)
			}
			if _, err = ds.Update(ctx, e); err == nil {
				return
			}
			if !rest.IsConflict(err) || try == 20 {
				t.Fatal(err)
			}
		}
	}
	edit(func(m map[string]any) {
		c := m["spec"].(map[string]any)["template"].(map[string]any)["spec"].(map[string]any)["containers"].([]any)[0].(map[string]any)
		c["image"] = "registry.k8s.io/pause:3.9"
	})
	waitRS("2")
	edit(func(m map[string]any) {
		meta := m["metadata"].(map[string]any)
		a, _ := meta["annotations"].(map[string]any)
		if a == nil {
			a = map[string]any{}
		}
		a[RollbackToAnnotation] = "1"
		meta["annotations"] = a
	})
	w, err := ds.Watch(ctx, rest.WatchOptions{ListOptions: rest.ListOptions{FieldSelector: "metadata.name=fid", TimeoutSeconds: 100}})
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	var d *api.RawObject
	for {
		ev, err := w.Next()
		if err != nil {
			t.Fatalf("waiting for the rollback: %v", err)
		}
		if ev.Type == rest.Bookmark {
			continue
		}
		if _, asked := ev.Object.Annotations[RollbackToAnnotation]; !asked && strings.Contains(string(ev.Object.Raw()), `"image":"registry.k8s.io/pause:3.10"`) {
			d = ev.Object
			break
		}
	}
	dt := jsonAt(t, d, "spec", "template").(map[string]any)
	rt := withoutHash(jsonAt(t, first, "spec", "template").(map[string]any))
	if !reflect.DeepEqual(dt, rt) {
		t.Fatalf("the rolled-back template is not revision 1's:\n got %v\nwant %v", dt, rt)
	}
	for _, member := range []string{`"securityContext":{}`, `"seconds":0`, `"dnsConfig":{"options":[{"name":"ndots","value":"2"}]}`} {
		if !strings.Contains(string(d.Raw()), member) {
			t.Errorf("the rolled-back Deployment lacks %s: %s", member, d.Raw())
		}
	}
}

// jsonAt is the member at path of obj's JSON (numbers as json.Number).
func jsonAt(t *testing.T, obj *api.RawObject, path ...string) any {
	t.Helper()
	var v any
	if err := decodeNumbers(obj.Raw(), &v); err != nil {
		t.Fatal(err)
	}
	for _, k := range path {
		m, _ := v.(map[string]any)
		v = m[k]
	}
	return v
}

// withoutToken is the member k of a pod's spec with what ServiceAccount
// admission added for the service account token taken out: the volume
// kube-api-access-* and, in each container, its volumeMount.
func withoutToken(k string, v any) any {
	isToken := func(e any) bool {
		m, _ := e.(map[string]any)
		name, _ := m["name"].(string)
		return strings.HasPrefix(name, "kube-api-access-")
	}
	drop := func(list []any) []any {
		var kept []any
		for _, e := range list {
			if !isToken(e) {
				kept = append(kept, e)
			}
		}
		return kept
	}
	list, _ := v.([]any)
	switch k {
	case "volumes":
		return drop(list)
	case "containers":
		out := make([]any, len(list))
		for i, e := range list {
			c := maps.Clone(e.(map[string]any))
			if mounts, ok := c["volumeMounts"].([]any); ok {
				if kept := drop(mounts); kept != nil {
					c["volumeMounts"] = kept
				} else {
					delete(c, "volumeMounts")
				}
			}
			out[i] = c
		}
		return out
	}
	return v
}

// onRealAPIServer returns the test's namespace on the shared real
// kube-apiserver, a client as the manager builds it (its content type:
// testenv.ContentType) and a context bounded by d; the client's
// connections close and the context ends when the test does.
func onRealAPIServer(t *testing.T, d time.Duration) (string, *rest.Client, context.Context) {
	t.Helper()
	cl := testenv.Shared(t)
	ns := cl.Namespace(t)
	base, err := rest.NewClient(cl.ManagerConfig())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(base.CloseIdleConnections)
	ctx, cancel := context.WithTimeout(context.Background(), d)
	t.Cleanup(cancel)
	return ns, base, ctx
}
