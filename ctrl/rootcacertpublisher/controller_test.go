package rootcacertpublisher

import (
	"context"
	"errors"
	"maps"
	"slices"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/testutil"
	"github.com/rs/zerolog"

	"github.com/kcmlab/kcm/clock"
	"github.com/kcmlab/kcm/ctrl"
	"github.com/kcmlab/kcm/internal/testing/resttest"
	"github.com/kcmlab/kcm/kube/api"
	"github.com/kcmlab/kcm/kube/rest"
	"github.com/kcmlab/kcm/queue"
)

const testCA = "-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----\n"

// fixture is the sample-controller test shape: ConfigMaps loaded into the
// lister (and held by the fake apiserver), the recording fake apiserver
// that answers the sync's writes.
type fixture struct {
	t          *testing.T
	configMaps []*api.ConfigMap
	api        *resttest.Server
	clock      *clock.Fake
	metrics    *Metrics
	reg        *prometheus.Registry
	rootCA     []byte
}

func newFixture(t *testing.T) *fixture {
	reg := prometheus.NewRegistry()
	m, err := NewMetrics(reg)
	if err != nil {
		t.Fatal(err)
	}
	fake := clock.NewFake(time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC))
	return &fixture{t: t, api: resttest.New(t, resttest.Options{Clock: fake}), clock: fake, metrics: m, reg: reg,
		rootCA: []byte(testCA)}
}

// rootCM is a kube-root-ca.crt as kube-controller-manager writes it.
func rootCM(ns string) *api.ConfigMap {
	return &api.ConfigMap{
		ObjectMeta: api.ObjectMeta{Namespace: ns, Name: ConfigMapName, ResourceVersion: "1",
			Annotations: map[string]string{DescriptionAnnotation: Description}},
		Data: map[string]string{CAKey: testCA},
	}
}

// edited returns rootCM(ns) changed by edit.
func edited(ns string, edit func(*api.ConfigMap)) *api.ConfigMap {
	cm := rootCM(ns)
	edit(cm)
	return cm
}

// run loads the lister and the server, syncs key once and returns the
// error and the actions it took.
func (f *fixture) run(key string) ([]resttest.Action, error) {
	f.t.Helper()
	resttest.Add(f.api, rest.ConfigMaps, f.configMaps...)
	c := NewController(resttest.Lister("configmaps", f.configMaps...), f.api.Client(),
		Config{RootCA: f.rootCA, Clock: f.clock, Logger: zerolog.Nop(), Metrics: f.metrics})
	_, err := c.Sync(context.Background(), key)
	return f.api.Actions(), err
}

const (
	create = "create configmaps ns/kube-root-ca.crt"
	update = "update configmaps ns/kube-root-ca.crt"
)

