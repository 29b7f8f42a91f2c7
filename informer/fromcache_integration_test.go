package informer_test

import (
	"fmt"
	"sync"
	"testing"

	"github.com/kcmlab/kcm/informer"
	"github.com/kcmlab/kcm/kube/api"
	"github.com/kcmlab/kcm/kube/api/decode"
	"github.com/kcmlab/kcm/kube/rest"
	"github.com/kcmlab/kcm/reflector"
	"github.com/kcmlab/kcm/testenv"
)

// pageSizes records the item count of every LIST page a reflector read.
type pageSizes struct {
	mu    sync.Mutex
	pages []int
}

func (p *pageSizes) ListPage(n int, _ string, _ bool) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.pages = append(p.pages, n)
}
func (p *pageSizes) WatchEvent(rest.EventType, string, int)    {}
func (p *pageSizes) PhaseChange(_, _ reflector.Phase, _ error) {}
func (p *pageSizes) String() string {
	p.mu.Lock()
	defer p.mu.Unlock()
	return fmt.Sprint(p.pages)
}

// The default first LIST (resourceVersion "0", limit = the page size)
// against kube-apiserver (each supported release: make compat), as
// reflector/doc.go describes it: a resource with a watch cache (pods) is
// answered whole in one response, the limit ignored; a resource without
// one (testenv's configmaps, --watch-cache-sizes=configmaps#0) is
// answered from etcd page by page, and the reflector follows the continue
// tokens. Either way the informer syncs every object.
func TestFirstListFromTheCacheAgainstKubeAPIServer(t *testing.T) {
	if testenv.UncachedResource != rest.ConfigMaps.Resource {
		t.Fatalf("testenv runs %s without a watch cache; this test expects configmaps", testenv.UncachedResource)
	}
	_, c, ns, ctx := setup(t)
	const n, pageSize = 12, 5
	pods := rest.NewResources(c, rest.Pods, decode.Typed[api.Pod]()).InNamespace(ns)
	cms := rest.NewResources(c, rest.ConfigMaps, decode.Raw()).InNamespace(ns)
	for i := range n {
		p := &api.Pod{ObjectMeta: api.ObjectMeta{Name: fmt.Sprintf("p-%d", i)},
			Spec: api.PodSpec{Containers: []api.Container{{Name: "c", Image: "registry.k8s.io/pause:3.10"}}}}
		if _, err := pods.Create(ctx, p); err != nil {
			t.Fatal(err)
		}
		cm, err := api.NewRawObject(map[string]any{"apiVersion": "v1", "kind": "ConfigMap", "metadata": map[string]any{"name": fmt.Sprintf("cm-%d", i)}})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := cms.Create(ctx, cm); err != nil {
			t.Fatal(err)
		}
	}
	for _, tc := range []struct {
		res       rest.Resource
		wantPages string
	}{
		{rest.Pods, "[12]"},          // from the watch cache, whole
		{rest.ConfigMaps, "[5 5 2]"}, // from etcd, paged
	} {
		t.Run(tc.res.Resource, func(t *testing.T) {
			ro := fastReflector(reflector.ListDefault)
			ro.PageSize = pageSize
			pages := &pageSizes{}
			ro.Observer = pages
			f := startFactory(t, ctx, c, ns, ro)
			inf := informer.ForRaw(f, tc.res)
			f.Start(ctx)
			if synced := f.WaitForCacheSync(ctx); !synced[inf.Name()] {
				t.Fatalf("not synced: %v", synced)
			}
			if got := inf.Store().Len(); got != n {
				t.Fatalf("cached %d %s, want %d", got, tc.res.Resource, n)
			}
			if got := pages.String(); got != tc.wantPages {
				t.Fatalf("first list pages %s, want %s", got, tc.wantPages)
			}
		})
	}
}
