package quota_test

import (
	"maps"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/kcmlab/kcm/kube/api"
	"github.com/kcmlab/kcm/kube/api/resource"
)

// t0 is the tests' time.
var t0 = time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)

// rl is a ResourceList from "name=quantity,..." ("" is nil).
func rl(s string) api.ResourceList {
	if s == "" {
		return nil
	}
	out := api.ResourceList{}
	for kv := range strings.SplitSeq(s, ",") {
		k, v, _ := strings.Cut(kv, "=")
		out[k] = v
	}
	return out
}

// ctr is a container with requests and limits.
func ctr(name, req, lim string) api.Container {
	return api.Container{Name: name, Image: "img", Resources: api.ResourceRequirements{Requests: rl(req), Limits: rl(lim)}}
}

// sidecar is a restartable init container.
func sidecar(name, req, lim string) api.Container {
	c := ctr(name, req, lim)
	always := string(api.RestartPolicyAlways)
	c.RestartPolicy = &always
	return c
}

// mkPod returns a running pod in namespace "ns" with the containers, then
// applies the edits.
func mkPod(name string, containers []api.Container, edits ...func(*api.Pod)) *api.Pod {
	p := &api.Pod{ObjectMeta: api.ObjectMeta{Name: name, Namespace: "ns"}, Spec: api.PodSpec{Containers: containers},
		Status: api.PodStatus{Phase: api.PodRunning}}
	for _, e := range edits {
		e(p)
	}
	return p
}

func inits(cs ...api.Container) func(*api.Pod) {
	return func(p *api.Pod) { p.Spec.InitContainers = cs }
}

func phase(ph api.PodPhase) func(*api.Pod) { return func(p *api.Pod) { p.Status.Phase = ph } }

// equalLists fails the test unless got, as canonical strings, is want.
func equalLists(t *testing.T, what string, got resource.List, want api.ResourceList) {
	t.Helper()
	g := got.Strings()
	if !maps.Equal(g, want) {
		t.Errorf("%s:\n got %v\nwant %v", what, sorted(g), sorted(want))
	}
}

// sorted renders a list in name order.
func sorted(l api.ResourceList) string {
	var b strings.Builder
	for _, k := range slices.Sorted(maps.Keys(l)) {
		b.WriteString(k + "=" + l[k] + " ")
	}
	return b.String()
}

func ptr[T any](v T) *T { return &v }
