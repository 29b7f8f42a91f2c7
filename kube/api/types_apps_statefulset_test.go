package api_test

import (
	"bytes"
	"strings"
	"testing"

	"github.com/kcmlab/kcm/kube/api"
	"github.com/kcmlab/kcm/kube/api/decode"
	"github.com/kcmlab/kcm/kube/api/protocodec"
)

// apiStatefulSetJSON is a StatefulSet as kube-apiserver 1.37 serves it
// after defaulting, mid-rollout, with a volume claim template and fields
// kcm does not model (a pod and a container securityContext).
const apiStatefulSetJSON = `{"kind":"StatefulSet","apiVersion":"apps/v1",
"metadata":{"name":"db","namespace":"team-a","uid":"s1","resourceVersion":"77","generation":2,
"creationTimestamp":"2026-01-02T03:04:05Z","labels":{"app":"db"}},
"spec":{"replicas":3,"selector":{"matchLabels":{"app":"db"}},
"template":{"metadata":{"labels":{"app":"db"}},"spec":{"volumes":[{"name":"scratch","emptyDir":{}}],
"containers":[{"name":"db","image":"postgres:17","resources":{},
"volumeMounts":[{"name":"data","mountPath":"/var/lib/postgresql"}],"terminationMessagePath":"/dev/termination-log",
"terminationMessagePolicy":"File","imagePullPolicy":"IfNotPresent","securityContext":{"runAsNonRoot":true}}],
"restartPolicy":"Always","terminationGracePeriodSeconds":30,"dnsPolicy":"ClusterFirst","securityContext":{},
"schedulerName":"default-scheduler"}},
"volumeClaimTemplates":[{"apiVersion":"v1","kind":"PersistentVolumeClaim","metadata":{"name":"data"},
"spec":{"accessModes":["ReadWriteOnce"],"resources":{"requests":{"storage":"1Gi"}},"volumeMode":"Filesystem"},
"status":{"phase":"Pending"}}],
"serviceName":"db","podManagementPolicy":"OrderedReady",
"updateStrategy":{"type":"RollingUpdate","rollingUpdate":{"partition":1,"maxUnavailable":"50%"}},
"revisionHistoryLimit":10,"minReadySeconds":5,
"persistentVolumeClaimRetentionPolicy":{"whenDeleted":"Retain","whenScaled":"Delete"},"ordinals":{"start":2}},
"status":{"observedGeneration":2,"replicas":3,"readyReplicas":2,"currentReplicas":1,"updatedReplicas":2,
"currentRevision":"db-5d8f7c9b4","updateRevision":"db-6b7c8d9f5","collisionCount":0,"availableReplicas":2,
"conditions":[{"type":"Progressing","status":"True","lastTransitionTime":"2026-01-02T03:04:06Z",
"reason":"Recreating","message":"m"}]}}`

// TestStatefulSetJSON: a StatefulSet as kube-apiserver serves it decodes
// into the modelled fields (pointers where the API tells unset from zero:
// replicas, partition, collisionCount, ordinals) and encodes back without
// a wrong field; only the unmodelled security contexts are dropped.
func TestStatefulSetJSON(t *testing.T) {
	for _, c := range apiCodecs {
		s, out := apiRoundTrip[api.StatefulSet](t, c, apiStatefulSetJSON)
		sp, st := s.Spec, s.Status
		ru := sp.UpdateStrategy.RollingUpdate
		if *sp.Replicas != 3 || sp.Selector.MatchLabels["app"] != "db" || sp.ServiceName != "db" ||
			sp.PodManagementPolicy != api.OrderedReadyPodManagement ||
			sp.UpdateStrategy.Type != api.RollingUpdateStatefulSetStrategyType || ru == nil || *ru.Partition != 1 ||
			ru.MaxUnavailable.String() != "50%" || *sp.RevisionHistoryLimit != 10 || sp.MinReadySeconds != 5 ||
			sp.PersistentVolumeClaimRetentionPolicy.WhenScaled != api.DeletePersistentVolumeClaimRetentionPolicyType ||
			sp.PersistentVolumeClaimRetentionPolicy.WhenDeleted != api.RetainPersistentVolumeClaimRetentionPolicyType ||
			sp.Ordinals == nil || sp.Ordinals.Start != 2 || sp.Template.Spec.Volumes[0].EmptyDir == nil {
			t.Errorf("%s: spec = %+v", c.name, sp)
		}
		if vct := sp.VolumeClaimTemplates; len(vct) != 1 || vct[0].Name != "data" ||
			vct[0].Spec.AccessModes[0] != api.ReadWriteOnce || vct[0].Spec.Resources.Requests["storage"] != "1Gi" ||
			*vct[0].Spec.VolumeMode != "Filesystem" || vct[0].Status.Phase != api.ClaimPending {
			t.Errorf("%s: volumeClaimTemplates = %+v", c.name, vct)
		}
		if st.ObservedGeneration != 2 || st.Replicas != 3 || st.ReadyReplicas != 2 || st.CurrentReplicas != 1 ||
			st.UpdatedReplicas != 2 || st.AvailableReplicas != 2 || st.CurrentRevision != "db-5d8f7c9b4" ||
			st.UpdateRevision != "db-6b7c8d9f5" || st.CollisionCount == nil || *st.CollisionCount != 0 ||
			len(st.Conditions) != 1 || st.Conditions[0].Type != api.StatefulSetProgressing ||
			st.Conditions[0].LastTransitionTime.IsZero() {
			t.Errorf("%s: status = %+v", c.name, st)
		}
		wrong, dropped := apiDiffPaths(t, apiStatefulSetJSON, out)
		apiMustEqualPaths(t, c.name+": wrong", wrong, nil)
		apiMustEqualPaths(t, c.name+": dropped", dropped, []string{
			".spec.template.spec.containers[0].securityContext",
			".spec.template.spec.securityContext",
		})
	}
}

