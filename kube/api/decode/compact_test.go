package decode_test

import (
	"bytes"
	"reflect"
	"testing"
	"unsafe"

	"github.com/kcmlab/kcm/internal/testing/podgen"
	"github.com/kcmlab/kcm/kube/api"
	"github.com/kcmlab/kcm/kube/api/decode"
	"github.com/kcmlab/kcm/kube/internal/jsonx"
)

// The rule checked by these tests is kcm's design rule for objects: a
// read-modify-write never drops a field kcm does not model. A compact
// object no longer keeps its JSON, so its Raw must rebuild the JSON as
// read — every member, modelled or not — from its struct and remainder.

// compactCase is one object: its JSON and whether Compact describes it by
// a remainder (false: it keeps the whole JSON instead).
type compactCase struct {
	name    string
	json    string
	compact bool
}

// podCases are pods the apiserver may send, and some it would not, each
// stressing one way the struct and the JSON differ.
var podCases = []compactCase{
	{"podgen pod, managedFields cut", string(mustStrip(podgen.Pod(7))), true},
	{"podgen pod with a sidecar", string(mustStrip(sidecarPod())), true},
	{"unmodelled members at every depth", `{"apiVersion":"v1","kind":"Pod","metadata":{"name":"p","uid":"u","futureMeta":{"x":[1,2]}},` +
		`"spec":{"affinity":{"nodeAffinity":{"requiredDuringSchedulingIgnoredDuringExecution":{"nodeSelectorTerms":[]}}},` +
		`"containers":[{"name":"a","image":"i"},{"name":"b","image":"i","securityContext":{"runAsUser":1000},"lifecycle":{"preStop":{"exec":{"command":["x"]}}}}],` +
		`"volumes":[{"name":"v","csi":{"driver":"d"}},{"name":"t","projected":{"sources":[{"clusterTrustBundle":{"path":"p"}}]}}]},` +
		`"status":{"phase":"Running","containerStatuses":[{"name":"a","state":{"running":{"startedAt":"2024-01-02T03:04:05Z","future":1}},"ready":true,"restartCount":0,"image":"i","imageID":"","volumeMounts":[{"name":"v","mountPath":"/v"}]}],"resize":"Proposed"}}`, true},
	{"modelled members the marshaller leaves out when zero", `{"metadata":{"name":"p","generation":0,"labels":{},"finalizers":[],"deletionTimestamp":null},` +
		`"spec":{"hostNetwork":false,"nodeSelector":{},"nodeName":"","activeDeadlineSeconds":null,"priority":0,"containers":[{"name":"c","env":[],"args":null,"ports":[{"containerPort":80,"hostPort":0}]}]},"status":{}}`, true},
	{"members the marshaller writes when the JSON lacks them", `{"metadata":{},"spec":{},"status":{"conditions":[{"type":"Ready"}],"containerStatuses":[{"name":"c"}]}}`, true},
	{"no spec, no status", `{"kind":"Pod","apiVersion":"v1","metadata":{"name":"p"}}`, true},
	{"nulls where the struct writes a value", `{"metadata":{"name":null,"labels":{"a":null,"b":"2"}},"spec":{"containers":[null,{"name":"c","livenessProbe":{"httpGet":{"port":null}}}],"restartPolicy":null},` +
		`"status":{"startTime":null,"containerStatuses":[{"name":"c","state":null,"ready":null,"restartCount":null,"image":"i","imageID":"d"}]}}`, true},
	{"values spelt otherwise than the marshaller spells them", `{"metadata":{"name":"caf\u00e9","creationTimestamp":"2024-01-02T03:04:05.25Z","deletionTimestamp":"2024-01-02T05:04:05+02:00","generation":-0},` +
		`"spec":{"containers":[{"name":"c","ports":[{"containerPort":8080}],"readinessProbe":{"tcpSocket":{"port":"http"}},"startupProbe":{"httpGet":{"port":"8080"}}}]},` +
		`"status":{"conditions":[{"type":"Ready","status":"True","lastProbeTime":"0001-01-01T00:00:00Z","lastTransitionTime":"2024-01-02T03:04:05Z"}]}}`, true},
	{"pretty-printed", "{\n  \"metadata\" : { \"name\" : \"p\" ,\n \"labels\" : {\"a\" : \"b\"} } ,\n \"spec\" : { \"containers\" : [ { \"name\" : \"c\" , \"x\" : [ 1 , { } ] } ] } \n}\n", true},
	{"a modelled key twice", `{"metadata":{"name":"a","name":"b"},"spec":{"containers":[]}}`, false},
	{"an escaped unmodelled key", `{"metadata":{"n\u0061me":"b","name":"a"}}`, false},
	{"a map needing operations with a key twice", `{"metadata":{"labels":{"a":null,"a":"x"}}}`, false},
}

