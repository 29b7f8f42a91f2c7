package protocodec

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/kcmlab/kcm/kube/api"
	"github.com/kcmlab/kcm/kube/internal/jsonx"
)

// The vectors in testdata/vectors are objects of every kind kcm models,
// written by k8s.io/api's generated code: NAME.pb the protobuf message,
// NAME.json the JSON of the same object (after a protobuf round trip, as
// the apiserver serves an object it stored). testdata/changes/NAME.pb is a
// vector after the change of the same name below, marshalled by the
// generated code. testdata/pbgen holds the throw-away module that wrote
// them (testdata/pbgen/objects.go.txt: the objects and changes).

// vectorKinds makes the kcm object of each vector.
var vectorKinds = map[string]func() api.Object{
	"pod":                func() api.Object { return &api.Pod{} },
	"smallpod":           func() api.Object { return &api.Pod{} },
	"namespace":          func() api.Object { return &api.Namespace{} },
	"serviceaccount":     func() api.Object { return &api.ServiceAccount{} },
	"configmap":          func() api.Object { return &api.ConfigMap{} },
	"secret":             func() api.Object { return &api.Secret{} },
	"node":               func() api.Object { return &api.Node{} },
	"service":            func() api.Object { return &api.Service{} },
	"endpoints":          func() api.Object { return &api.Endpoints{} },
	"endpointslice":      func() api.Object { return &api.EndpointSlice{} },
	"event":              func() api.Object { return &api.CoreEvent{} },
	"pvc":                func() api.Object { return &api.PersistentVolumeClaim{} },
	"resourcequota":      func() api.Object { return &api.ResourceQuota{} },
	"replicaset":         func() api.Object { return &api.ReplicaSet{} },
	"deployment":         func() api.Object { return &api.Deployment{} },
	"statefulset":        func() api.Object { return &api.StatefulSet{} },
	"controllerrevision": func() api.Object { return &api.ControllerRevision{} },
	"lease":              func() api.Object { return &api.Lease{} },
	"resourceclaim":      func() api.Object { return &api.ResourceClaim{} },
	"deviceclass":        func() api.Object { return &api.DeviceClass{} },
}

var t0 = time.Date(2026, 3, 4, 5, 6, 7, 0, time.UTC)

func mt(s int) api.Time { return api.NewTime(t0.Add(time.Duration(s) * time.Second)) }

func ptr[T any](v T) *T { return &v }