// TestStatefulSetZeroesSurvive: the fields whose unset the API tells
// apart from zero keep the difference through a round trip: replicas 0
// (scaled to zero) and nil (default 1), partition 0, collisionCount 0
// (kube-controller-manager hashes a revision with a set count, 0
// included, differently from an unset one), ordinals.start 0.
func TestStatefulSetZeroesSurvive(t *testing.T) {
	zero := int32(0)
	tests := []struct {
		name string
		set  api.StatefulSet
		want []string
	}{
		{"unset", api.StatefulSet{}, []string{`"spec":{"selector":null,"template":{`, `"status":{"replicas":0,"availableReplicas":0}`}},
		{"zeroes", api.StatefulSet{
			Spec: api.StatefulSetSpec{Replicas: &zero, Ordinals: &api.StatefulSetOrdinals{},
				UpdateStrategy: api.StatefulSetUpdateStrategy{RollingUpdate: &api.RollingUpdateStatefulSetStrategy{Partition: &zero}}},
			Status: api.StatefulSetStatus{CollisionCount: &zero},
		}, []string{`"replicas":0,"selector":null`, `"rollingUpdate":{"partition":0}`, `"ordinals":{"start":0}`, `"collisionCount":0`}},
	}
	for _, c := range apiCodecs {
		for _, tt := range tests {
			out, err := c.marshal(&tt.set)
			if err != nil {
				t.Fatal(err)
			}
			for _, w := range tt.want {
				if !strings.Contains(string(out), w) {
					t.Errorf("%s %s: encoded %s; want it to contain %s", c.name, tt.name, out, w)
				}
			}
			var back api.StatefulSet
			if err := c.unmarshal(out, &back); err != nil {
				t.Fatal(err)
			}
			if (back.Spec.Replicas == nil) != (tt.set.Spec.Replicas == nil) ||
				(back.Status.CollisionCount == nil) != (tt.set.Status.CollisionCount == nil) ||
				(back.Spec.Ordinals == nil) != (tt.set.Spec.Ordinals == nil) {
				t.Errorf("%s %s: decoded %+v", c.name, tt.name, back)
			}
		}
	}
}

// apiRevisionData is a StatefulSet revision's data, compact and
// HTML-escaped as kube-controller-manager writes it, but with its keys in
// an order a re-encoding would change (spec before metadata, name before
// image): the bytes must come back as they are.
const apiRevisionData = `{"spec":{"template":{"$patch":"replace","spec":{"containers":[{"name":"c","image":"busybox",` +
	`"command":["sh","-c","a \u003e b \u0026\u0026 c"]}]},"metadata":{"labels":{"app":"db"}}}}}`