// sidecarPod returns a podgen pod of a workload that runs a sidecar.
func sidecarPod() []byte {
	for i := range 400 {
		if p := podgen.Pod(i); bytes.Contains(p, []byte("log-shipper")) {
			return p
		}
	}
	panic("podgen has no sidecar pod in its first 400")
}

func mustStrip(b []byte) []byte {
	out, err := decode.StripManagedFields(b)
	if err != nil {
		panic(err)
	}
	return out
}

// TestCompactRebuildsTheJSONAsRead: for every case, a compact object's
// Raw is the input as parsed JSON, its typed fields are Typed's, and it
// is described by a remainder exactly when the case says so.
func TestCompactRebuildsTheJSONAsRead(t *testing.T) {
	for _, tc := range podCases {
		t.Run(tc.name, func(t *testing.T) { checkCompact[api.Pod](t, tc) })
	}
	others := []struct {
		name  string
		check func(*testing.T, compactCase)
	}{
		{"ReplicaSet", checkCompact[api.ReplicaSet]},
		{"Deployment", checkCompact[api.Deployment]},
		{"Lease", checkCompact[api.Lease]},
		{"ConfigMap", checkCompact[api.ConfigMap]},
		{"Node", checkCompact[api.Node]},
		{"CoreEvent", checkCompact[api.CoreEvent]},
	}
	inputs := map[string][]compactCase{
		"ReplicaSet": {{"template with creationTimestamp null and an affinity", `{"apiVersion":"apps/v1","kind":"ReplicaSet","metadata":{"name":"rs","annotations":{"deployment.kubernetes.io/revision":"2"}},` +
			`"spec":{"replicas":3,"minReadySeconds":0,"selector":{"matchLabels":{"app":"x"}},"template":{"metadata":{"creationTimestamp":null,"labels":{"app":"x"}},` +
			`"spec":{"affinity":{"podAntiAffinity":{}},"containers":[{"name":"c","image":"i","resources":{}}]}}},"status":{"replicas":3,"observedGeneration":1}}`, true}},
		"Deployment": {{"strategy with percentages", `{"apiVersion":"apps/v1","kind":"Deployment","metadata":{"name":"d","generation":4},"spec":{"replicas":2,` +
			`"selector":{"matchLabels":{"app":"x"}},"strategy":{"type":"RollingUpdate","rollingUpdate":{"maxSurge":"25%","maxUnavailable":0}},"revisionHistoryLimit":10,"progressDeadlineSeconds":600,` +
			`"template":{"metadata":{"creationTimestamp":null},"spec":{"containers":[{"name":"c","image":"i"}],"schedulerName":"default-scheduler"}}},"status":{"conditions":[{"type":"Available","status":"True","lastUpdateTime":"2024-01-02T03:04:05Z","lastTransitionTime":"2024-01-02T03:04:05Z","reason":"MinimumReplicasAvailable","message":"ok"}]}}`, true}},
		"Lease": {{"micro times, one spelt short", `{"apiVersion":"coordination.k8s.io/v1","kind":"Lease","metadata":{"name":"l"},"spec":{"holderIdentity":"me","leaseDurationSeconds":15,` +
			`"acquireTime":"2024-01-02T03:04:05.123456Z","renewTime":"2024-01-02T03:04:05.123Z","leaseTransitions":0}}`, true}},
		"ConfigMap": {{"data and binaryData", `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"c"},"data":{"k":"v","e":""},"binaryData":{"b":"AAEC"},"immutable":false}`, true}},
		"Node": {{"capacity and an unmodelled daemonEndpoints", `{"apiVersion":"v1","kind":"Node","metadata":{"name":"n"},"spec":{"taints":[{"key":"k","effect":"NoSchedule","timeAdded":null}]},` +
			`"status":{"capacity":{"cpu":"4"},"daemonEndpoints":{"kubeletEndpoint":{"Port":10250}},"nodeInfo":{"kernelVersion":"6"}}}`, true}},
		"CoreEvent": {{"an event with eventTime null", `{"apiVersion":"v1","kind":"Event","metadata":{"name":"e"},"involvedObject":{"kind":"Pod","name":"p"},"reason":"Created","eventTime":null,"reportingComponent":"","reportingInstance":"","count":1}`, true}},
	}
	for _, o := range others {
		for _, tc := range inputs[o.name] {
			t.Run(o.name+"/"+tc.name, func(t *testing.T) { o.check(t, tc) })
		}
	}
}

