package informer_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/kcmlab/kcm/informer"
	"github.com/kcmlab/kcm/kube/api"
	"github.com/kcmlab/kcm/kube/rest"
)

// TestCheckKind: a typed struct goes with the resources of its kind only.
func TestCheckKind(t *testing.T) {
	noKind := rest.Resource{Version: "v1", Resource: "pods", Namespaced: true}
	for _, tc := range []struct {
		name string
		err  error
		want []string // in the error; nil: no error
	}{
		{"Pod, pods", informer.CheckKind[api.Pod](rest.Pods), nil},
		{"CoreEvent, events", informer.CheckKind[api.CoreEvent](rest.Events), nil},
		{"Deployment, deployments", informer.CheckKind[api.Deployment](rest.Deployments), nil},
		{"Pod, deployments", informer.CheckKind[api.Pod](rest.Deployments), []string{"api.Pod", "Pod", "deployments.v1.apps", "Deployment"}},
		{"ReplicaSet, pods", informer.CheckKind[api.ReplicaSet](rest.Pods), []string{"api.ReplicaSet", "pods.v1", "Pod"}},
		{"Pod, a resource without kind", informer.CheckKind[api.Pod](noKind), []string{"names no kind"}},
	} {
		switch {
		case tc.want == nil && tc.err != nil:
			t.Errorf("%s: %v", tc.name, tc.err)
		case tc.want != nil && !errors.Is(tc.err, informer.ErrKindMismatch):
			t.Errorf("%s: err = %v, want ErrKindMismatch", tc.name, tc.err)
		case tc.want != nil:
			for _, w := range tc.want {
				if !strings.Contains(tc.err.Error(), w) {
					t.Errorf("%s: %q does not name %q", tc.name, tc.err, w)
				}
			}
		}
	}
}

// TestForRefusesAnotherKind: For[api.Pod] of Deployments fails at
// construction, before any informer is made.
func TestForRefusesAnotherKind(t *testing.T) {
	f := informer.NewFactory(nil, informer.FactoryOptions{})
	defer func() {
		err, _ := recover().(error)
		if !errors.Is(err, informer.ErrKindMismatch) {
			t.Fatalf("For[api.Pod](f, rest.Deployments) recovered %v, want an ErrKindMismatch panic", err)
		}
	}()
	informer.For[api.Pod](f, rest.Deployments)
}
