package rest_test

import (
	"context"
	"testing"

	"github.com/kcmlab/kcm/internal/testing/podgen"
	"github.com/kcmlab/kcm/kube/api"
	"github.com/kcmlab/kcm/kube/api/decode"
	"github.com/kcmlab/kcm/kube/rest"
)

// crud runs create, get, update (a label), list and delete of one typed
// kind against the real apiserver.
func crud[S any, P api.TypedPtr[S]](t *testing.T, c *rest.Client, ctx context.Context, res rest.Resource, ns string, obj P) {
	t.Helper()
	r := rest.NewResources(c, res, decode.Typed[S, P]()).InNamespace(ns)
	name := obj.GetObjectMeta().Name
	created, err := r.Create(ctx, obj)
	if err != nil {
		t.Fatalf("create %s: %v", res, err)
	}
	m := created.GetObjectMeta()
	if m.UID == "" || m.ResourceVersion == "" || m.CreationTimestamp.IsZero() {
		t.Fatalf("created %s lacks server-set metadata: %+v", res, m)
	}
	got, err := r.Get(ctx, name)
	if err != nil {
		t.Fatalf("get %s: %v", res, err)
	}
	if got.GetObjectMeta().UID != m.UID {
		t.Fatalf("get returned uid %s, want %s", got.GetObjectMeta().UID, m.UID)
	}
	cp, err := api.DeepCopy(got)
	if err != nil {
		t.Fatal(err)
	}
	if cp.GetObjectMeta().Labels == nil {
		cp.GetObjectMeta().Labels = map[string]string{}
	}
	cp.GetObjectMeta().Labels["kcm-test"] = "updated"
	upd, err := r.Update(ctx, cp)
	if err != nil {
		t.Fatalf("update %s: %v", res, err)
	}
	if upd.GetObjectMeta().Labels["kcm-test"] != "updated" || upd.GetObjectMeta().ResourceVersion == m.ResourceVersion {
		t.Fatalf("update of %s not applied: %+v", res, upd.GetObjectMeta())
	}
	if got.GetObjectMeta().Labels["kcm-test"] == "updated" {
		t.Fatalf("DeepCopy shares labels with the original")
	}
	// The field selector keeps out objects of earlier runs: cluster-scoped
	// namespaces deleted here stay Terminating (no namespace controller runs).
	list, err := r.List(ctx, rest.ListOptions{LabelSelector: "kcm-test=updated", FieldSelector: "metadata.name=" + name})
	if err != nil {
		t.Fatalf("list %s: %v", res, err)
	}
	if len(list.Items) != 1 || list.Items[0].GetObjectMeta().Name != name || list.ResourceVersion == "" {
		t.Fatalf("list %s by label: %d items, rv %q", res, len(list.Items), list.ResourceVersion)
	}
	if err := r.Delete(ctx, name, rest.DeleteOptions{PropagationPolicy: rest.PropagationBackground}); err != nil {
		t.Fatalf("delete %s: %v", res, err)
	}
	if _, err := r.Get(ctx, name); !rest.IsNotFound(err) && res != rest.Pods && res != rest.Namespaces && res != rest.PersistentVolumeClaims {
		// Pods and namespaces go through graceful deletion, and a claim keeps
		// the kubernetes.io/pvc-protection finalizer that admission adds (no
		// controller here removes it); others vanish at once.
		t.Fatalf("get after delete of %s: %v, want NotFound", res, err)
	}
}