// TestSync follows publisher.go's syncNamespace and its
// TestConfigMapCreation: a missing kube-root-ca.crt is created; one whose
// data is not exactly {ca.crt: CA} or that lacks the description
// annotation is updated; anything else is left alone.
func TestSync(t *testing.T) {
	for _, tc := range []struct {
		name       string
		configMaps []*api.ConfigMap
		rootCA     []byte
		want       []string
	}{
		{"missing", nil, []byte(testCA), []string{create}},
		{"only another namespace has it", []*api.ConfigMap{rootCM("other")}, []byte(testCA), []string{create}},
		{"another ConfigMap in the namespace", []*api.ConfigMap{edited("ns", func(cm *api.ConfigMap) { cm.Name = "x" })}, []byte(testCA), []string{create}},
		{"as published", []*api.ConfigMap{rootCM("ns")}, []byte(testCA), nil},
		{"any non-empty description will do", []*api.ConfigMap{edited("ns", func(cm *api.ConfigMap) {
			cm.Annotations[DescriptionAnnotation] = "mine"
		})}, []byte(testCA), nil},
		{"labels, other annotations and binaryData are not looked at", []*api.ConfigMap{edited("ns", func(cm *api.ConfigMap) {
			cm.Labels = map[string]string{"a": "b"}
			cm.Annotations["x"] = "y"
			cm.BinaryData = map[string][]byte{"bin": {1}}
		})}, []byte(testCA), nil},
		{"ca.crt edited", []*api.ConfigMap{edited("ns", func(cm *api.ConfigMap) { cm.Data[CAKey] = "other" })}, []byte(testCA), []string{update}},
		{"ca.crt edited where labels, other annotations and binaryData are set", []*api.ConfigMap{edited("ns", func(cm *api.ConfigMap) {
			cm.Data[CAKey] = "other"
			cm.Labels = map[string]string{"a": "b"}
			cm.Annotations["x"] = "y"
			cm.BinaryData = map[string][]byte{"bin": {1}}
		})}, []byte(testCA), []string{update}},
		{"ca.crt removed", []*api.ConfigMap{edited("ns", func(cm *api.ConfigMap) { cm.Data = nil })}, []byte(testCA), []string{update}},
		{"a key added", []*api.ConfigMap{edited("ns", func(cm *api.ConfigMap) { cm.Data["extra"] = "v" })}, []byte(testCA), []string{update}},
		{"description removed", []*api.ConfigMap{edited("ns", func(cm *api.ConfigMap) { cm.Annotations = nil })}, []byte(testCA), []string{update}},
		{"description emptied", []*api.ConfigMap{edited("ns", func(cm *api.ConfigMap) {
			cm.Annotations[DescriptionAnnotation] = ""
		})}, []byte(testCA), []string{update}},
		{"the CA changed (a new --root-ca-file)", []*api.ConfigMap{rootCM("ns")}, []byte("new CA"), []string{update}},
		{"no CA: ca.crt is published empty", nil, nil, []string{create}},
		{"no CA, ca.crt empty", []*api.ConfigMap{edited("ns", func(cm *api.ConfigMap) { cm.Data[CAKey] = "" })}, nil, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := newFixture(t)
			f.configMaps, f.rootCA = tc.configMaps, tc.rootCA
			got, err := f.run("ns")
			if !resttest.Expect(t, got, tc.want...) || err != nil {
				t.Fatalf("actions %q, err %v; want %q", resttest.Lines(got), err, tc.want)
			}
			if len(got) == 0 {
				return
			}
			cm, err := resttest.Decode[*api.ConfigMap](got[0])
			if err != nil {
				t.Fatal(err)
			}
			// What is written: data exactly {ca.crt: CA}, the description.
			if !maps.Equal(cm.Data, map[string]string{CAKey: string(tc.rootCA)}) || cm.Annotations[DescriptionAnnotation] != Description ||
				cm.Namespace != "ns" || cm.Name != ConfigMapName {
				t.Errorf("wrote %s/%s data %q annotations %q", cm.Namespace, cm.Name, cm.Data, cm.Annotations)
			}
			if got[0].Verb == "update" {
				// An update keeps what it does not own and the version it read.
				old := tc.configMaps[0]
				wantAnn := maps.Clone(old.Annotations)
				if wantAnn == nil {
					wantAnn = map[string]string{}
				}
				wantAnn[DescriptionAnnotation] = Description
				if !maps.Equal(cm.Labels, old.Labels) || !maps.Equal(cm.Annotations, wantAnn) || cm.ResourceVersion != old.ResourceVersion ||
					len(cm.BinaryData) != len(old.BinaryData) {
					t.Errorf("update changed labels %q, annotations %q, binaryData %q or resourceVersion %q", cm.Labels, cm.Annotations, cm.BinaryData, cm.ResourceVersion)
				}
			}
		})
	}
}

