//go:build !nocluster

package informer_test

import (
	"bytes"
	"fmt"
	"reflect"
	"testing"

	"github.com/kcmlab/kcm/informer"
	"github.com/kcmlab/kcm/internal/testing/podgen"
	"github.com/kcmlab/kcm/kube/api"
	"github.com/kcmlab/kcm/kube/api/decode"
	"github.com/kcmlab/kcm/kube/api/protowire"
	"github.com/kcmlab/kcm/kube/labels"
	"github.com/kcmlab/kcm/kube/rest"
	"github.com/kcmlab/kcm/processor"
	"github.com/kcmlab/kcm/reflector"
)

// TestProtoTypedInformer, against the real kube-apiserver: on a client
// whose ContentType is protobuf, a typed informer (informer.For) caches
// pods decoded from protobuf — by WatchList, by a paged consistent LIST
// and by a LIST from the watch cache, watched over chunked HTTP and
// WebSocket — each equal to what the same informer on JSON caches (the
// struct: every modelled field), holding its message with managedFields
// dropped; a new pod arrives by the watch as protobuf; a DeepCopy of the
// cached pod with the fields kcm does not model, changed and written
// back, keeps those fields. A StatefulSet informer on the same client
// stays JSON (the kind kept on JSON: decode's protoJSONOnly).
func TestProtoTypedInformer(t *testing.T) {
	cl, js, ns, ctx := setup(t)
	cfg := cl.Config()
	cfg.QPS = -1
	cfg.ContentType = rest.ContentTypeProtobuf
	pb, err := rest.NewClient(cfg)
	if err != nil {
		t.Fatal(err)
	}
	raw := rest.NewResources(js, rest.Pods, decode.Raw()).InNamespace(ns)
	jpods := rest.NewResources(js, rest.Pods, decode.Typed[api.Pod]()).InNamespace(ns)
	newPod := func(name string) {
		t.Helper()
		if _, err := jpods.Create(ctx, &api.Pod{ObjectMeta: api.ObjectMeta{Name: name, Labels: map[string]string{"app": "web"}},
			Spec: api.PodSpec{Containers: []api.Container{{Name: "c", Image: "registry.k8s.io/pause:3.10"}}}}); err != nil {
			t.Fatal(err)
		}
	}
	for i := range 5 {
		newPod(fmt.Sprintf("p%d", i))
	}
	rich, err := api.NewRawObject(podgen.UnmodelledPod("rich"))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := raw.Create(ctx, rich); err != nil {
		t.Fatal(err)
	}
	sts := &api.StatefulSet{ObjectMeta: api.ObjectMeta{Name: "sts"}, Spec: api.StatefulSetSpec{Replicas: ptrTo[int32](0),
		Selector: &api.LabelSelector{MatchLabels: map[string]string{"app": "sts"}},
		Template: api.PodTemplateSpec{ObjectMeta: api.ObjectMeta{Labels: map[string]string{"app": "sts"}},
			Spec: api.PodSpec{Containers: []api.Container{{Name: "c", Image: "registry.k8s.io/pause:3.10"}}}}}}
	if _, err := rest.NewResources(js, rest.StatefulSets, decode.Typed[api.StatefulSet]()).InNamespace(ns).Create(ctx, sts); err != nil {
		t.Fatal(err)
	}

	// The same informer on JSON: what the protobuf one must equal.
	jf := informer.NewFactory(js, informer.FactoryOptions{Namespace: ns, Reflector: fastReflector(reflector.ListConsistent)})
	t.Cleanup(jf.Shutdown)
	jinf := informer.For[api.Pod](jf, rest.Pods)
	jf.Start(ctx)
	if synced := jf.WaitForCacheSync(ctx); !synced["pods"] {
		t.Fatalf("JSON informer not synced: %v", synced)
	}
	// bare is the struct of a cached pod without what the encodings give
	// differently: its source (JSON or message) and its apiVersion and
	// kind (a JSON list's items have none).
	bare := func(p *api.Pod) api.Pod {
		c := *p
		c.ObjectMeta.SetRaw(nil)
		c.TypeMeta = api.TypeMeta{}
		return c
	}

	for i, tc := range []struct {
		initial   reflector.InitialList
		transport rest.WatchTransport
		pageSize  int64
	}{
		{reflector.ListStream, rest.Chunked, 100},
		{reflector.ListConsistent, rest.WebSocket, 2},
		{reflector.ListFromCache, rest.Chunked, 100},
	} {
		t.Run(fmt.Sprintf("initial %v transport %d page %d", tc.initial, tc.transport, tc.pageSize), func(t *testing.T) {
			ro := fastReflector(tc.initial)
			ro.PageSize = tc.pageSize
			f := informer.NewFactory(pb, informer.FactoryOptions{Namespace: ns, Reflector: ro, Transport: tc.transport})
			t.Cleanup(f.Shutdown)
			inf := informer.For[api.Pod](f, rest.Pods)
			stsInf := informer.For[api.StatefulSet](f, rest.StatefulSets)
			added := make(chan *api.Pod, 16)
			if _, err := inf.AddEventHandler(processor.HandlerFuncs[*api.Pod]{AddFunc: func(p *api.Pod, initial bool) {
				if !initial {
					added <- p
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
			all := labels.Everything()
			pods := inf.Lister().List(all)
			if len(pods) < 6 {
				t.Fatalf("%d pods cached", len(pods))
			}
			compared := 0
			for _, p := range pods {
				if !p.IsProto() || p.APIVersion != "v1" || p.Kind != "Pod" {
					t.Fatalf("%s: protobuf %v, %s %s", p.Name, p.IsProto(), p.APIVersion, p.Kind)
				}
				msg, err := p.OriginalProto()
				if err != nil || len(msg) == 0 {
					t.Fatalf("%s: message %d bytes, %v", p.Name, len(msg), err)
				}
				if cut, err := protowire.StripManagedFields(msg); err != nil || !bytes.Equal(cut, msg) {
					t.Fatalf("%s: the cached message keeps managedFields (%v)", p.Name, err)
				}
				jp, err := jinf.Lister().Get(p.Key())
				if err != nil {
					t.Fatalf("%s not in the JSON cache: %v", p.Key(), err)
				}
				if jp.ResourceVersion != p.ResourceVersion {
					continue // changed between the two syncs
				}
				compared++
				if got, want := bare(p), bare(jp); !reflect.DeepEqual(got, want) {
					t.Errorf("%s: the protobuf cache's pod differs from the JSON cache's:\n got %+v\nwant %+v", p.Name, got, want)
				}
			}
			if compared < 5 {
				t.Fatalf("only %d pods compared", compared)
			}
			sets := stsInf.Lister().List(all)
			if len(sets) != 1 {
				t.Fatalf("%d StatefulSets cached, want 1", len(sets))
			}
			for _, s := range sets {
				if s.IsProto() || s.Raw() == nil {
					t.Errorf("StatefulSet %s: protobuf %v; want JSON", s.Name, s.IsProto())
				}
			}

			name := fmt.Sprintf("live-%d", i)
			newPod(name)
			for done := false; !done; {
				select {
				case p := <-added:
					if p.Name == name {
						if !p.IsProto() {
							t.Fatalf("watched %s: not protobuf", name)
						}
						done = true
					}
				case <-ctx.Done():
					t.Fatalf("%s never added: %v", name, ctx.Err())
				}
			}
			if i > 0 {
				return
			}
			// A read-modify-write of the cached rich pod through a typed
			// client on protobuf keeps its unmodelled fields.
			cached, err := informer.PodsLister(f).Pods(ns).Get("rich")
			if err != nil {
				t.Fatal(err)
			}
			cp, err := api.DeepCopy(cached)
			if err != nil {
				t.Fatal(err)
			}
			cp.Labels = map[string]string{"touched": "yes"}
			cp.Spec.Containers[0].Image = "registry.k8s.io/pause:3.9" // image is mutable on a pod
			if _, err := rest.NewResources(pb, rest.Pods, decode.Typed[api.Pod]()).InNamespace(ns).Update(ctx, cp); err != nil {
				t.Fatalf("typed update of the cached pod: %v", err)
			}
			after, err := raw.Get(ctx, "rich")
			if err != nil {
				t.Fatal(err)
			}
			checkRich(t, "the apiserver after the update", after)
		})
	}
}

func ptrTo[T any](v T) *T { return &v }