func checkCompact[S any, P api.TypedPtr[S]](t *testing.T, tc compactCase) {
	t.Helper()
	obj, err := decode.Compact[S, P]().Decode([]byte(tc.json))
	if err != nil {
		t.Fatalf("decode: %v", err)
	}
	typed, err := decode.Typed[S, P]().Decode([]byte(tc.json))
	if err != nil {
		t.Fatalf("Typed decode: %v", err)
	}
	if a, b := mustMarshal(t, obj), mustMarshal(t, typed); !bytes.Equal(a, b) {
		t.Errorf("typed fields differ from Typed's:\n got %s\nwant %s", a, b)
	}
	raw, err := obj.GetObjectMeta().Original()
	if err != nil {
		t.Fatalf("Original: %v", err)
	}
	if !sameJSON(t, raw, []byte(tc.json)) {
		t.Errorf("rebuilt JSON differs from the input:\n got %s\nwant %s", raw, tc.json)
	}
	if !bytes.Equal(obj.GetObjectMeta().Raw(), raw) {
		t.Error("Raw and Original differ")
	}
	if got := decode.IsCompact(obj.GetObjectMeta()); got != tc.compact {
		t.Errorf("described by a remainder: %v, want %v", got, tc.compact)
	}
	if !tc.compact && string(raw) != tc.json {
		t.Errorf("an object that kept its JSON must give it back byte for byte: %s", raw)
	}
}