// TestSyncDoesNotTouchTheCache: the update is made on a copy; the
// lister's object stays as it was.
func TestSyncDoesNotTouchTheCache(t *testing.T) {
	f := newFixture(t)
	cm := edited("ns", func(cm *api.ConfigMap) { cm.Data[CAKey] = "old"; cm.Annotations = nil })
	f.configMaps = []*api.ConfigMap{cm}
	if _, err := f.run("ns"); err != nil {
		t.Fatal(err)
	}
	if cm.Data[CAKey] != "old" || cm.Annotations != nil {
		t.Fatalf("the cached object was modified: %q %q", cm.Data, cm.Annotations)
	}
}

// TestSyncWriteAnswers: a create in a namespace that is gone (NotFound) or
// terminating (Forbidden with the NamespaceTerminating cause) ends the
// sync; an AlreadyExists (the cache was behind: the next sync compares),
// a conflict on update and any other failure are errors the loop retries.
func TestSyncWriteAnswers(t *testing.T) {
	terminating := resttest.Failure(403, "Forbidden", "namespace ns is being terminated")
	terminating.Details = &rest.StatusDetails{Causes: []rest.StatusCause{{Type: "NamespaceTerminating"}}}
	for _, tc := range []struct {
		name       string
		configMaps []*api.ConfigMap
		verb       string
		status     rest.Status
		wantErr    bool
	}{
		{"namespace gone", nil, "create", resttest.Failure(404, "NotFound", "namespaces \"ns\" not found"), false},
		{"namespace terminating", nil, "create", terminating, false},
		{"forbidden otherwise", nil, "create", resttest.Failure(403, "Forbidden", "no"), true},
		{"already exists", nil, "create", resttest.Failure(409, "AlreadyExists", "exists"), true},
		{"server error", nil, "create", resttest.Failure(500, "InternalError", "etcd"), true},
		{"update conflict", []*api.ConfigMap{edited("ns", func(cm *api.ConfigMap) { cm.Data = nil })}, "update",
			resttest.Failure(409, "Conflict", "modified"), true},
		{"update of a ConfigMap deleted meanwhile", []*api.ConfigMap{edited("ns", func(cm *api.ConfigMap) { cm.Data = nil })}, "update",
			resttest.Failure(404, "NotFound", "gone"), true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := newFixture(t)
			f.configMaps = tc.configMaps
			f.api.Fail(resttest.On(tc.verb, "configmaps"), tc.status)
			got, err := f.run("ns")
			if len(got) != 1 || got[0].Verb != tc.verb || (err != nil) != tc.wantErr {
				t.Fatalf("actions %q err %v, want one %s and error %v", resttest.Lines(got), err, tc.verb, tc.wantErr)
			}
			var se *rest.StatusError
			if tc.wantErr && (!errors.As(err, &se) || se.Status.Code != tc.status.Code) {
				t.Errorf("the apiserver's answer is not wrapped: %v", err)
			}
		})
	}
}

