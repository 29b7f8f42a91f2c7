//go:build !nocluster

package protocodec_test

import (
	"bytes"
	"context"
	"crypto/tls"
	"crypto/x509"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/kcmlab/kcm/kube/api"
	"github.com/kcmlab/kcm/kube/api/protocodec"
	"github.com/kcmlab/kcm/kube/internal/jsonx"
	"github.com/kcmlab/kcm/testenv"
)

// These tests hold protocodec to the real kube-apiserver (testenv's
// shared cluster, v1.37.2): objects created from JSON with fields kcm
// does not model are read back as protobuf and as JSON and must decode
// alike; a typed read-modify-write sent as a protobuf body built by
// MarshalMerge must change exactly what the caller changed and keep every
// other field, for spec updates and for a status update.

const (
	mediaProtobuf = "application/vnd.kubernetes.protobuf"
	mediaJSON     = "application/json"
)

// server is a bare HTTPS client of the cluster: raw bodies in and out,
// so that the test depends on nothing of kube/rest but its Config.
type server struct {
	host string
	auth string
	hc   *http.Client
}

func newServer(t *testing.T) (*server, string) {
	t.Helper()
	cl := testenv.Shared(t)
	cfg := cl.Config()
	pool := x509.NewCertPool()
	if !pool.AppendCertsFromPEM(cfg.TLS.CAData) {
		t.Fatal("bad CA")
	}
	auth, err := cfg.Credentials.Authorization(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	tr := &http.Transport{TLSClientConfig: &tls.Config{RootCAs: pool, MinVersion: tls.VersionTLS12}}
	t.Cleanup(tr.CloseIdleConnections)
	return &server{host: cfg.Host, auth: auth, hc: &http.Client{Transport: tr, Timeout: 30 * time.Second}}, cl.Namespace(t)
}

// do sends a request and returns the body of a 2xx answer.
func (s *server) do(t *testing.T, method, path, contentType, accept string, body []byte) []byte {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, method, s.host+path, bytes.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Authorization", s.auth)
	req.Header.Set("Accept", accept)
	if body != nil {
		req.Header.Set("Content-Type", contentType)
	}
	resp, err := s.hc.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	out, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	if resp.StatusCode/100 != 2 {
		t.Fatalf("%s %s: %s: %q", method, path, resp.Status, out)
	}
	if got, _, _ := strings.Cut(resp.Header.Get("Content-Type"), ";"); got != accept {
		t.Fatalf("%s %s: answered %s, asked %s", method, path, got, accept)
	}
	return out
}

// The envelope of a protobuf body: "k8s\x00" and a runtime.Unknown
// {1: typeMeta {1: apiVersion, 2: kind}, 2: raw}.
var magic = []byte("k8s\x00")

func varint(b []byte) (uint64, int) {
	var v uint64
	for i := 0; i < len(b) && i < 10; i++ {
		v |= uint64(b[i]&0x7f) << (7 * i)
		if b[i] < 0x80 {
			return v, i + 1
		}
	}
	return 0, 0
}

// unwrap returns the object message of an enveloped body.
func unwrap(t *testing.T, body []byte) []byte {
	t.Helper()
	b, ok := bytes.CutPrefix(body, magic)
	if !ok {
		t.Fatalf("no protobuf envelope: %q", body[:min(len(body), 16)])
	}
	var raw []byte
	for len(b) > 0 {
		key, n := varint(b)
		if n == 0 || key&7 != 2 {
			t.Fatalf("bad envelope")
		}
		l, m := varint(b[n:])
		if m == 0 || uint64(len(b)-n-m) < l {
			t.Fatalf("bad envelope")
		}
		if key>>3 == 2 {
			raw = b[n+m : n+m+int(l)]
		}
		b = b[n+m+int(l):]
	}
	return raw
}

func appendField(b []byte, num int, p []byte) []byte {
	b = binaryAppendUvarint(b, uint64(num)<<3|2)
	b = binaryAppendUvarint(b, uint64(len(p)))
	return append(b, p...)
}

func binaryAppendUvarint(b []byte, v uint64) []byte {
	for v >= 0x80 {
		b = append(b, byte(v)|0x80)
		v >>= 7
	}
	return append(b, byte(v))
}

// wrap envelopes an object message for a write.
func wrap(apiVersion, kind string, msg []byte) []byte {
	tm := appendField(appendField(nil, 1, []byte(apiVersion)), 2, []byte(kind))
	return appendField(appendField(append([]byte(nil), magic...), 1, tm), 2, msg)
}

// A pod with much that kcm does not model: security contexts, lifecycle
// hooks, node affinity, topology spread, DNS config, host aliases,
// readiness gates, a CSI volume, resize policy.
const podJSON = `{"apiVersion":"v1","kind":"Pod","metadata":{"name":"web-0","labels":{"app":"web"},"annotations":{"a":"b"}},
"spec":{"initContainers":[{"name":"init","image":"busybox","command":["true"],"restartPolicy":"Always",
  "startupProbe":{"httpGet":{"path":"/","port":"http"},"periodSeconds":3}}],
"containers":[{"name":"app","image":"app:v1","args":["-v"],"workingDir":"/srv",
  "ports":[{"name":"http","containerPort":8080,"protocol":"TCP"}],
  "env":[{"name":"A","value":"1"},{"name":"POD","valueFrom":{"fieldRef":{"fieldPath":"metadata.name"}}},
    {"name":"CPU","valueFrom":{"resourceFieldRef":{"containerName":"app","resource":"limits.cpu","divisor":"1m"}}},
    {"name":"K","valueFrom":{"configMapKeyRef":{"name":"cfg","key":"k","optional":true}}}],
  "envFrom":[{"prefix":"S_","secretRef":{"name":"sec","optional":true}}],
  "resources":{"limits":{"cpu":"500m","memory":"256Mi"},"requests":{"cpu":"250m","memory":"128Mi"}},
  "resizePolicy":[{"resourceName":"cpu","restartPolicy":"NotRequired"}],
  "volumeMounts":[{"name":"cfg","mountPath":"/cfg","readOnly":true}],
  "livenessProbe":{"exec":{"command":["true"]},"initialDelaySeconds":5},
  "readinessProbe":{"tcpSocket":{"port":8080},"timeoutSeconds":2},
  "lifecycle":{"preStop":{"exec":{"command":["sleep","5"]}}},
  "securityContext":{"runAsNonRoot":true,"readOnlyRootFilesystem":true,"capabilities":{"drop":["ALL"]}}},
  {"name":"sidecar","image":"side:v1","stdin":true}],
"volumes":[{"name":"cfg","configMap":{"name":"cfg","defaultMode":420,"items":[{"key":"k","path":"k"}]}},
  {"name":"scratch","emptyDir":{"sizeLimit":"64Mi"}},
  {"name":"inline","csi":{"driver":"csi.example.com","volumeAttributes":{"x":"y"}}}],
"affinity":{"nodeAffinity":{"requiredDuringSchedulingIgnoredDuringExecution":{"nodeSelectorTerms":[{"matchExpressions":[{"key":"zone","operator":"In","values":["a"]}]}]}},
  "podAntiAffinity":{"preferredDuringSchedulingIgnoredDuringExecution":[{"weight":10,"podAffinityTerm":{"labelSelector":{"matchLabels":{"app":"web"}},"topologyKey":"kubernetes.io/hostname"}}]}},
"tolerations":[{"key":"k","operator":"Exists","effect":"NoSchedule"}],
"topologySpreadConstraints":[{"maxSkew":1,"topologyKey":"zone","whenUnsatisfiable":"ScheduleAnyway","labelSelector":{"matchLabels":{"app":"web"}}}],
"dnsConfig":{"nameservers":["1.1.1.1"],"options":[{"name":"ndots","value":"2"}]},
"securityContext":{"runAsUser":1000,"fsGroup":2000},
"hostAliases":[{"ip":"10.0.0.1","hostnames":["db.local"]}],
"readinessGates":[{"conditionType":"example.com/ready"}],
"nodeSelector":{"disk":"ssd"},"terminationGracePeriodSeconds":20}}`

// kindCase is an object to create from JSON, and where it lives.
type kindCase struct {
	name, path, apiVersion, kind, body string
	obj                                func() api.Object
}

func kindCases() []kindCase {
	return []kindCase{
		{"pod", "/api/v1/namespaces/%s/pods", "v1", "Pod", podJSON, func() api.Object { return &api.Pod{} }},
		{"deployment", "/apis/apps/v1/namespaces/%s/deployments", "apps/v1", "Deployment",
			`{"metadata":{"name":"web"},"spec":{"replicas":2,"selector":{"matchLabels":{"app":"web"}},"minReadySeconds":3,
			"strategy":{"rollingUpdate":{"maxSurge":"50%","maxUnavailable":0}},
			"template":{"metadata":{"labels":{"app":"web"}},"spec":` + podSpecOf(podJSON) + `}}}`,
			func() api.Object { return &api.Deployment{} }},
		{"statefulset", "/apis/apps/v1/namespaces/%s/statefulsets", "apps/v1", "StatefulSet",
			`{"metadata":{"name":"db"},"spec":{"serviceName":"db","replicas":1,"selector":{"matchLabels":{"app":"db"}},
			"template":{"metadata":{"labels":{"app":"db"}},"spec":{"containers":[{"name":"db","image":"db:v1"}]}},
			"volumeClaimTemplates":[{"metadata":{"name":"data"},"spec":{"accessModes":["ReadWriteOnce"],"resources":{"requests":{"storage":"1Gi"}}}}],
			"persistentVolumeClaimRetentionPolicy":{"whenDeleted":"Delete","whenScaled":"Retain"}}}`,
			func() api.Object { return &api.StatefulSet{} }},
		{"configmap", "/api/v1/namespaces/%s/configmaps", "v1", "ConfigMap",
			`{"metadata":{"name":"cfg"},"data":{"k":"v","e":""},"binaryData":{"b":"AAEC/w=="}}`,
			func() api.Object { return &api.ConfigMap{} }},
		{"secret", "/api/v1/namespaces/%s/secrets", "v1", "Secret",
			`{"metadata":{"name":"sec"},"type":"Opaque","data":{"pw":"aHVudGVyMg==","empty":""}}`,
			func() api.Object { return &api.Secret{} }},
		{"service", "/api/v1/namespaces/%s/services", "v1", "Service",
			`{"metadata":{"name":"web"},"spec":{"selector":{"app":"web"},"sessionAffinity":"ClientIP",
			"ports":[{"name":"http","port":80,"targetPort":"http"},{"name":"m","port":9100,"targetPort":9100,"protocol":"UDP"}]}}`,
			func() api.Object { return &api.Service{} }},
		{"lease", "/apis/coordination.k8s.io/v1/namespaces/%s/leases", "coordination.k8s.io/v1", "Lease",
			`{"metadata":{"name":"lock"},"spec":{"holderIdentity":"a","leaseDurationSeconds":15,
			"acquireTime":"2026-03-04T05:06:07.123456Z","renewTime":"2026-03-04T05:06:17.654321Z","leaseTransitions":2}}`,
			func() api.Object { return &api.Lease{} }},
		{"resourcequota", "/api/v1/namespaces/%s/resourcequotas", "v1", "ResourceQuota",
			`{"metadata":{"name":"q"},"spec":{"hard":{"pods":"10","requests.cpu":"4"},"scopeSelector":{"matchExpressions":[{"scopeName":"PriorityClass","operator":"In","values":["high"]}]}}}`,
			func() api.Object { return &api.ResourceQuota{} }},
		{"pvc", "/api/v1/namespaces/%s/persistentvolumeclaims", "v1", "PersistentVolumeClaim",
			`{"metadata":{"name":"data"},"spec":{"accessModes":["ReadWriteOnce"],"storageClassName":"standard","resources":{"requests":{"storage":"10Gi"}}}}`,
			func() api.Object { return &api.PersistentVolumeClaim{} }},
		{"endpointslice", "/apis/discovery.k8s.io/v1/namespaces/%s/endpointslices", "discovery.k8s.io/v1", "EndpointSlice",
			`{"metadata":{"name":"web-1"},"addressType":"IPv4","endpoints":[{"addresses":["10.0.0.7"],"conditions":{"ready":true},"nodeName":"n1","zone":"z"}],
			"ports":[{"name":"http","port":8080,"protocol":"TCP"}]}`,
			func() api.Object { return &api.EndpointSlice{} }},
		{"controllerrevision", "/apis/apps/v1/namespaces/%s/controllerrevisions", "apps/v1", "ControllerRevision",
			`{"metadata":{"name":"db-1"},"revision":3,"data":{"spec": {"template": {"$patch": "replace",  "x": [1, 2], "c": "a > b && c"}}}}`,
			func() api.Object { return &api.ControllerRevision{} }},
		{"event", "/api/v1/namespaces/%s/events", "v1", "Event",
			`{"metadata":{"name":"ev"},"involvedObject":{"kind":"Pod","name":"web-0","namespace":"NS"},"reason":"R","message":"m","type":"Normal",
			"firstTimestamp":"2026-03-04T05:06:07Z","lastTimestamp":"2026-03-04T05:06:08Z","count":2,"source":{"component":"kcm"}}`,
			func() api.Object { return &api.CoreEvent{} }},
	}
}

// podSpecOf returns the spec member of a pod's JSON.
func podSpecOf(pod string) string {
	var m map[string]json.RawMessage
	if err := json.Unmarshal([]byte(pod), &m); err != nil {
		panic(err)
	}
	return string(m["spec"])
}

// TestAPIServerProtobufDecodesAsJSON: each object, read back from
// kube-apiserver as protobuf, decodes to what kcm's JSON decoding gives
// for the same object read as JSON.
func TestAPIServerProtobufDecodesAsJSON(t *testing.T) {
	s, ns := newServer(t)
	for _, c := range kindCases() {
		t.Run(c.name, func(t *testing.T) {
			coll := fmt.Sprintf(c.path, ns)
			s.do(t, http.MethodPost, coll, mediaJSON, mediaJSON, []byte(strings.ReplaceAll(c.body, `"NS"`, `"`+ns+`"`)))
			name := objectName(t, c.body)
			pb := unwrap(t, s.do(t, http.MethodGet, coll+"/"+name, "", mediaProtobuf, nil))
			js := s.do(t, http.MethodGet, coll+"/"+name, "", mediaJSON, nil)
			got, want := c.obj(), c.obj()
			if err := protocodec.Unmarshal(pb, got); err != nil {
				t.Fatal(err)
			}
			if err := jsonx.Unmarshal(js, want); err != nil {
				t.Fatal(err)
			}
			*want.GetTypeMeta() = api.TypeMeta{} // the protobuf message has none (it is in the envelope)
			if sts, ok := want.(*api.StatefulSet); ok {
				// The apiserver's JSON gives each volumeClaimTemplate an
				// apiVersion and kind; its protobuf cannot (TypeMeta is
				// not in the PersistentVolumeClaim message), so client-go
				// decoding protobuf sees none either.
				for i := range sts.Spec.VolumeClaimTemplates {
					sts.Spec.VolumeClaimTemplates[i].TypeMeta = api.TypeMeta{}
				}
			}
			if !reflect.DeepEqual(got, want) {
				t.Fatalf("protobuf and JSON decode differently:\n%s\n%s", mustJSON(got), mustJSON(want))
			}
			if out, err := protocodec.MarshalMerge(pb, got, want); err != nil || !bytes.Equal(out, pb) {
				t.Fatalf("unchanged merge is not the message as served (err %v)", err)
			}
		})
	}
}

func objectName(t *testing.T, body string) string {
	var o struct {
		Metadata struct{ Name string } `json:"metadata"`
	}
	if err := json.Unmarshal([]byte(body), &o); err != nil {
		t.Fatal(err)
	}
	return o.Metadata.Name
}

func mustJSON(v any) string {
	b, err := jsonx.Marshal(v)
	if err != nil {
		return err.Error()
	}
	return string(b)
}

// jsonMap reads an object's JSON as a map, less what every write moves
// (resourceVersion, managedFields, generation).
func jsonMap(t *testing.T, js []byte) map[string]any {
	t.Helper()
	var m map[string]any
	if err := jsonx.UnmarshalNumbers(js, &m); err != nil {
		t.Fatal(err)
	}
	meta := m["metadata"].(map[string]any)
	for _, k := range []string{"resourceVersion", "managedFields", "generation"} {
		delete(meta, k)
	}
	return m
}

// at returns the map or slice element a path of keys and indexes leads to.
func at(v any, path ...any) any {
	for _, p := range path {
		switch k := p.(type) {
		case string:
			v = v.(map[string]any)[k]
		case int:
			v = v.([]any)[k]
		}
	}
	return v
}

// TestAPIServerMarshalMergeUpdate: typed changes written as a protobuf
// body built by MarshalMerge change exactly those fields on the server:
// the object read back as JSON is the one before with the same changes,
// every field kcm does not model included — for a pod's spec and
// metadata, a Deployment's template, a ConfigMap's data, and a pod's
// status through the status subresource.
func TestAPIServerMarshalMergeUpdate(t *testing.T) {
	s, ns := newServer(t)
	cases := kindCases()
	byName := map[string]kindCase{}
	for _, c := range cases {
		byName[c.name] = c
	}
	for _, u := range []struct {
		kind, sub string
		change    func(api.Object)
		expect    func(m map[string]any)
	}{
		{"pod", "", func(o api.Object) {
			p := o.(*api.Pod)
			p.Labels["kcm"] = "yes"
			p.Spec.Containers[0].Image = "app:v2"
			p.Spec.ActiveDeadlineSeconds = ptr(int64(600))
		}, func(m map[string]any) {
			at(m, "metadata", "labels").(map[string]any)["kcm"] = "yes"
			at(m, "spec", "containers", 0).(map[string]any)["image"] = "app:v2"
			at(m, "spec").(map[string]any)["activeDeadlineSeconds"] = json.Number("600")
		}},
		{"pod", "/status", func(o api.Object) {
			p := o.(*api.Pod)
			p.Status.Conditions = append(p.Status.Conditions, api.PodCondition{Type: "example.com/ready", Status: api.ConditionTrue,
				LastTransitionTime: api.NewTime(time.Date(2026, 3, 4, 5, 6, 7, 0, time.UTC))})
			p.Status.Message = "kcm"
		}, func(m map[string]any) {
			st := at(m, "status").(map[string]any)
			st["message"] = "kcm"
			conds, _ := st["conditions"].([]any)
			st["conditions"] = append(conds, map[string]any{"type": "example.com/ready", "status": "True",
				"lastProbeTime": nil, "lastTransitionTime": "2026-03-04T05:06:07Z"})
		}},
		{"deployment", "", func(o api.Object) {
			d := o.(*api.Deployment)
			d.Spec.Template.Spec.Containers[1].Image = "side:v2"
			d.Spec.Replicas = ptr(int32(3))
		}, func(m map[string]any) {
			at(m, "spec", "template", "spec", "containers", 1).(map[string]any)["image"] = "side:v2"
			at(m, "spec").(map[string]any)["replicas"] = json.Number("3")
		}},
		{"configmap", "", func(o api.Object) {
			c := o.(*api.ConfigMap)
			c.Data["k"] = "v2"
			delete(c.Data, "e")
		}, func(m map[string]any) {
			d := at(m, "data").(map[string]any)
			d["k"] = "v2"
			delete(d, "e")
		}},
	} {
		t.Run(u.kind+u.sub, func(t *testing.T) {
			c := byName[u.kind]
			coll := fmt.Sprintf(c.path, ns)
			name := objectName(t, c.body)
			if u.sub == "" {
				s.do(t, http.MethodPost, coll, mediaJSON, mediaJSON, []byte(c.body))
			}
			path := coll + "/" + name
			pb := unwrap(t, s.do(t, http.MethodGet, path, "", mediaProtobuf, nil))
			want := jsonMap(t, s.do(t, http.MethodGet, path, "", mediaJSON, nil))
			before := c.obj()
			if err := protocodec.Unmarshal(pb, before); err != nil {
				t.Fatal(err)
			}
			after, err := api.DeepCopy(before)
			if err != nil {
				t.Fatal(err)
			}
			u.change(after)
			msg, err := protocodec.MarshalMerge(pb, before, after)
			if err != nil {
				t.Fatal(err)
			}
			s.do(t, http.MethodPut, path+u.sub, mediaProtobuf, mediaJSON, wrap(c.apiVersion, c.kind, msg))
			got := jsonMap(t, s.do(t, http.MethodGet, path, "", mediaJSON, nil))
			u.expect(want)
			if !reflect.DeepEqual(got, want) {
				g, _ := json.Marshal(got)
				w, _ := json.Marshal(want)
				t.Fatalf("after the update:\n%s\nwant:\n%s", g, w)
			}
		})
	}
}

func ptr[T any](v T) *T { return &v }

// TestAPIServerMarshalMergeEveryKind: for every kind, a metadata change
// (a label added, an annotation changed) written as a protobuf body built
// by MarshalMerge is exactly that change on the server.
func TestAPIServerMarshalMergeEveryKind(t *testing.T) {
	s, ns := newServer(t)
	for _, c := range kindCases() {
		t.Run(c.name, func(t *testing.T) {
			coll := fmt.Sprintf(c.path, ns)
			s.do(t, http.MethodPost, coll, mediaJSON, mediaJSON, []byte(strings.ReplaceAll(c.body, `"NS"`, `"`+ns+`"`)))
			path := coll + "/" + objectName(t, c.body)
			pb := unwrap(t, s.do(t, http.MethodGet, path, "", mediaProtobuf, nil))
			want := jsonMap(t, s.do(t, http.MethodGet, path, "", mediaJSON, nil))
			before := c.obj()
			if err := protocodec.Unmarshal(pb, before); err != nil {
				t.Fatal(err)
			}
			after, err := api.DeepCopy(before)
			if err != nil {
				t.Fatal(err)
			}
			m := after.GetObjectMeta()
			if m.Labels == nil {
				m.Labels = map[string]string{}
			}
			m.Labels["kcm"] = "yes"
			m.Annotations = map[string]string{"kcm/protobuf": "written"}
			msg, err := protocodec.MarshalMerge(pb, before, after)
			if err != nil {
				t.Fatal(err)
			}
			s.do(t, http.MethodPut, path, mediaProtobuf, mediaJSON, wrap(c.apiVersion, c.kind, msg))
			got := jsonMap(t, s.do(t, http.MethodGet, path, "", mediaJSON, nil))
			meta := want["metadata"].(map[string]any)
			labels, _ := meta["labels"].(map[string]any)
			if labels == nil {
				labels = map[string]any{}
			}
			labels["kcm"] = "yes"
			meta["labels"] = labels
			meta["annotations"] = map[string]any{"kcm/protobuf": "written"}
			if !reflect.DeepEqual(got, want) {
				g, _ := json.Marshal(got)
				w, _ := json.Marshal(want)
				t.Fatalf("after the update:\n%s\nwant:\n%s", g, w)
			}
		})
	}
}