func mustMarshal(t *testing.T, v any) []byte {
	t.Helper()
	b, err := jsonx.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// sameJSON reports whether a and b are the same JSON value, numbers
// compared as written.
func sameJSON(t *testing.T, a, b []byte) bool {
	t.Helper()
	var va, vb any
	if err := jsonx.UnmarshalNumbers(a, &va); err != nil {
		t.Fatalf("%v: %s", err, a)
	}
	if err := jsonx.UnmarshalNumbers(b, &vb); err != nil {
		t.Fatalf("%v: %s", err, b)
	}
	return reflect.DeepEqual(va, vb)
}

// TestCompactCopiesRememberTheOriginal: DeepCopy of a compact object, and
// a shallow copy, changed afterwards, still give the JSON as read (what a
// write merges the changes onto); the cached object and its siblings are
// untouched by changes to a deep copy.
func TestCompactCopiesRememberTheOriginal(t *testing.T) {
	c := decode.StrippingManagedFields(decode.Compact[api.Pod]())
	a, err := c.Decode(podgen.Pod(0))
	if err != nil {
		t.Fatal(err)
	}
	b, err := c.Decode(podgen.Pod(1)) // a sibling: same ReplicaSet
	if err != nil {
		t.Fatal(err)
	}
	before := mustMarshal(t, b)
	cp, err := api.DeepCopy(a)
	if err != nil {
		t.Fatal(err)
	}
	cp.Labels["app"] = "changed"
	cp.Spec.Containers[0].Image = "changed"
	cp.Spec.Tolerations[0].Key = "changed"
	shallow := *a
	shallow.Spec.NodeName = "changed"
	for name, obj := range map[string]*api.Pod{"deep copy": cp, "shallow copy": &shallow} {
		if !sameJSON(t, obj.Raw(), mustStrip(podgen.Pod(0))) {
			t.Errorf("%s: Raw after changes = %s, want the pod as read", name, obj.Raw())
		}
	}
	if a.Labels["app"] == "changed" || a.Spec.Containers[0].Image == "changed" || a.Spec.NodeName == "changed" {
		t.Error("changing a copy changed the cached object")
	}
	if after := mustMarshal(t, b); !bytes.Equal(before, after) {
		t.Errorf("changing a copy changed a sibling:\n%s\n%s", before, after)
	}
}

// TestCompactSharesRepeatedParts: the replicas of one ReplicaSet share
// their labels, owner references, tolerations, container images and
// pointed-to values; what is their own (name, uid, the token volume)
// stays apart; slices hold no spare capacity.
func TestCompactSharesRepeatedParts(t *testing.T) {
	c := decode.StrippingManagedFields(decode.Compact[api.Pod]())
	var pods []*api.Pod
	for i := range podgen.ReplicasPerSet {
		p, err := c.Decode(podgen.Pod(i))
		if err != nil {
			t.Fatal(err)
		}
		pods = append(pods, p)
	}
	a, b := pods[2], pods[3] // the first ones seed the tables
	same := func(what string, x, y unsafe.Pointer) {
		t.Helper()
		if x != y {
			t.Errorf("%s not shared", what)
		}
	}
	same("labels", reflect.ValueOf(a.Labels).UnsafePointer(), reflect.ValueOf(b.Labels).UnsafePointer())
	same("owner references", unsafe.Pointer(&a.OwnerReferences[0]), unsafe.Pointer(&b.OwnerReferences[0]))
	same("tolerations", unsafe.Pointer(&a.Spec.Tolerations[0]), unsafe.Pointer(&b.Spec.Tolerations[0]))
	same("projected volume", unsafe.Pointer(a.Spec.Volumes[0].Projected), unsafe.Pointer(b.Spec.Volumes[0].Projected))
	same("terminationGracePeriodSeconds", unsafe.Pointer(a.Spec.TerminationGracePeriodSeconds), unsafe.Pointer(b.Spec.TerminationGracePeriodSeconds))
	same("image", unsafe.Pointer(unsafe.StringData(a.Spec.Containers[0].Image)), unsafe.Pointer(unsafe.StringData(b.Status.ContainerStatuses[0].Image)))
	same("requests", reflect.ValueOf(a.Spec.Containers[0].Resources.Requests).UnsafePointer(), reflect.ValueOf(b.Spec.Containers[0].Resources.Requests).UnsafePointer())
	if a.Name == b.Name || a.UID == b.UID || a.Spec.Volumes[0].Name == b.Spec.Volumes[0].Name {
		t.Fatal("podgen siblings are expected to differ in name, uid and token volume")
	}
	if unsafe.Pointer(&a.Spec.Volumes[0]) == unsafe.Pointer(&b.Spec.Volumes[0]) {
		t.Error("volumes with different names shared")
	}
	if n := len(a.Status.Conditions); n != 5 || cap(a.Status.Conditions) != n {
		t.Errorf("conditions: len %d cap %d, want 5 and 5", n, cap(a.Status.Conditions))
	}
}

// TestCompactDecodesLikeTypedWhenStripping: the stripping wrapper cuts
// managedFields from a compact object's JSON as it does from Typed's, and
// the borrowed buffer is not kept.
func TestCompactDecodesLikeTypedWhenStripping(t *testing.T) {
	in := podgen.Pod(3)
	buf := bytes.Clone(in)
	obj, err := decode.Borrowed(decode.StrippingManagedFields(decode.Compact[api.Pod]()), buf)
	if err != nil {
		t.Fatal(err)
	}
	copy(buf, bytes.Repeat([]byte{'x'}, len(buf)))
	if !sameJSON(t, obj.Raw(), mustStrip(in)) {
		t.Fatalf("Raw = %s, want the pod without managedFields", obj.Raw())
	}
	kept, err := decode.StrippingManagedFields(decode.Compact[api.Pod]()).Decode(bytes.Clone(in))
	if err != nil || !sameJSON(t, kept.Raw(), mustStrip(in)) {
		t.Fatalf("Decode: %v, Raw %s", err, kept.Raw())
	}
	whole, err := decode.Compact[api.Pod]().Decode(bytes.Clone(in))
	if err != nil || !sameJSON(t, whole.Raw(), in) {
		t.Fatalf("without the strip the rebuilt JSON must keep managedFields: %v", err)
	}
}

// TestCompactCachedSharesWithTheVersionItReplaces: a new version of a
// cached pod (a watch event's), decoded right after another workload's
// pod, takes the parts it did not change from the cached version — even
// those that are that pod's alone (its uid, IP, token volume), which the
// object decoded before cannot give and the tables do not keep — and is
// otherwise the same object Typed decodes, its JSON rebuilt as read. The
// uid is read before the name is decoded: only the managedFields cut,
// which finds the name first, can give its hint.
func TestCompactCachedSharesWithTheVersionItReplaces(t *testing.T) {
	cache := map[string]*api.Pod{}
	c := decode.StrippingManagedFields(decode.CompactCached[api.Pod](func(namespace, name string) (*api.Pod, bool) {
		p, ok := cache[namespace+"/"+name]
		return p, ok
	}))
	decodeNext := func(in []byte) *api.Pod {
		t.Helper()
		p, err := c.Decode(bytes.Clone(in))
		if err != nil {
			t.Fatal(err)
		}
		cache[p.Key()] = p
		return p
	}
	for i := range 300 { // the tables learn which fields are unique per pod
		decodeNext(podgen.Pod(i))
	}
	const target = 100
	v1 := cache[decodeNext(podgen.Pod(target)).Key()]
	decodeNext(podgen.Pod(1000)) // another workload's pod: the object decoded before
	in := podgen.PodVersion(target, 1, "999999")
	v2 := decodeNext(in)
	if v2 == v1 || v2.ResourceVersion != "999999" {
		t.Fatalf("the new version was not decoded: rv %q", v2.ResourceVersion)
	}
	same := func(what string, x, y unsafe.Pointer) {
		t.Helper()
		if x != y {
			t.Errorf("%s not taken from the cached version", what)
		}
	}
	same("uid", unsafe.Pointer(unsafe.StringData(v1.UID)), unsafe.Pointer(unsafe.StringData(v2.UID)))
	same("pod IP", unsafe.Pointer(unsafe.StringData(v1.Status.PodIP)), unsafe.Pointer(unsafe.StringData(v2.Status.PodIP)))
	same("token volume", unsafe.Pointer(&v1.Spec.Volumes[0]), unsafe.Pointer(&v2.Spec.Volumes[0]))
	same("containers", unsafe.Pointer(&v1.Spec.Containers[0]), unsafe.Pointer(&v2.Spec.Containers[0]))
	if v1.Status.ContainerStatuses[0].RestartCount == v2.Status.ContainerStatuses[0].RestartCount {
		t.Error("podgen's new version is expected to restart its container")
	}
	typed, err := decode.StrippingManagedFields(decode.Typed[api.Pod]()).Decode(bytes.Clone(in))
	if err != nil {
		t.Fatal(err)
	}
	if a, b := mustMarshal(t, v2), mustMarshal(t, typed); !bytes.Equal(a, b) {
		t.Errorf("typed fields differ from Typed's:\n got %s\nwant %s", a, b)
	}
	if !sameJSON(t, v2.Raw(), mustStrip(in)) {
		t.Errorf("rebuilt JSON differs from the input:\n got %s\nwant %s", v2.Raw(), mustStrip(in))
	}
}

// TestCompactCachedKeepsNullAndEmptyApart: a part taken from the cached
// version must be equal to the decoded one as JSON, not only as a Go value
// compared leniently: a nil slice is written null and an empty one [] (a
// modelled field without omitempty, projected.sources here), a nil map is
// null and an empty one {}. Found by bench/fidelity (issue 25): a volume
// shared with the cached version turned "sources": [] into null, and back.
func TestCompactCachedKeepsNullAndEmptyApart(t *testing.T) {
	empty := `{"metadata":{"name":"a","namespace":"n"},"spec":{"containers":[],"volumes":[{"name":"v","projected":{"sources":[]}}]}}`
	null := `{"metadata":{"name":"a","namespace":"n"},"spec":{"containers":null,"volumes":[{"name":"v","projected":{"sources":null}}]}}`
	for _, order := range [][2]string{{empty, null}, {null, empty}} {
		var cached *api.Pod
		c := decode.CompactCached[api.Pod](func(namespace, name string) (*api.Pod, bool) { return cached, cached != nil })
		for _, in := range order {
			p, err := c.Decode([]byte(in))
			if err != nil {
				t.Fatal(err)
			}
			cached = p
			if !sameJSON(t, p.Raw(), []byte(in)) {
				t.Errorf("after %s:\n got %s\nwant %s", order[0], p.Raw(), in)
			}
		}
	}
}
