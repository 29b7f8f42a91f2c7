package rest_test

import (
	"bytes"
	"reflect"
	"strconv"
	"testing"

	"github.com/kcmlab/kcm/internal/testing/podgen"
	"github.com/kcmlab/kcm/kube/api"
	"github.com/kcmlab/kcm/kube/api/decode"
	"github.com/kcmlab/kcm/kube/internal/jsonx"
	"github.com/kcmlab/kcm/kube/rest"
)

// Typed read-modify-write on protobuf against the real kube-apiserver:
// an object created from JSON with fields kcm's struct does not model,
// read as protobuf by a typed client (decode.Typed) and by a cache's
// codec (StrippingManagedFields(CompactCached), as informer.For decodes),
// changed, and written back with Update and UpdateStatus, keeps every
// field it had but the changes — compared on the JSON the server holds.

// at returns the value at path in m ("0" indexes a list), and whether
// there is one.
func at(m any, path ...string) (any, bool) {
	for _, k := range path {
		switch v := m.(type) {
		case map[string]any:
			var ok bool
			if m, ok = v[k]; !ok {
				return nil, false
			}
		case []any:
			i, err := strconv.Atoi(k)
			if err != nil || i >= len(v) {
				return nil, false
			}
			m = v[i]
		default:
			return nil, false
		}
	}
	return m, true
}

// protoRMW is one kind's case.
type protoRMW struct {
	res rest.Resource
	obj map[string]any // created as JSON; metadata.name is set
	// unmodelled: paths the server holds that kcm's struct drops.
	unmodelled [][]string
	// setStatus changes the object's status (nil: no status update);
	// statusDone checks it on the server's JSON.
	setStatus  func(obj api.Object)
	statusDone func(m map[string]any) bool
}

