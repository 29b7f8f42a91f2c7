package rest_test

import (
	"context"
	"testing"
	"time"

	"github.com/kcmlab/kcm/kube/api"
	"github.com/kcmlab/kcm/kube/rest"
	"github.com/kcmlab/kcm/testenv"
)

// env returns a client on the shared real cluster, a fresh namespace and a
// context bounded for the test.
func env(t *testing.T) (*rest.Client, string, context.Context) {
	t.Helper()
	cl := testenv.Shared(t)
	cfg := cl.Config()
	cfg.QPS = -1 // tests create objects in bulk
	c, err := rest.NewClient(cfg)
	if err != nil {
		t.Fatalf("NewClient: %v", err)
	}
	ns := cl.Namespace(t)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	t.Cleanup(cancel)
	return c, ns, ctx
}

func ptr[T any](v T) *T { return &v }

func testPod(name string) *api.Pod {
	return &api.Pod{
		ObjectMeta: api.ObjectMeta{Name: name, Labels: map[string]string{"app": "web"}},
		Spec:       api.PodSpec{Containers: []api.Container{{Name: "c", Image: "registry.k8s.io/pause:3.10"}}},
	}
}

func podTemplate(labels map[string]string) api.PodTemplateSpec {
	return api.PodTemplateSpec{
		ObjectMeta: api.ObjectMeta{Labels: labels},
		Spec:       api.PodSpec{Containers: []api.Container{{Name: "c", Image: "registry.k8s.io/pause:3.10"}}},
	}
}
