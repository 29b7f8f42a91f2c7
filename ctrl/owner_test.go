package ctrl

import (
	"slices"
	"testing"

	"github.com/kcmlab/kcm/informer"
	"github.com/kcmlab/kcm/kube/api"
	"github.com/kcmlab/kcm/kube/rest"
	"github.com/kcmlab/kcm/store"
)

type keys []string

func (k *keys) Add(key string) { *k = append(*k, key) }

func controlledBy(kind, name, uid string) api.ObjectMeta {
	yes := true
	return api.ObjectMeta{Namespace: "ns", Name: "p", OwnerReferences: []api.OwnerReference{
		{APIVersion: "apps/v1", Kind: "Deployment", Name: "other", UID: "u-other"}, // not the controller
		{APIVersion: "apps/v1", Kind: kind, Name: name, UID: uid, Controller: &yes},
	}}
}

// TestOwners: a controller reference resolves to the cached owner of its
// kind, name and UID, in the owned object's namespace, and nothing else
// does (Kubernetes' resolveControllerRef).
func TestOwners(t *testing.T) {
	s := store.New(store.Options[*api.ReplicaSet]{})
	s.Replace([]*api.ReplicaSet{
		{ObjectMeta: api.ObjectMeta{Namespace: "ns", Name: "web", UID: "u1"}},
		{ObjectMeta: api.ObjectMeta{Namespace: "other", Name: "db", UID: "u2"}},
	})
	o := OwnersOf(rest.ReplicaSets, informer.NewLister(s.View(), "replicasets"))
	for _, tc := range []struct {
		name string
		pod  *api.Pod
		want string // the owner's key; "" none
	}{
		{"controlled", &api.Pod{ObjectMeta: controlledBy("ReplicaSet", "web", "u1")}, "ns/web"},
		{"replaced under the same name", &api.Pod{ObjectMeta: controlledBy("ReplicaSet", "web", "u0")}, ""},
		{"another kind of the same name", &api.Pod{ObjectMeta: controlledBy("StatefulSet", "web", "u1")}, ""},
		{"not cached", &api.Pod{ObjectMeta: controlledBy("ReplicaSet", "gone", "u3")}, ""},
		{"owner in another namespace", &api.Pod{ObjectMeta: controlledBy("ReplicaSet", "db", "u2")}, ""},
		{"no controller", &api.Pod{ObjectMeta: api.ObjectMeta{Namespace: "ns", Name: "p"}}, ""},
	} {
		rs, ok := o.ControllerOf(tc.pod)
		got := ""
		if ok {
			got = rs.Key()
		}
		var q keys
		enqueued := o.EnqueueController(&q, tc.pod)
		switch {
		case tc.want == "" && (ok || enqueued || len(q) != 0):
			t.Errorf("%s: resolved to %q, enqueued %q", tc.name, got, q)
		case tc.want != "" && (got != tc.want || !enqueued || !slices.Equal(q, keys{tc.want})):
			t.Errorf("%s: resolved to %q, enqueued %q; want %s", tc.name, got, q, tc.want)
		}
	}
	if _, ok := o.Resolve("ns", nil); ok {
		t.Error("a nil reference resolved")
	}
}