func runProtoRMW[S any, P api.TypedPtr[S]](t *testing.T, c protoRMW) {
	js, pb, ns, ctx := pbEnv(t)
	name := "rmw-" + ns
	if c.res.Namespaced {
		name = "rmw"
	} else {
		ns = ""
	}
	c.obj["metadata"] = map[string]any{"name": name, "labels": map[string]any{"app": "web"}, "annotations": map[string]any{"a": "b"}}
	in, err := api.NewRawObject(c.obj)
	if err != nil {
		t.Fatal(err)
	}
	jraw := rest.NewResources(js, c.res, decode.Raw()).InNamespace(ns)
	if _, err := jraw.Create(ctx, in); err != nil {
		t.Fatal(err)
	}
	if !c.res.Namespaced {
		t.Cleanup(func() { _ = jraw.Delete(ctx, name, rest.DeleteOptions{}) })
	}
	jsonMap := func() map[string]any {
		t.Helper()
		o, err := jraw.Get(ctx, name)
		if err != nil {
			t.Fatal(err)
		}
		m, err := o.Map()
		if err != nil {
			t.Fatal(err)
		}
		return m
	}
	before := jsonMap()
	// The fields are really unmodelled: the struct's own JSON lacks them.
	jtyped, err := rest.NewResources(js, c.res, decode.Typed[S, P]()).InNamespace(ns).Get(ctx, name)
	if err != nil {
		t.Fatal(err)
	}
	var projected map[string]any
	if b, err := jsonx.Marshal(jtyped); err != nil || jsonx.Unmarshal(b, &projected) != nil {
		t.Fatalf("struct JSON: %v", err)
	}
	for _, p := range c.unmodelled {
		if _, ok := at(before, p...); !ok {
			t.Fatalf("%v: not on the server", p)
		}
		if _, ok := at(projected, p...); ok {
			t.Fatalf("%v: modelled by %T", p, jtyped)
		}
	}
	kept := func(m map[string]any, what string) {
		t.Helper()
		for _, p := range c.unmodelled {
			got, ok := at(m, p...)
			want, _ := at(before, p...)
			if !ok || !reflect.DeepEqual(got, want) {
				t.Errorf("%s lost or changed %v: %v, want %v", what, p, got, want)
			}
		}
	}

	// Update through a typed client: a label added.
	typed := rest.NewResources(pb, c.res, decode.Typed[S, P]()).InNamespace(ns)
	o, err := typed.Get(ctx, name)
	if err != nil {
		t.Fatal(err)
	}
	if !o.GetObjectMeta().IsProto() {
		t.Fatal("the typed Get did not read protobuf")
	}
	cp, err := api.DeepCopy(o)
	if err != nil {
		t.Fatal(err)
	}
	cp.GetObjectMeta().Labels["kcm.test/touched"] = "yes"
	up, err := typed.Update(ctx, cp)
	if err != nil {
		t.Fatalf("update: %v", err)
	}
	if !up.GetObjectMeta().IsProto() || up.GetObjectMeta().Labels["kcm.test/touched"] != "yes" {
		t.Fatalf("update answered %+v", up.GetObjectMeta())
	}
	after := jsonMap()
	for k, v := range before {
		if k != "metadata" && !reflect.DeepEqual(after[k], v) {
			t.Errorf("update changed %s:\nbefore %v\nafter  %v", k, v, after[k])
		}
	}
	wantLabels := map[string]any{"kcm.test/touched": "yes"}
	if l, ok := at(before, "metadata", "labels"); ok {
		for k, v := range l.(map[string]any) {
			wantLabels[k] = v // the server's own too (a namespace's name label)
		}
	}
	if got, _ := at(after, "metadata", "labels"); !reflect.DeepEqual(got, wantLabels) {
		t.Errorf("labels %v, want %v", got, wantLabels)
	}
	if got, _ := at(after, "metadata", "annotations"); !reflect.DeepEqual(got, map[string]any{"a": "b"}) {
		t.Errorf("annotations %v", got)
	}
	kept(after, "update")

	// The object as a cache holds it: the struct and the remainder; the
	// message they rebuild is the server's, managedFields cut, byte for
	// byte.
	cache := rest.NewResources(pb, c.res, decode.StrippingManagedFields(decode.CompactCached[S, P](
		func(string, string) (P, bool) { return nil, false }))).InNamespace(ns)
	co, err := cache.Get(ctx, name)
	if err != nil {
		t.Fatal(err)
	}
	if !co.GetObjectMeta().IsProto() {
		t.Fatal("the cache codec did not read protobuf")
	}
	wire, err := rest.NewResources(pb, c.res, decode.StrippingManagedFields(decode.Wire())).InNamespace(ns).Get(ctx, name)
	if err != nil {
		t.Fatal(err)
	}
	if msg, err := co.GetObjectMeta().OriginalProto(); err != nil || !bytes.Equal(msg, wire.Proto()) ||
		wire.ResourceVersion != co.GetObjectMeta().ResourceVersion {
		t.Fatalf("the cache's rebuilt message differs from the server's (%v): %d bytes, want %d", err, len(msg), len(wire.Proto()))
	}
	if c.setStatus == nil {
		return
	}

	// UpdateStatus of a copy of the cached object.
	cp, err = api.DeepCopy(co)
	if err != nil {
		t.Fatal(err)
	}
	c.setStatus(cp)
	if _, err := cache.UpdateStatus(ctx, cp); err != nil {
		t.Fatalf("update status: %v", err)
	}
	final := jsonMap()
	if !c.statusDone(final) {
		t.Errorf("status not written: %v", final["status"])
	}
	for k, v := range after {
		if k != "metadata" && k != "status" && !reflect.DeepEqual(final[k], v) {
			t.Errorf("status update changed %s:\nbefore %v\nafter  %v", k, v, final[k])
		}
	}
	kept(final, "status update")
	mf := func(m map[string]any) int {
		l, _ := at(m, "metadata", "managedFields")
		s, _ := l.([]any)
		return len(s)
	}
	if mf(after) == 0 || mf(final) < mf(after) {
		t.Errorf("managedFields: %d entries after the update, %d after the status update", mf(after), mf(final))
	}
}

func hasCondition(m map[string]any, typ string) bool {
	conds, _ := at(m, "status", "conditions")
	l, _ := conds.([]any)
	for _, c := range l {
		if c, _ := c.(map[string]any); c["type"] == typ && c["status"] == "True" {
			return true
		}
	}
	return false
}

