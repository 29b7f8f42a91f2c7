package informer

import (
	"strings"
	"testing"

	"github.com/kcmlab/kcm/kube/api"
	"github.com/kcmlab/kcm/kube/rest"
	"github.com/kcmlab/kcm/store"
)

// TestListerGetUsesTheCacheKey: a lister looks an object up under the key
// the cache stores it by (client-go's MetaNamespaceKeyFunc: "namespace/name",
// just "name" for a cluster-scoped object), so both Get(name) and
// Namespace("").Get(name) find a cluster-scoped object, and a name never
// matches across namespaces or scopes.
func TestListerGetUsesTheCacheKey(t *testing.T) {
	s := store.New(store.Options[*api.Pod]{Indexers: store.BuiltinIndexers[*api.Pod]()})
	cached := []*api.Pod{pod("ns", "a"), pod("other", "a"), pod("", "n1")}
	for _, o := range cached {
		s.Set(o)
	}
	l := NewLister(s.View(), "things")
	for _, o := range cached {
		m := o.GetObjectMeta()
		got, err := l.Namespace(m.Namespace).Get(m.Name)
		if err != nil || got != o {
			t.Errorf("Namespace(%q).Get(%q) = %v, %v; want the object cached under %q",
				m.Namespace, m.Name, got, err, s.View().KeyOf(o))
		}
	}
	for _, tc := range []struct {
		name string
		get  func() (*api.Pod, error)
		want string // the key of the object found; "" = not found
	}{
		{"cluster-scoped by Get", func() (*api.Pod, error) { return l.Get("n1") }, "n1"},
		{"cluster-scoped by Namespace(\"\").Get", func() (*api.Pod, error) { return l.Namespace("").Get("n1") }, "n1"},
		{"namespaced", func() (*api.Pod, error) { return l.Namespace("other").Get("a") }, "other/a"},
		{"a namespaced name is not cluster-scoped", func() (*api.Pod, error) { return l.Get("a") }, ""},
		{"a cluster-scoped name is in no namespace", func() (*api.Pod, error) { return l.Namespace("ns").Get("n1") }, ""},
		{"missing", func() (*api.Pod, error) { return l.Namespace("ns").Get("zz") }, ""},
	} {
		got, err := tc.get()
		if tc.want == "" {
			if !rest.IsNotFound(err) || got != nil || !strings.Contains(err.Error(), "things") {
				t.Errorf("%s: %v, %v; want a NotFound naming the resource", tc.name, got, err)
			}
			continue
		}
		if err != nil || got == nil || got.Key() != tc.want {
			t.Errorf("%s: %v, %v; want %s", tc.name, got, err, tc.want)
		}
	}
}
