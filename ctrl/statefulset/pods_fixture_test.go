package statefulset

import (
	"context"
	"encoding/json"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/rs/zerolog"

	"github.com/kcmlab/kcm/informer"
	"github.com/kcmlab/kcm/internal/testing/resttest"
	"github.com/kcmlab/kcm/kube/api"
	"github.com/kcmlab/kcm/kube/api/decode"
	"github.com/kcmlab/kcm/kube/rest"
)

// Builders and the fake-apiserver fixture of the pod-control tests
// (names prefixed pc so as not to meet the other files' helpers).

// pcSetJSON is a StatefulSet as the apiserver sends it: defaults filled
// in, a template with fields kcm does not model (affinity, a readiness
// probe, topology spread), empty objects (securityContext {}, emptyDir
// {}, resources {}), a template volume named like the claim template (the
// claim's volume replaces it), and a claim template with unmodelled
// fields (volumeAttributesClassName, dataSourceRef) and its status.
const pcSetJSON = `{"apiVersion":"apps/v1","kind":"StatefulSet",
"metadata":{"name":"web","namespace":"ns","uid":"uid-web","resourceVersion":"5","generation":1,"labels":{"team":"a"}},
"spec":{"replicas":3,"selector":{"matchLabels":{"app":"web"}},"serviceName":"nginx",
 "podManagementPolicy":"OrderedReady","updateStrategy":{"type":"RollingUpdate","rollingUpdate":{"partition":0}},
 "revisionHistoryLimit":10,"persistentVolumeClaimRetentionPolicy":{"whenDeleted":"Retain","whenScaled":"Retain"},
 "template":{"metadata":{"labels":{"app":"web"},"annotations":{"note":"a<b"},"finalizers":["example.com/keep"]},
  "spec":{"affinity":{"podAntiAffinity":{"preferredDuringSchedulingIgnoredDuringExecution":[{"weight":100,
    "podAffinityTerm":{"labelSelector":{"matchLabels":{"app":"web"}},"topologyKey":"kubernetes.io/hostname"}}]}},
   "topologySpreadConstraints":[{"maxSkew":1,"topologyKey":"zone","whenUnsatisfiable":"ScheduleAnyway"}],
   "securityContext":{},"hostname":"ignored","subdomain":"ignored-too","terminationGracePeriodSeconds":30,
   "volumes":[{"name":"scratch","emptyDir":{}},{"name":"data","emptyDir":{"medium":"Memory"}}],
   "containers":[{"name":"c","image":"nginx:1.27","resources":{},
    "readinessProbe":{"httpGet":{"path":"/healthz","port":8080},"periodSeconds":5},
    "volumeMounts":[{"name":"data","mountPath":"/data"},{"name":"scratch","mountPath":"/tmp"}]}]}},
 "volumeClaimTemplates":[{"apiVersion":"v1","kind":"PersistentVolumeClaim",
  "metadata":{"name":"data","labels":{"app":"other","tier":"db"},"annotations":{"backup":"daily"}},
  "spec":{"accessModes":["ReadWriteOnce"],"resources":{"requests":{"storage":"1Gi"}},
   "volumeAttributesClassName":"gold","dataSourceRef":{"kind":"VolumeSnapshot","name":"snap","apiGroup":"snapshot.storage.k8s.io"}},
  "status":{"phase":"Pending"}}]},
"status":{"replicas":0,"availableReplicas":0}}`

// pcSet decodes pcSetJSON, changed by edit (nil: as it is), as a set read
// from the apiserver: its Original() is that JSON.
func pcSet(t testing.TB, edit func(m map[string]any)) *api.StatefulSet {
	t.Helper()
	return pcDecode[api.StatefulSet](t, []byte(pcSetJSON), edit)
}

// pcDecode decodes data as a T after edit changed its generic form.
func pcDecode[S any, P api.TypedPtr[S]](t testing.TB, data []byte, edit func(m map[string]any)) P {
	t.Helper()
	if edit != nil {
		var m map[string]any
		if err := json.Unmarshal(data, &m); err != nil {
			t.Fatal(err)
		}
		edit(m)
		var err error
		if data, err = json.Marshal(m); err != nil {
			t.Fatal(err)
		}
	}
	out, err := decode.Typed[S, P]().Decode(data)
	if err != nil {
		t.Fatalf("decode %T: %v", out, err)
	}
	return out
}

// obj walks m along keys, creating objects on the way.
func obj(m map[string]any, keys ...string) map[string]any {
	for _, k := range keys {
		next, ok := m[k].(map[string]any)
		if !ok {
			next = map[string]any{}
			m[k] = next
		}
		m = next
	}
	return m
}