// TestProtoTypedWriteKeepsEveryField: pods, namespaces, service
// accounts, nodes and services (see above).
func TestProtoTypedWriteKeepsEveryField(t *testing.T) {
	t.Run("pod", func(t *testing.T) {
		obj := podgen.UnmodelledPod("")
		obj["spec"].(map[string]any)["readinessGates"] = []any{map[string]any{"conditionType": "kcm.test/gate"}}
		runProtoRMW[api.Pod](t, protoRMW{res: rest.Pods, obj: obj,
			unmodelled: [][]string{
				{"spec", "affinity", "nodeAffinity"}, {"spec", "securityContext", "runAsUser"},
				{"spec", "dnsConfig", "options"}, {"spec", "containers", "0", "securityContext"},
			},
			setStatus: func(o api.Object) {
				p := o.(*api.Pod)
				p.Status.Conditions = append(p.Status.Conditions, api.PodCondition{Type: "kcm.test/gate", Status: "True"})
			},
			statusDone: func(m map[string]any) bool { return hasCondition(m, "kcm.test/gate") },
		})
	})
	t.Run("namespace", func(t *testing.T) {
		runProtoRMW[api.Namespace](t, protoRMW{res: rest.Namespaces,
			obj: map[string]any{"apiVersion": "v1", "kind": "Namespace"},
			setStatus: func(o api.Object) {
				n := o.(*api.Namespace)
				n.Status.Conditions = append(n.Status.Conditions, api.NamespaceCondition{Type: "kcm.test/cond", Status: "True"})
			},
			statusDone: func(m map[string]any) bool { return hasCondition(m, "kcm.test/cond") },
		})
	})
	t.Run("serviceaccount", func(t *testing.T) {
		runProtoRMW[api.ServiceAccount](t, protoRMW{res: rest.ServiceAccounts,
			obj: map[string]any{"apiVersion": "v1", "kind": "ServiceAccount",
				"secrets": []any{map[string]any{"name": "s1"}}, "automountServiceAccountToken": false},
		})
	})
	t.Run("node", func(t *testing.T) {
		runProtoRMW[api.Node](t, protoRMW{res: rest.Nodes,
			obj: map[string]any{"apiVersion": "v1", "kind": "Node",
				"spec": map[string]any{"podCIDR": "10.9.0.0/24", "externalID": "ext-1"},
				"status": map[string]any{
					"nodeInfo":        map[string]any{"machineID": "m1", "kubeletVersion": "v1.37.2", "architecture": "amd64"},
					"daemonEndpoints": map[string]any{"kubeletEndpoint": map[string]any{"Port": 10250}},
					"images":          []any{map[string]any{"names": []any{"registry.k8s.io/pause:3.10"}, "sizeBytes": 1000}},
				}},
			unmodelled: [][]string{{"spec", "externalID"}, {"status", "nodeInfo"}, {"status", "daemonEndpoints"}, {"status", "images"}},
			setStatus: func(o api.Object) {
				n := o.(*api.Node)
				n.Status.Conditions = append(n.Status.Conditions, api.NodeCondition{Type: "kcm.test/cond", Status: "True"})
			},
			statusDone: func(m map[string]any) bool { return hasCondition(m, "kcm.test/cond") },
		})
	})
	t.Run("service", func(t *testing.T) {
		runProtoRMW[api.Service](t, protoRMW{res: rest.Services,
			obj: map[string]any{"apiVersion": "v1", "kind": "Service",
				"spec": map[string]any{"ports": []any{map[string]any{"port": 80}}, "selector": map[string]any{"app": "web"},
					"sessionAffinity": "ClientIP", "sessionAffinityConfig": map[string]any{"clientIP": map[string]any{"timeoutSeconds": 300}},
					"externalIPs": []any{"198.51.100.7"}}},
			unmodelled: [][]string{{"spec", "sessionAffinity"}, {"spec", "sessionAffinityConfig"}, {"spec", "externalIPs"}, {"spec", "internalTrafficPolicy"}},
		})
	})
}

// TestProtoTypedCreateCopyKeepsEveryField: a copy of a pod read as
// protobuf, renamed and created, is created with every field of the
// original kcm does not model (Create sends the merge onto the message
// read).
func TestProtoTypedCreateCopyKeepsEveryField(t *testing.T) {
	js, pb, ns, ctx := pbEnv(t)
	in, err := api.NewRawObject(podgen.UnmodelledPod("orig"))
	if err != nil {
		t.Fatal(err)
	}
	jraw := rest.NewResources(js, rest.Pods, decode.Raw()).InNamespace(ns)
	if _, err := jraw.Create(ctx, in); err != nil {
		t.Fatal(err)
	}
	typed := rest.NewResources(pb, rest.Pods, decode.Typed[api.Pod]()).InNamespace(ns)
	o, err := typed.Get(ctx, "orig")
	if err != nil || !o.IsProto() {
		t.Fatalf("get: protobuf %v, %v", o != nil && o.IsProto(), err)
	}
	cp, err := api.DeepCopy(o)
	if err != nil {
		t.Fatal(err)
	}
	cp.Name, cp.UID, cp.ResourceVersion, cp.CreationTimestamp = "copy", "", "", api.Time{}
	if _, err := typed.Create(ctx, cp); err != nil {
		t.Fatalf("create: %v", err)
	}
	got, err := jraw.Get(ctx, "copy")
	if err != nil {
		t.Fatal(err)
	}
	m, err := got.Map()
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range [][]string{
		{"spec", "affinity", "nodeAffinity"}, {"spec", "securityContext", "runAsUser"},
		{"spec", "dnsConfig", "options"}, {"spec", "containers", "0", "securityContext"},
	} {
		if _, ok := at(m, p...); !ok {
			t.Errorf("the copy lacks %v", p)
		}
	}
}