// apiControllerRevisionJSON is a ControllerRevision as kube-apiserver
// serves it.
const apiControllerRevisionJSON = `{"kind":"ControllerRevision","apiVersion":"apps/v1","metadata":{"name":"db-6b7c8d9f5",` +
	`"namespace":"team-a","uid":"r1","resourceVersion":"70","creationTimestamp":"2026-01-02T03:04:05Z",` +
	`"labels":{"app":"db","controller.kubernetes.io/hash":"6b7c8d9f5"},"ownerReferences":[{"apiVersion":"apps/v1",` +
	`"kind":"StatefulSet","name":"db","uid":"s1","controller":true,"blockOwnerDeletion":true}]},` +
	`"data":` + apiRevisionData + `,"revision":2}`

// TestControllerRevisionDataIsExact: a ControllerRevision's data is kept
// as the bytes read and written back unchanged, by both JSON codecs and
// by kcm's decoders (Typed, and Compact as informers cache it): Kubernetes
// compares revisions by their data bytes (history.EqualRevision) and
// hashes them (HashControllerRevision), so a re-encoded copy would be
// another revision.
func TestControllerRevisionDataIsExact(t *testing.T) {
	for _, c := range apiCodecs {
		r, out := apiRoundTrip[api.ControllerRevision](t, c, apiControllerRevisionJSON)
		if string(r.Data.Raw) != apiRevisionData || r.Revision != 2 || r.Labels["controller.kubernetes.io/hash"] != "6b7c8d9f5" ||
			!r.OwnerReferences[0].IsController() {
			t.Errorf("%s: decoded %+v, data %s", c.name, r, r.Data.Raw)
		}
		if !bytes.Contains(out, []byte(`"data":`+apiRevisionData+`,`)) {
			t.Errorf("%s: encoded %s; want the data bytes unchanged", c.name, out)
		}
		wrong, dropped := apiDiffPaths(t, apiControllerRevisionJSON, out)
		apiMustEqualPaths(t, c.name+": wrong", wrong, nil)
		apiMustEqualPaths(t, c.name+": dropped", dropped, nil)
	}
	for name, codec := range map[string]decode.Codec[*api.ControllerRevision]{
		"Typed": decode.Typed[api.ControllerRevision](), "Compact": decode.Compact[api.ControllerRevision](),
	} {
		r, err := codec.Decode([]byte(apiControllerRevisionJSON))
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if string(r.Data.Raw) != apiRevisionData {
			t.Errorf("%s: data %s, want %s", name, r.Data.Raw, apiRevisionData)
		}
		cp, err := api.DeepCopy(r)
		if err != nil || string(cp.Data.Raw) != apiRevisionData {
			t.Errorf("%s: DeepCopy data %s, %v", name, cp.Data.Raw, err)
		}
	}
	var null api.ControllerRevision
	if err := apiCodecs[0].unmarshal([]byte(`{"data":null,"revision":1}`), &null); err != nil || null.Data.Raw != nil {
		t.Errorf("data null decoded to %q, %v; want nil", null.Data.Raw, err)
	}
}

// apiPVCJSON is a bound PersistentVolumeClaim of a StatefulSet pod as
// kube-apiserver serves it, with fields kcm does not model.
const apiPVCJSON = `{"kind":"PersistentVolumeClaim","apiVersion":"v1","metadata":{"name":"data-db-0","namespace":"team-a",
"uid":"c1","resourceVersion":"80","creationTimestamp":"2026-01-02T03:04:05Z","labels":{"app":"db"},
"annotations":{"pv.kubernetes.io/bind-completed":"yes"},"finalizers":["kubernetes.io/pvc-protection"],
"ownerReferences":[{"apiVersion":"apps/v1","kind":"StatefulSet","name":"db","uid":"s1"}]},
"spec":{"accessModes":["ReadWriteOnce"],"selector":{"matchLabels":{"tier":"fast"}},
"resources":{"requests":{"storage":"1Gi"},"limits":{"storage":"2Gi"}},"volumeName":"pv-1","storageClassName":"standard",
"volumeMode":"Filesystem","dataSource":{"apiGroup":null,"kind":"PersistentVolumeClaim","name":"seed"},
"dataSourceRef":{"apiGroup":null,"kind":"PersistentVolumeClaim","name":"seed"},"volumeAttributesClassName":"gold"},
"status":{"phase":"Bound","accessModes":["ReadWriteOnce"],"capacity":{"storage":"1Gi"},
"conditions":[{"type":"Resizing","status":"True","lastProbeTime":null,"lastTransitionTime":"2026-01-02T03:04:06Z"}],
"allocatedResources":{"storage":"1Gi"}}}`

