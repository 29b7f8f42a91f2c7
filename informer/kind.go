package informer

import (
	"errors"
	"fmt"

	"github.com/kcmlab/kcm/kube/api"
	"github.com/kcmlab/kcm/kube/rest"
)

// ErrKindMismatch: a typed informer was asked for a resource whose objects
// are not of its Go type's kind (For[api.Pod] of rest.Deployments), or of
// a resource that names no kind at all.
var ErrKindMismatch = errors.New("informer: the Go type is not the resource's kind")

// CheckKind returns nil when the typed struct S models res's objects: its
// kind (api.KindOf) is res.Kind. Otherwise it returns an error wrapping
// ErrKindMismatch that names both. For panics with that error; a
// constructor that wants an error instead (ctrl.Watch) checks first.
func CheckKind[S any](res rest.Resource) error {
	kind := api.KindOf[S]()
	if res.Kind == "" {
		return fmt.Errorf("%w: %s names no kind, and %T objects are %s", ErrKindMismatch, res, *new(S), kind)
	}
	if kind != res.Kind {
		return fmt.Errorf("%w: %T objects are %s, %s serves %s", ErrKindMismatch, *new(S), kind, res, res.Kind)
	}
	return nil
}