// vectorChanges are the changes of testdata/pbgen/vectors.go.txt, made to
// kcm's structs.
var vectorChanges = map[string]struct {
	vector string
	change func(api.Object)
}{
	"pod-image":        {"pod", func(o api.Object) { o.(*api.Pod).Spec.Containers[0].Image = "registry.example/app:v2" }},
	"pod-label-add":    {"pod", func(o api.Object) { o.(*api.Pod).Labels["kcm.test/new"] = "yes" }},
	"pod-label-delete": {"pod", func(o api.Object) { delete(o.(*api.Pod).Labels, "tier") }},
	"pod-condition-status": {"pod", func(o api.Object) {
		c := &o.(*api.Pod).Status.Conditions[1]
		c.Status, c.Reason = api.ConditionFalse, "NotReady"
	}},
	"pod-condition-append": {"pod", func(o api.Object) {
		s := &o.(*api.Pod).Status
		s.Conditions = append(s.Conditions, api.PodCondition{Type: api.DisruptionTarget, Status: api.ConditionTrue, LastTransitionTime: mt(99), Reason: "EvictionByEvictionAPI"})
	}},
	"pod-toleration-remove": {"pod", func(o api.Object) { s := &o.(*api.Pod).Spec; s.Tolerations = s.Tolerations[:1] }},
	"pod-deletion": {"pod", func(o api.Object) {
		m := o.GetObjectMeta()
		m.DeletionTimestamp, m.DeletionGracePeriodSeconds = ptr(mt(100)), ptr(int64(30))
	}},
	"pod-env-value":      {"pod", func(o api.Object) { o.(*api.Pod).Spec.Containers[1].Env[0].Value = "2" }},
	"pod-volume-cm-name": {"pod", func(o api.Object) { o.(*api.Pod).Spec.Volumes[5].ConfigMap.Name = "cfg2" }},
	"pod-probe-port": {"pod", func(o api.Object) {
		o.(*api.Pod).Spec.Containers[0].ReadinessProbe.HTTPGet.Port = api.IntOrStringFromInt(8443)
	}},
	"pod-status-ip":       {"pod", func(o api.Object) { s := &o.(*api.Pod).Status; s.PodIP, s.StartTime = "10.244.9.9", nil }},
	"pod-requests":        {"pod", func(o api.Object) { o.(*api.Pod).Spec.Containers[0].Resources.Requests["cpu"] = "300m" }},
	"pod-running-started": {"pod", func(o api.Object) { o.(*api.Pod).Status.ContainerStatuses[0].State.Running.StartedAt = mt(31) }},
	"replicaset-scale": {"replicaset", func(o api.Object) {
		r := o.(*api.ReplicaSet)
		r.Spec.Replicas, r.Status.ReadyReplicas = ptr(int32(5)), 3
	}},
	"deployment-surge": {"deployment", func(o api.Object) {
		o.(*api.Deployment).Spec.Strategy.RollingUpdate.MaxSurge = ptr(api.IntOrStringFromString("50%"))
	}},
	"deployment-template-image": {"deployment", func(o api.Object) {
		o.(*api.Deployment).Spec.Template.Spec.Containers[0].Image = "registry.example/app:v3"
	}},
	"statefulset-partition": {"statefulset", func(o api.Object) {
		s := o.(*api.StatefulSet)
		s.Spec.UpdateStrategy.RollingUpdate.Partition, s.Status.CurrentRevision = ptr(int32(0)), "web-2"
	}},
	"node-taint-add": {"node", func(o api.Object) {
		s := &o.(*api.Node).Spec
		s.Taints = append(s.Taints, api.Taint{Key: "new", Effect: "NoSchedule"})
	}},
	"node-schedulable":   {"node", func(o api.Object) { o.(*api.Node).Spec.Unschedulable = false }},
	"namespace-finalize": {"namespace", func(o api.Object) { o.(*api.Namespace).Spec.Finalizers = nil }},
	"secret-data":        {"secret", func(o api.Object) { o.(*api.Secret).Data["pw"] = []byte("new") }},
	"configmap-data": {"configmap", func(o api.Object) {
		c := o.(*api.ConfigMap)
		c.Data["k"] = "v2"
		delete(c.Data, "e")
	}},
	"lease-renew": {"lease", func(o api.Object) {
		s := &o.(*api.Lease).Spec
		s.RenewTime, s.HolderIdentity = ptr(api.NewMicroTime(t0.Add(20*time.Second+654321*time.Microsecond))), ptr("node-2_x")
	}},
	"endpointslice-ready": {"endpointslice", func(o api.Object) { o.(*api.EndpointSlice).Endpoints[0].Conditions.Ready = ptr(false) }},
	"resourcequota-used":  {"resourcequota", func(o api.Object) { o.(*api.ResourceQuota).Status.Used["pods"] = "4" }},
	"pvc-phase":           {"pvc", func(o api.Object) { o.(*api.PersistentVolumeClaim).Status.Phase = api.ClaimLost }},
	"service-target":      {"service", func(o api.Object) { o.(*api.Service).Spec.Ports[0].TargetPort = api.IntOrStringFromInt(8080) }},
	"endpoints-notready":  {"endpoints", func(o api.Object) { o.(*api.Endpoints).Subsets[0].NotReadyAddresses = nil }},
	"event-count": {"event", func(o api.Object) {
		e := o.(*api.CoreEvent)
		e.Count, e.LastTimestamp = 4, mt(5)
	}},
	"resourceclaim-count":    {"resourceclaim", func(o api.Object) { o.(*api.ResourceClaim).Spec.Devices.Requests[0].Exactly.Count = 3 }},
	"serviceaccount-mount":   {"serviceaccount", func(o api.Object) { o.(*api.ServiceAccount).AutomountServiceAccountToken = nil }},
	"controllerrevision-rev": {"controllerrevision", func(o api.Object) { o.(*api.ControllerRevision).Revision = 8 }},
	"deviceclass-name":       {"deviceclass", func(o api.Object) { o.(*api.DeviceClass).Spec.ExtendedResourceName = ptr("example.com/gpu2") }},
}