func TestTypedCRUD(t *testing.T) {
	c, ns, ctx := env(t)
	sel := &api.LabelSelector{MatchLabels: map[string]string{"app": "x"}}
	t.Run("Pod", func(t *testing.T) { crud(t, c, ctx, rest.Pods, ns, testPod("p1")) })
	t.Run("ConfigMap", func(t *testing.T) {
		crud(t, c, ctx, rest.ConfigMaps, ns, &api.ConfigMap{ObjectMeta: api.ObjectMeta{Name: "cm"}, Data: map[string]string{"k": "v"}})
	})
	t.Run("ServiceAccount", func(t *testing.T) {
		crud(t, c, ctx, rest.ServiceAccounts, ns, &api.ServiceAccount{ObjectMeta: api.ObjectMeta{Name: "sa"}})
	})
	t.Run("Service", func(t *testing.T) {
		crud(t, c, ctx, rest.Services, ns, &api.Service{ObjectMeta: api.ObjectMeta{Name: "svc"},
			Spec: api.ServiceSpec{Selector: map[string]string{"app": "x"}, Ports: []api.ServicePort{{Port: 80, TargetPort: api.IntOrStringFromString("http")}}}})
	})
	t.Run("Endpoints", func(t *testing.T) {
		crud(t, c, ctx, rest.Endpoints, ns, &api.Endpoints{ObjectMeta: api.ObjectMeta{Name: "ep"},
			Subsets: []api.EndpointSubset{{Addresses: []api.EndpointAddress{{IP: "10.0.0.1"}}, Ports: []api.EndpointPort{{Port: 80}}}}})
	})
	t.Run("EndpointSlice", func(t *testing.T) {
		crud(t, c, ctx, rest.EndpointSlices, ns, &api.EndpointSlice{ObjectMeta: api.ObjectMeta{Name: "es"}, AddressType: api.AddressTypeIPv4,
			Endpoints: []api.Endpoint{{Addresses: []string{"10.0.0.1"}, Conditions: api.EndpointConditions{Ready: ptr(true)}}},
			Ports:     []api.EndpointSlicePort{{Name: ptr("http"), Port: ptr(int32(80))}}})
	})
	t.Run("ReplicaSet", func(t *testing.T) {
		crud(t, c, ctx, rest.ReplicaSets, ns, &api.ReplicaSet{ObjectMeta: api.ObjectMeta{Name: "rs"},
			Spec: api.ReplicaSetSpec{Replicas: ptr(int32(0)), Selector: sel, Template: podTemplate(map[string]string{"app": "x"})}})
	})
	t.Run("Deployment", func(t *testing.T) {
		crud(t, c, ctx, rest.Deployments, ns, &api.Deployment{ObjectMeta: api.ObjectMeta{Name: "d"},
			Spec: api.DeploymentSpec{Replicas: ptr(int32(0)), Selector: sel, Template: podTemplate(map[string]string{"app": "x"})}})
	})
	t.Run("StatefulSet", func(t *testing.T) {
		crud(t, c, ctx, rest.StatefulSets, ns, &api.StatefulSet{ObjectMeta: api.ObjectMeta{Name: "sts"},
			Spec: api.StatefulSetSpec{Replicas: ptr(int32(0)), Selector: sel, ServiceName: "sts", Template: podTemplate(map[string]string{"app": "x"}),
				VolumeClaimTemplates: []api.PersistentVolumeClaim{{ObjectMeta: api.ObjectMeta{Name: "data"},
					Spec: api.PersistentVolumeClaimSpec{AccessModes: []api.PersistentVolumeAccessMode{api.ReadWriteOnce},
						Resources: api.VolumeResourceRequirements{Requests: api.ResourceList{"storage": "1Gi"}}}}}}})
	})
	t.Run("ControllerRevision", func(t *testing.T) {
		crud(t, c, ctx, rest.ControllerRevisions, ns, &api.ControllerRevision{ObjectMeta: api.ObjectMeta{Name: "cr"},
			Data: api.RawExtension{Raw: []byte(`{"spec":{"template":{"$patch":"replace","metadata":{"labels":{"app":"x"}}}}}`)}, Revision: 1})
	})
	t.Run("PersistentVolumeClaim", func(t *testing.T) {
		crud(t, c, ctx, rest.PersistentVolumeClaims, ns, &api.PersistentVolumeClaim{ObjectMeta: api.ObjectMeta{Name: "pvc"},
			Spec: api.PersistentVolumeClaimSpec{AccessModes: []api.PersistentVolumeAccessMode{api.ReadWriteOnce},
				Resources: api.VolumeResourceRequirements{Requests: api.ResourceList{"storage": "1Gi"}}}})
	})
	t.Run("Lease", func(t *testing.T) {
		crud(t, c, ctx, rest.Leases, ns, &api.Lease{ObjectMeta: api.ObjectMeta{Name: "l"},
			Spec: api.LeaseSpec{HolderIdentity: ptr("me"), LeaseDurationSeconds: ptr(int32(15))}})
	})
	t.Run("Namespace", func(t *testing.T) {
		crud(t, c, ctx, rest.Namespaces, "", &api.Namespace{ObjectMeta: api.ObjectMeta{Name: ns + "-extra"}})
	})
}

// TestUnknownFieldsSurviveUpdate: a typed read-modify-write keeps the fields
// kcm's Pod struct does not model (affinity, security contexts, dnsConfig),
// including ones inside a container whose image the update changes.
func TestUnknownFieldsSurviveUpdate(t *testing.T) {
	c, ns, ctx := env(t)
	raw := rest.NewResources(c, rest.Pods, decode.Raw()).InNamespace(ns)
	typed := rest.NewResources(c, rest.Pods, decode.Typed[api.Pod]()).InNamespace(ns)
	obj, err := api.NewRawObject(podgen.UnmodelledPod("rich"))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := raw.Create(ctx, obj); err != nil {
		t.Fatalf("create: %v", err)
	}
	p, err := typed.Get(ctx, "rich")
	if err != nil {
		t.Fatal(err)
	}
	p.Labels = map[string]string{"touched": "yes"}
	p.Spec.Containers[0].Image = "registry.k8s.io/pause:3.9" // image is mutable on a pod
	if _, err := typed.Update(ctx, p); err != nil {
		t.Fatalf("typed update: %v", err)
	}
	after, err := raw.Get(ctx, "rich")
	if err != nil {
		t.Fatal(err)
	}
	for _, path := range [][]string{
		{"spec", "affinity", "nodeAffinity"},
		{"spec", "securityContext", "runAsUser"},
		{"spec", "dnsConfig", "options"},
	} {
		if _, ok, err := after.NestedField(path...); !ok || err != nil {
			t.Errorf("field %v lost by the typed update (err %v)", path, err)
		}
	}
	containers, _, _ := after.NestedField("spec", "containers")
	c0 := containers.([]any)[0].(map[string]any)
	if c0["image"] != "registry.k8s.io/pause:3.9" || c0["securityContext"] == nil {
		t.Errorf("container after update = %v: want the new image and the unmodelled securityContext", c0)
	}
	if after.Labels["touched"] != "yes" {
		t.Errorf("label not written: %v", after.Labels)
	}
}