// TestPersistentVolumeClaimJSON: a claim decodes into the modelled fields
// and encodes back without a wrong field; only the unmodelled one
// (dataSourceRef) is dropped.
func TestPersistentVolumeClaimJSON(t *testing.T) {
	for _, c := range apiCodecs {
		p, out := apiRoundTrip[api.PersistentVolumeClaim](t, c, apiPVCJSON)
		sp, st := p.Spec, p.Status
		if sp.AccessModes[0] != api.ReadWriteOnce || sp.Selector.MatchLabels["tier"] != "fast" ||
			sp.Resources.Requests["storage"] != "1Gi" || sp.Resources.Limits["storage"] != "2Gi" || sp.VolumeName != "pv-1" ||
			*sp.StorageClassName != "standard" || *sp.VolumeMode != "Filesystem" || sp.DataSource.Name != "seed" ||
			sp.DataSource.APIGroup != nil || p.OwnerReferences[0].Kind != "StatefulSet" || p.Finalizers[0] != "kubernetes.io/pvc-protection" {
			t.Errorf("%s: spec = %+v", c.name, sp)
		}
		if st.Phase != api.ClaimBound || st.AccessModes[0] != api.ReadWriteOnce || st.Capacity["storage"] != "1Gi" ||
			st.Conditions[0].Type != "Resizing" || !st.Conditions[0].LastProbeTime.IsZero() ||
			*sp.VolumeAttributesClassName != "gold" || st.AllocatedResources["storage"] != "1Gi" {
			t.Errorf("%s: status = %+v", c.name, st)
		}
		wrong, dropped := apiDiffPaths(t, apiPVCJSON, out)
		apiMustEqualPaths(t, c.name+": wrong", wrong, nil)
		apiMustEqualPaths(t, c.name+": dropped", dropped, []string{
			".spec.dataSourceRef",
		})
	}
}

// TestControllerRevisionDataFromProtobuf: a ControllerRevision read as
// protobuf (Typed and Compact, as kube/rest and the informers read it on
// a protobuf client) has the Data.Raw its JSON read has: the stored bytes
// when they are in the form the apiserver's JSON writes (compact, <, > and
// & escaped: every revision a controller writes), and that form when they
// were sent otherwise — so revisions hash and compare alike from both
// wires. The typed GET keeps the message as read, stored bytes included.
func TestControllerRevisionDataFromProtobuf(t *testing.T) {
	js, err := decode.Typed[api.ControllerRevision]().Decode([]byte(apiControllerRevisionJSON))
	if err != nil {
		t.Fatal(err)
	}
	for _, stored := range []string{
		apiRevisionData,
		`{"spec": {"template": {"$patch": "replace", "spec": {"containers": [{"name": "c", "image": "busybox",` +
			` "command": ["sh", "-c", "a > b && c"]}]}, "metadata": {"labels": {"app": "db"}}}}}`,
	} {
		in := *js
		in.Data.Raw = []byte(stored)
		msg, err := protocodec.Marshal(&in)
		if err != nil {
			t.Fatal(err)
		}
		for name, codec := range map[string]decode.Codec[*api.ControllerRevision]{
			"Typed": decode.Typed[api.ControllerRevision](), "Compact": decode.Compact[api.ControllerRevision](),
		} {
			pd, ok := decode.AsProto(codec)
			if !ok {
				t.Fatalf("%s: a ControllerRevision codec does not read protobuf", name)
			}
			r, err := pd.DecodeProto(js.TypeMeta, append([]byte(nil), msg...))
			if err != nil {
				t.Fatalf("%s: %v", name, err)
			}
			if !r.IsProto() || string(r.Data.Raw) != apiRevisionData || r.Revision != 2 || r.Name != js.Name {
				t.Errorf("%s, stored %s: IsProto %v, data %s, want %s", name, stored, r.IsProto(), r.Data.Raw, apiRevisionData)
			}
			cp, err := api.DeepCopy(r)
			if err != nil || string(cp.Data.Raw) != apiRevisionData {
				t.Errorf("%s: DeepCopy data %s, %v", name, cp.Data.Raw, err)
			}
			if name == "Typed" {
				if orig, err := r.OriginalProto(); err != nil || !bytes.Contains(orig, []byte(stored)) {
					t.Errorf("Typed: the message kept does not carry the stored data (%v)", err)
				}
			}
		}
	}
}