func readFile(t testing.TB, path string) []byte {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// vectorNames lists testdata/vectors, and checks that each has a kind.
func vectorNames(t testing.TB) []string {
	t.Helper()
	files, err := filepath.Glob("testdata/vectors/*.pb")
	if err != nil || len(files) == 0 {
		t.Fatalf("no vectors: %v", err)
	}
	var names []string
	for _, f := range files {
		name := strings.TrimSuffix(filepath.Base(f), ".pb")
		if vectorKinds[name] == nil {
			t.Fatalf("vector %s: no kind", name)
		}
		names = append(names, name)
	}
	sort.Strings(names)
	return names
}

// decodeVector returns a vector's protobuf and its kcm object decoded
// from it.
func decodeVector(t testing.TB, name string) ([]byte, api.Object) {
	t.Helper()
	pb := readFile(t, "testdata/vectors/"+name+".pb")
	obj := vectorKinds[name]()
	if err := Unmarshal(pb, obj); err != nil {
		t.Fatalf("%s: Unmarshal: %v", name, err)
	}
	return pb, obj
}

// diff describes the first difference between a and b, for failures.
func diff(path string, a, b reflect.Value) string {
	if !a.IsValid() || !b.IsValid() {
		return fmt.Sprintf("%s: %v vs %v", path, a, b)
	}
	switch a.Kind() {
	case reflect.Pointer:
		if a.IsNil() || b.IsNil() {
			if a.IsNil() != b.IsNil() {
				return fmt.Sprintf("%s: nil %v vs nil %v", path, a.IsNil(), b.IsNil())
			}
			return ""
		}
		return diff(path, a.Elem(), b.Elem())
	case reflect.Struct:
		for i := 0; i < a.NumField(); i++ {
			if d := diff(path+"."+a.Type().Field(i).Name, a.Field(i), b.Field(i)); d != "" {
				return d
			}
		}
		if a.CanInterface() && b.CanInterface() && !reflect.DeepEqual(a.Interface(), b.Interface()) {
			return fmt.Sprintf("%s: %v vs %v", path, a.Interface(), b.Interface()) // e.g. a time.Time
		}
		return ""
	case reflect.Slice:
		if a.IsNil() != b.IsNil() || a.Len() != b.Len() {
			return fmt.Sprintf("%s: len %d (nil %v) vs len %d (nil %v)", path, a.Len(), a.IsNil(), b.Len(), b.IsNil())
		}
		for i := 0; i < a.Len(); i++ {
			if d := diff(fmt.Sprintf("%s[%d]", path, i), a.Index(i), b.Index(i)); d != "" {
				return d
			}
		}
		return ""
	case reflect.Map:
		if a.IsNil() != b.IsNil() || a.Len() != b.Len() {
			return fmt.Sprintf("%s: len %d (nil %v) vs len %d (nil %v)", path, a.Len(), a.IsNil(), b.Len(), b.IsNil())
		}
		for _, k := range a.MapKeys() {
			if d := diff(fmt.Sprintf("%s[%v]", path, k), a.MapIndex(k), b.MapIndex(k)); d != "" {
				return d
			}
		}
		return ""
	}
	if a.CanInterface() && b.CanInterface() && !reflect.DeepEqual(a.Interface(), b.Interface()) {
		return fmt.Sprintf("%s: %#v vs %#v", path, a.Interface(), b.Interface())
	}
	return ""
}

// TestVectorsDecodeAsJSON: for every vector, Unmarshal (and
// UnmarshalAliasing) of the protobuf is reflect.DeepEqual to what kcm's
// JSON decoding gives for the JSON.
func TestVectorsDecodeAsJSON(t *testing.T) {
	for _, name := range vectorNames(t) {
		t.Run(name, func(t *testing.T) {
			_, got := decodeVector(t, name)
			want := vectorKinds[name]()
			if err := jsonx.Unmarshal(readFile(t, "testdata/vectors/"+name+".json"), want); err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(got, want) {
				t.Fatalf("protobuf and JSON decode differently: %s", diff("", reflect.ValueOf(got), reflect.ValueOf(want)))
			}
			aliased := vectorKinds[name]()
			if err := UnmarshalAliasing(readFile(t, "testdata/vectors/"+name+".pb"), aliased); err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(aliased, want) {
				t.Fatalf("UnmarshalAliasing and JSON decode differently: %s", diff("", reflect.ValueOf(aliased), reflect.ValueOf(want)))
			}
		})
	}
}

// TestMarshalMergeUnchanged: with nothing changed, MarshalMerge gives the
// message as read, byte for byte, whether after is before itself or a
// deep copy of it.
func TestMarshalMergeUnchanged(t *testing.T) {
	for _, name := range vectorNames(t) {
		pb, before := decodeVector(t, name)
		after, err := api.DeepCopy(before)
		if err != nil {
			t.Fatal(err)
		}
		for _, a := range []api.Object{before, after} {
			out, err := MarshalMerge(pb, before, a)
			if err != nil {
				t.Fatalf("%s: %v", name, err)
			}
			if !bytes.Equal(out, pb) {
				t.Fatalf("%s: MarshalMerge of an unchanged object changed its bytes (%d → %d)", name, len(pb), len(out))
			}
		}
	}
}

// TestMarshalMergeChanges: each change, made to the decoded object and
// merged onto the message as read, gives the bytes k8s.io/api's generated
// code writes for the same change made to its own object — unmodelled
// fields around and inside the change kept, element-wise merges of
// containers, conditions and subsets included — and decodes to the
// changed object.
func TestMarshalMergeChanges(t *testing.T) {
	files, _ := filepath.Glob("testdata/changes/*.pb")
	if len(files) != len(vectorChanges) {
		t.Errorf("%d changes in testdata, %d here", len(files), len(vectorChanges))
	}
	for name, c := range vectorChanges {
		t.Run(name, func(t *testing.T) {
			pb, before := decodeVector(t, c.vector)
			after, err := api.DeepCopy(before)
			if err != nil {
				t.Fatal(err)
			}
			c.change(after)
			out, err := MarshalMerge(pb, before, after)
			if err != nil {
				t.Fatal(err)
			}
			want := readFile(t, "testdata/changes/"+name+".pb")
			if !bytes.Equal(out, want) {
				t.Errorf("MarshalMerge gives %d bytes, upstream %d; first difference at %d", len(out), len(want), firstDiff(out, want))
			}
			if bytes.Equal(out, pb) {
				t.Errorf("the change does not show")
			}
			back := vectorKinds[c.vector]()
			if err := Unmarshal(out, back); err != nil {
				t.Fatal(err)
			}
			if !equalMessage(mustMessage(t, back), reflect.ValueOf(back).Elem(), reflect.ValueOf(after).Elem()) {
				t.Errorf("merged message decodes to another object: %s", diff("", reflect.ValueOf(back), reflect.ValueOf(after)))
			}
		})
	}
}

func firstDiff(a, b []byte) int {
	for i := range min(len(a), len(b)) {
		if a[i] != b[i] {
			return i
		}
	}
	return min(len(a), len(b))
}

func mustMessage(t testing.TB, obj any) *message {
	t.Helper()
	m, err := messageOf(reflect.TypeOf(obj).Elem())
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// stripUnknown returns message b of m without the fields m does not
// model, at every depth: what Marshal can write of it.
func stripUnknown(t testing.TB, b []byte, m *message) []byte {
	t.Helper()
	spans, err := scan(b)
	if err != nil {
		t.Fatal(err)
	}
	var out []byte
	for _, s := range spans {
		f := m.lookup(s.num)
		switch {
		case f == nil:
		case f.kind == kMessage && f.card != cMap:
			p, err := payload(b, s)
			if err != nil {
				t.Fatal(err)
			}
			out = appendString(out, s.num, string(stripUnknown(t, p, f.msg)))
		default:
			out = append(out, b[s.start:s.end]...)
		}
	}
	return out
}

// TestMarshalAsUpstream: Marshal of every decoded vector is the generated
// code's bytes less the fields kcm does not model (the generated code
// writes each non-pointer field, so the only difference is what kcm does
// not hold), and decodes back to the same object.
func TestMarshalAsUpstream(t *testing.T) {
	for _, name := range vectorNames(t) {
		pb, obj := decodeVector(t, name)
		out, err := Marshal(obj)
		if err != nil {
			t.Fatal(err)
		}
		if want := stripUnknown(t, pb, mustMessage(t, obj)); !bytes.Equal(out, want) {
			t.Errorf("%s: Marshal gives %d bytes, upstream less unmodelled fields %d; first difference at %d", name, len(out), len(want), firstDiff(out, want))
		}
		back := vectorKinds[name]()
		if err := Unmarshal(out, back); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if !reflect.DeepEqual(back, obj) {
			t.Errorf("%s: Unmarshal(Marshal(x)) != x: %s", name, diff("", reflect.ValueOf(back), reflect.ValueOf(obj)))
		}
	}
}
