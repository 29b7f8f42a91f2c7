//go:build !nocluster

package informer_test

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/kcmlab/kcm/informer"
	"github.com/kcmlab/kcm/kube/api"
	"github.com/kcmlab/kcm/kube/api/decode"
	"github.com/kcmlab/kcm/kube/labels"
	"github.com/kcmlab/kcm/kube/rest"
	"github.com/kcmlab/kcm/processor"
	"github.com/kcmlab/kcm/reflector"
	"github.com/kcmlab/kcm/testenv"
)

// TestProtoInformers: on a client whose ContentType is protobuf, the raw
// and metadata-only informers (decode.Wire) cache pods as RawObjects
// holding their protobuf message, managedFields dropped, whether they
// start with WatchList or a paged LIST, over chunked HTTP or WebSocket,
// and follow the watch; a custom resource's raw informer stays JSON,
// its metadata-only informer is protobuf.
func TestProtoInformers(t *testing.T) {
	cl, js, ns, ctx := setup(t)
	cfg := cl.Config()
	cfg.QPS = -1
	cfg.ContentType = rest.ContentTypeProtobuf
	pb, err := rest.NewClient(cfg)
	if err != nil {
		t.Fatal(err)
	}
	pods := rest.NewResources(js, rest.Pods, decode.Typed[api.Pod]()).InNamespace(ns)
	newPod := func(name string) {
		t.Helper()
		if _, err := pods.Create(ctx, &api.Pod{ObjectMeta: api.ObjectMeta{Name: name, Labels: map[string]string{"app": "web"}},
			Spec: api.PodSpec{Containers: []api.Container{{Name: "c", Image: "registry.k8s.io/pause:3.10"}}}}); err != nil {
			t.Fatal(err)
		}
	}
	for i := range 3 {
		newPod(fmt.Sprintf("p%d", i))
	}
	group := strings.ToLower(ns) + ".kcm.test"
	crd := testenv.InstallCRD(t, ctx, js, group, "Widget")
	w, err := api.NewRawObject(map[string]any{"apiVersion": group + "/v1", "kind": "Widget", "metadata": map[string]any{"name": "w1"}})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := rest.NewResources(js, crd, decode.Raw()).InNamespace(ns).Create(ctx, w); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		initial   reflector.InitialList
		transport rest.WatchTransport
	}{{reflector.ListStream, rest.Chunked}, {reflector.ListConsistent, rest.WebSocket}} {
		t.Run(fmt.Sprintf("initial %v transport %d", tc.initial, tc.transport), func(t *testing.T) {
			f := informer.NewFactory(pb, informer.FactoryOptions{Namespace: ns, Reflector: fastReflector(tc.initial), Transport: tc.transport})
			t.Cleanup(f.Shutdown)
			raw := informer.ForRaw(f, rest.Pods)
			meta := informer.ForMetadata(f, rest.Pods)
			craw := informer.ForRaw(f, crd)
			cmeta := informer.ForMetadata(f, crd)
			added := make(chan *api.RawObject, 16)
			if _, err := raw.AddEventHandler(processor.HandlerFuncs[*api.RawObject]{AddFunc: func(o *api.RawObject, initial bool) {
				if !initial {
					added <- o
				}
			}}, processor.HandlerOptions{}); err != nil {
				t.Fatal(err)
			}
			f.Start(ctx)
			for name, ok := range f.WaitForCacheSync(ctx) {
				if !ok {
					t.Fatalf("%s not synced", name)
				}
			}
			check := func(what string, objs []*api.RawObject, kind string, proto bool) []string {
				t.Helper()
				var names []string
				for _, o := range objs {
					if o.IsProto() != proto || o.Kind != kind {
						t.Fatalf("%s: %s is %s, protobuf %v; want %s, protobuf %v", what, o.Name, o.Kind, o.IsProto(), kind, proto)
					}
					if proto && strings.Contains(string(o.Proto()), "kube-scheduler") {
						t.Fatalf("%s: %s keeps managedFields", what, o.Name)
					}
					names = append(names, o.Name)
				}
				slices.Sort(names)
				return names
			}
			all := labels.Everything()
			if got := check("raw", raw.Lister().List(all), "Pod", true); len(got) < 3 {
				t.Fatalf("raw pods %v", got)
			}
			if got := check("metadata", meta.Lister().List(all), "PartialObjectMetadata", true); len(got) < 3 {
				t.Fatalf("metadata pods %v", got)
			}
			if got := check("CRD raw", craw.Lister().List(all), "Widget", false); !slices.Equal(got, []string{"w1"}) {
				t.Fatalf("CRD raw %v", got)
			}
			if got := check("CRD metadata", cmeta.Lister().List(all), "PartialObjectMetadata", true); !slices.Equal(got, []string{"w1"}) {
				t.Fatalf("CRD metadata %v", got)
			}
			name := fmt.Sprintf("live-%d", tc.transport)
			newPod(name)
			for {
				select {
				case o := <-added:
					if o.Name != name {
						continue
					}
					check("watched", []*api.RawObject{o}, "Pod", true)
				case <-ctx.Done():
					t.Fatalf("%s never added: %v", name, ctx.Err())
				}
				break
			}
		})
	}
}
