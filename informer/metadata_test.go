package informer_test

import (
	"context"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/kcmlab/kcm/informer"
	"github.com/kcmlab/kcm/internal/testing/fakeapi"
	"github.com/kcmlab/kcm/kube/api"
	"github.com/kcmlab/kcm/kube/rest"
	"github.com/kcmlab/kcm/processor"
	"github.com/kcmlab/kcm/store"
)

var chaosDeployments = fakeapi.Resource{Group: "apps", Version: "v1", Resource: "deployments", Kind: "Deployment"}

// TestFactoryExisting: Existing hands out an informer the factory
// already made for exactly that resource and makes none; the typed one
// is preferred over raw and metadata-only ones; a factory limited to a
// namespace shares nothing (the garbage collector and the quota
// controller watch every namespace).
func TestFactoryExisting(t *testing.T) {
	c, err := rest.NewClient(&rest.Config{Host: "http://127.0.0.1:1", QPS: -1}) // never dialled: nothing runs
	if err != nil {
		t.Fatal(err)
	}
	f := informer.NewFactory(c, informer.FactoryOptions{})
	if _, ok := f.Existing(rest.Pods); ok {
		t.Fatal("Existing found a pods informer in an empty factory")
	}
	informer.ForMetadata(f, rest.Pods)
	if m, ok := f.Existing(rest.Pods); !ok || m.Name() != "pods(metadata)" {
		t.Fatalf("Existing(pods) with a metadata informer = %v, %v; want pods(metadata)", m, ok)
	}
	informer.ForRaw(f, rest.Pods)
	if m, ok := f.Existing(rest.Pods); !ok || m.Name() != "pods(raw)" {
		t.Fatalf("Existing(pods) with raw and metadata informers = %v, %v; want pods(raw)", m, ok)
	}
	typed := informer.For[api.Pod](f, rest.Pods)
	if m, ok := f.Existing(rest.Pods); !ok || m.Name() != typed.Name() {
		t.Fatalf("Existing(pods) with typed, raw and metadata informers = %v, %v; want %s", m, ok, typed.Name())
	}
	other := rest.Pods
	other.Version = "v2"
	if _, ok := f.Existing(other); ok {
		t.Error("Existing(pods.v2) found the pods.v1 informer: only the exact resource is shared")
	}
	if _, ok := f.Existing(rest.Deployments); ok {
		t.Error("Existing made or found a deployments informer nobody asked for")
	}
	if _, ok := f.Existing(rest.Deployments); ok {
		t.Error("a second Existing found the informer the first should not have made")
	}
	ns := informer.NewFactory(c, informer.FactoryOptions{Namespace: "ns"})
	informer.For[api.Pod](ns, rest.Pods)
	if _, ok := ns.Existing(rest.Pods); ok {
		t.Error("a factory limited to one namespace shared its pods informer")
	}
}

// TestMetadataHandler: a handler added through a typed informer's
// Metadata view is told of every add, update and delete with the
// object's metadata as a RawObject that keeps none of the typed object's
// source (the bytes of a whole Pod are not a RawObject's), on JSON and on
// protobuf; IndexLen counts the cache.
func TestMetadataHandler(t *testing.T) {
	for _, ct := range []string{rest.ContentTypeJSON, rest.ContentTypeProtobuf} {
		t.Run(ct, func(t *testing.T) {
			srv := fakeapi.New(fakeapi.Options{Resources: []fakeapi.Resource{chaosPods, chaosDeployments}})
			defer srv.Close()
			c, err := rest.NewClient(&rest.Config{Host: srv.URL(), QPS: -1, ContentType: ct})
			if err != nil {
				t.Fatal(err)
			}
			defer c.CloseIdleConnections()
			ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
			defer cancel()
			create := func(name string) {
				t.Helper()
				if _, err := srv.Create(chaosDeployments, map[string]any{"metadata": map[string]any{
					"namespace": "ns", "name": name, "labels": map[string]any{"app": name},
					"ownerReferences": []any{map[string]any{"apiVersion": "v1", "kind": "ConfigMap", "name": "owner", "uid": "owner-uid"}},
				}, "spec": map[string]any{"replicas": 1}}); err != nil {
					t.Fatal(err)
				}
			}
			create("a")

			f := informer.NewFactory(c, informer.FactoryOptions{})
			inf := informer.For[api.Deployment](f, rest.Deployments)
			view, ok := f.Existing(rest.Deployments)
			if !ok {
				t.Fatal("Existing found no deployments informer")
			}
			seen := make(chan string, 16)
			var mu sync.Mutex
			var bad []string
			check := func(what string, o *api.RawObject) {
				mu.Lock()
				defer mu.Unlock()
				if o.IsProto() || o.Raw() != nil {
					bad = append(bad, what+": the RawObject carries the Deployment's source")
				}
				if o.UID == "" || o.Namespace != "ns" || len(o.OwnerReferences) != 1 || o.OwnerReferences[0].UID != "owner-uid" || o.Labels["app"] != o.Name {
					bad = append(bad, fmt.Sprintf("%s: metadata lost: %+v", what, o.ObjectMeta))
				}
			}
			reg, err := view.AddMetadataHandler(processor.HandlerFuncs[*api.RawObject]{
				AddFunc:    func(o *api.RawObject, _ bool) { check("add", o); seen <- "add " + o.Name },
				UpdateFunc: func(_, o *api.RawObject) { check("update", o); seen <- "update " + o.Name },
				DeleteFunc: func(o *api.RawObject, _ bool) { check("delete", o); seen <- "delete " + o.Name },
			}, processor.HandlerOptions{Name: "meta"})
			if err != nil {
				t.Fatal(err)
			}
			f.Start(ctx)
			defer f.Shutdown()
			want := func(ev string) {
				t.Helper()
				select {
				case got := <-seen:
					if got != ev {
						t.Fatalf("handler got %q, want %q", got, ev)
					}
				case <-ctx.Done():
					t.Fatalf("handler never got %q", ev)
				}
			}
			want("add a")
			create("b")
			want("add b")
			if _, err := srv.Update(chaosDeployments, map[string]any{"metadata": map[string]any{
				"namespace": "ns", "name": "b", "labels": map[string]any{"app": "b"},
				"ownerReferences": []any{map[string]any{"apiVersion": "v1", "kind": "ConfigMap", "name": "owner", "uid": "owner-uid"}},
			}, "spec": map[string]any{"replicas": 2}}); err != nil {
				t.Fatal(err)
			}
			want("update b")
			if n, err := view.IndexLen(store.IndexNamespace, "ns"); n != 2 || err != nil {
				t.Errorf("IndexLen(namespace, ns) = %d, %v; want 2", n, err)
			}
			if _, err := srv.Delete(chaosDeployments, "ns", "a"); err != nil {
				t.Fatal(err)
			}
			want("delete a")
			if err := view.RemoveEventHandler(reg); err != nil {
				t.Fatal(err)
			}
			<-reg.Done()
			if !inf.HasSynced() {
				t.Error("removing the metadata handler stopped the informer")
			}
			if ct == rest.ContentTypeProtobuf && srv.Stats().Protobuf == 0 {
				t.Error("the informer read no protobuf: the case tests JSON twice")
			}
			mu.Lock()
			defer mu.Unlock()
			for _, b := range bad {
				t.Error(b)
			}
		})
	}
}