// TestMetrics: every sync is counted and timed under its code, as
// upstream's recordMetrics: 200 for a success (a create in a terminating
// namespace included), the apiserver's code for its error, 500 for an
// error without one; the duration is the injected clock's.
func TestMetrics(t *testing.T) {
	f := newFixture(t)
	f.api.Intercept(resttest.On("create", "configmaps").Nth(1), func(resttest.Action) error {
		f.clock.Step(3 * time.Millisecond) // the create takes 3ms
		return nil
	})
	f.api.Fail(resttest.On("create", "configmaps").From(2), resttest.Failure(409, "AlreadyExists", "exists"))
	for range 3 {
		_, _ = f.run("ns")
	}
	if got := testutil.ToFloat64(f.metrics.total.WithLabelValues("200")); got != 1 {
		t.Errorf("sync_total{code=200} = %v, want 1", got)
	}
	if got := testutil.ToFloat64(f.metrics.total.WithLabelValues("409")); got != 2 {
		t.Errorf("sync_total{code=409} = %v, want 2", got)
	}
	n, err := testutil.GatherAndCount(f.reg, "root_ca_cert_publisher_sync_total", "root_ca_cert_publisher_sync_duration_seconds")
	if err != nil || n != 4 {
		t.Errorf("series: %d, %v; want 2 codes x 2 families", n, err)
	}
	families, err := f.reg.Gather()
	if err != nil {
		t.Fatal(err)
	}
	for _, mf := range families {
		if mf.GetName() != "root_ca_cert_publisher_sync_duration_seconds" {
			continue
		}
		for _, m := range mf.GetMetric() {
			if m.GetLabel()[0].GetValue() == "200" && (m.GetHistogram().GetSampleSum() != 0.003 || len(m.GetHistogram().GetBucket()) != 15) {
				t.Errorf("duration{200}: sum %v, %d buckets; want 0.003 and 15", m.GetHistogram().GetSampleSum(), len(m.GetHistogram().GetBucket()))
			}
		}
	}
	for _, tc := range []struct {
		err  error
		want string
	}{
		{nil, "200"},
		{errors.New("connection refused"), "500"},
		{rest.StatusErrorFrom("PUT", "/x", rest.Status{Code: 422}), "422"},
		{rest.StatusErrorFrom("PUT", "/x", rest.Status{}), "500"},
	} {
		if got := syncCode(tc.err); got != tc.want {
			t.Errorf("syncCode(%v) = %s, want %s", tc.err, got, tc.want)
		}
	}
	var none *Metrics
	none.observe(nil, time.Second) // a nil Metrics records nothing, and does not panic
	if _, err := NewMetrics(f.reg); err != nil {
		t.Errorf("a second NewMetrics on the same registry: %v", err)
	}
}

func TestDescriptor(t *testing.T) {
	d := Descriptor()
	if d.Name != "root-ca-certificate-publisher-controller" || !slices.Equal(d.Aliases, []string{"root-ca-cert-publisher"}) ||
		d.DisabledByDefault || d.Concurrency != nil || d.Constructor == nil ||
		len(d.Flags) != 1 || d.Flags[0].Name != "root-ca-file" || d.Flags[0].Usage != ctrl.RootCAFile().Usage {
		t.Fatalf("descriptor %+v", d)
	}
}

// TestHandlers: every added namespace, an updated namespace that is
// Active, and an update or deletion of kube-root-ca.crt enqueue the
// namespace; a terminating namespace's update and other ConfigMaps do
// not.
func TestHandlers(t *testing.T) {
	q := queue.New(queue.Config[string]{})
	defer q.ShutDown()
	h := handlers{q: q}
	ns := func(name string, phase api.NamespacePhase) *api.Namespace {
		return &api.Namespace{ObjectMeta: api.ObjectMeta{Name: name}, Status: api.NamespaceStatus{Phase: phase}}
	}
	other := func(namespace string) *api.ConfigMap {
		return &api.ConfigMap{ObjectMeta: api.ObjectMeta{Namespace: namespace, Name: "other"}}
	}
	h.namespaceAdded(ns("a", api.NamespaceTerminating), true)
	h.namespaceUpdated(ns("x", api.NamespaceActive), ns("b", api.NamespaceActive))
	h.namespaceUpdated(ns("x", api.NamespaceActive), ns("no-1", api.NamespaceTerminating))
	h.namespaceUpdated(ns("x", api.NamespaceActive), ns("no-2", ""))
	h.configMapUpdated(other("x"), rootCM("c"))
	h.configMapUpdated(rootCM("x"), other("no-3"))
	h.configMapDeleted(rootCM("d"), true)
	h.configMapDeleted(other("no-4"), false)
	var got []string
	for q.Len() > 0 {
		k, err := q.Get(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		got = append(got, k)
		q.Done(k)
	}
	if !slices.Equal(got, []string{"a", "b", "c", "d"}) {
		t.Fatalf("enqueued %q, want [a b c d]", got)
	}
}