// pcLivePod is set's pod for ordinal as the apiserver holds it once
// created (uid uid-<name>, resourceVersion 3, phase Running), read back
// as JSON, changed by edit.
func pcLivePod(t testing.TB, set *api.StatefulSet, ordinal int, edit func(m map[string]any)) *api.Pod {
	t.Helper()
	pod, err := newVersionedStatefulSetPod(set, set, "web-rev1", "web-rev1", ordinal)
	if err != nil {
		t.Fatal(err)
	}
	raw, err := pod.Original()
	if err != nil {
		t.Fatal(err)
	}
	return pcDecode[api.Pod](t, raw, func(m map[string]any) {
		meta := obj(m, "metadata")
		meta["uid"] = "uid-" + pod.Name
		meta["resourceVersion"] = "3"
		obj(m, "status")["phase"] = "Running"
		if edit != nil {
			edit(m)
		}
	})
}

// pcLiveClaim is set's claim of pod as the apiserver holds it (uid
// uid-<name>, resourceVersion 4), changed by edit.
func pcLiveClaim(t testing.TB, set *api.StatefulSet, pod *api.Pod, edit func(m map[string]any)) *api.PersistentVolumeClaim {
	t.Helper()
	claims, err := getPersistentVolumeClaims(set, pod)
	if err != nil || len(claims) != 1 {
		t.Fatalf("claims of %s: %v (%d)", pod.Name, err, len(claims))
	}
	raw, err := claims[0].Original()
	if err != nil {
		t.Fatal(err)
	}
	return pcDecode[api.PersistentVolumeClaim](t, raw, func(m map[string]any) {
		meta := obj(m, "metadata")
		meta["uid"] = "uid-" + claims[0].Name
		meta["resourceVersion"] = "4"
		obj(m, "status")["phase"] = "Bound"
		if edit != nil {
			edit(m)
		}
	})
}

// pcFixture is a statefulPodControl on the recording fake apiserver, its
// listers loaded with the objects the server starts with.
type pcFixture struct {
	t      *testing.T
	api    *resttest.Server
	events *resttest.Events
	pc     *statefulPodControl
	waits  []time.Duration // the pauses between conflicting updates
}

func newPCFixture(t *testing.T, pods []*api.Pod, claims []*api.PersistentVolumeClaim) *pcFixture {
	f := &pcFixture{t: t, events: &resttest.Events{}}
	f.api = resttest.New(t, resttest.Options{})
	resttest.Add(f.api, rest.Pods, pods...)
	resttest.Add(f.api, rest.PersistentVolumeClaims, claims...)
	f.pc = newPodControl(f.api.Client(),
		informer.PodLister{Lister: resttest.Lister("pods", pods...)},
		informer.PersistentVolumeClaimLister{Lister: resttest.Lister("persistentvolumeclaims", claims...)},
		f.events, zerolog.Nop())
	f.pc.wait = func(_ context.Context, d time.Duration) error {
		f.waits = append(f.waits, d)
		return nil
	}
	return f
}

// expect checks the actions (Expect's lines) and the events ("Type
// Reason Message") since the last check.
func (f *pcFixture) expect(actions []string, events ...string) {
	f.t.Helper()
	resttest.Expect(f.t, f.api.Take(), actions...)
	if got := f.events.Lines(); !slices.Equal(got, events) {
		f.t.Errorf("events differ (-want +got):\n%s", resttest.Diff(events, got))
	}
	f.events.Reset()
}

// body is the generic JSON of the n-th action matching pattern.
func (f *pcFixture) body(actions []resttest.Action, pattern string, n int) map[string]any {
	f.t.Helper()
	sel := resttest.Select(actions, pattern)
	if n >= len(sel) {
		f.t.Fatalf("no action %d of %q in %q", n, pattern, resttest.Lines(actions))
	}
	var m map[string]any
	if err := json.Unmarshal(sel[n].Body, &m); err != nil {
		f.t.Fatal(err)
	}
	return m
}

// jsonEqual compares two JSON documents as generic values and reports
// both, indented, when they differ.
func jsonEqual(t testing.TB, what string, got []byte, want string) {
	t.Helper()
	var g, w any
	if err := json.Unmarshal(got, &g); err != nil {
		t.Fatalf("%s: got: %v", what, err)
	}
	if err := json.Unmarshal([]byte(want), &w); err != nil {
		t.Fatalf("%s: want: %v", what, err)
	}
	if !reflect.DeepEqual(g, w) {
		gi, _ := json.MarshalIndent(g, "", " ")
		wi, _ := json.MarshalIndent(w, "", " ")
		t.Errorf("%s differs (-want +got):\n%s", what, resttest.Diff(strings.Split(string(wi), "\n"), strings.Split(string(gi), "\n")))
	}
}
