package controllerref

import (
	"context"
	"errors"
	"fmt"
	"sync"

	"github.com/kcmlab/kcm/kube/api"
	"github.com/kcmlab/kcm/kube/labels"
	"github.com/kcmlab/kcm/kube/rest"
)

// ErrCannotAdopt wraps the reason a controller may not adopt anything
// right now (it is gone, was replaced, or is being deleted).
var ErrCannotAdopt = errors.New("controller cannot adopt")

// Owner is the controller that claims dependents.
type Owner struct {
	// Ref is the controller ref that adoption writes (see
	// NewControllerRef); its UID identifies the owner.
	Ref api.OwnerReference
	// Namespace is the owner's namespace: only dependents there can be
	// adopted.
	Namespace string
	// Deleting is true when the owner (as cached) has a deletionTimestamp.
	Deleting bool
}

// OwnerOf describes a cached controller object as an Owner of the given
// group-version and kind.
func OwnerOf(obj api.Object, apiVersion, kind string) Owner {
	m := obj.GetObjectMeta()
	return Owner{Ref: NewControllerRef(m, apiVersion, kind), Namespace: m.Namespace, Deleting: m.DeletionTimestamp != nil}
}

// NewControllerRef returns the reference that marks owner as the managing
// controller: controller and blockOwnerDeletion true, so that a foreground
// deletion of the owner waits for the dependent.
func NewControllerRef(owner *api.ObjectMeta, apiVersion, kind string) api.OwnerReference {
	t := true
	return api.OwnerReference{APIVersion: apiVersion, Kind: kind, Name: owner.Name, UID: owner.UID,
		Controller: &t, BlockOwnerDeletion: &t}
}

// Patcher applies a strategic merge patch to the dependent named name in
// the owner's namespace, e.g. rest.Resources.Patch through PatcherFor.
type Patcher func(ctx context.Context, name string, patch []byte) error

// PatcherFor returns a Patcher over a namespaced typed client.
func PatcherFor[T api.Object](r *rest.Resources[T]) Patcher {
	return func(ctx context.Context, name string, patch []byte) error {
		_, err := r.Patch(ctx, name, rest.StrategicMergePatch, patch, rest.PatchOptions{})
		return err
	}
}

// Manager claims dependents of type T for one owner during one sync. It
// is cheap; build a new one per sync (the fresh-owner check runs at most
// once per Manager).
type Manager[T api.Object] struct {
	owner    Owner
	selector labels.Selector
	patch    Patcher
	recheck  func(ctx context.Context) error

	once      sync.Once
	adoptable error
}

// NewManager returns a Manager. recheck reads the owner fresh from the
// apiserver and returns an error when it may not adopt (see
// RecheckDeletionTimestamp); it runs before the first adoption only.
func NewManager[T api.Object](owner Owner, selector labels.Selector, patch Patcher, recheck func(ctx context.Context) error) *Manager[T] {
	return &Manager[T]{owner: owner, selector: selector, patch: patch, recheck: recheck}
}

// RecheckDeletionTimestamp turns a fresh read of the owner into the
// adoption check: the owner must still exist with the same UID and must
// not be being deleted.
func RecheckDeletionTimestamp(uid string, get func(ctx context.Context) (*api.ObjectMeta, error)) func(ctx context.Context) error {
	return func(ctx context.Context) error {
		fresh, err := get(ctx)
		if err != nil {
			return fmt.Errorf("%w: reading it: %w", ErrCannotAdopt, err)
		}
		if fresh.UID != uid {
			return fmt.Errorf("%w: original %s/%s is gone: got uid %s, wanted %s",
				ErrCannotAdopt, fresh.Namespace, fresh.Name, fresh.UID, uid)
		}
		if fresh.DeletionTimestamp != nil {
			return fmt.Errorf("%w: %s/%s has just been deleted at %s",
				ErrCannotAdopt, fresh.Namespace, fresh.Name, fresh.DeletionTimestamp.UTC().Format("2006-01-02T15:04:05Z"))
		}
		return nil
	}
}

// Claim returns the objects of objs this owner controls after adopting the
// matching orphans and releasing the owned ones that stopped matching.
// filters further restrict "matching" (Kubernetes passes none for pods of
// a ReplicaSet; a filter may exclude, e.g., terminal pods). Errors of
// individual objects are joined; the objects claimed so far are still
// returned, so that a sync can act on what it knows.
func (m *Manager[T]) Claim(ctx context.Context, objs []T, filters ...func(T) bool) ([]T, error) {
	var claimed []T
	var errs []error
	for _, obj := range objs {
		ok, err := m.claimOne(ctx, obj, filters)
		if err != nil {
			errs = append(errs, err)
			continue
		}
		if ok {
			claimed = append(claimed, obj)
		}
	}
	return claimed, errors.Join(errs...)
}

func (m *Manager[T]) matches(obj T, filters []func(T) bool) bool {
	if !m.selector.Matches(obj.GetObjectMeta().Labels) {
		return false
	}
	for _, f := range filters {
		if !f(obj) {
			return false
		}
	}
	return true
}

// claimOne is ClaimObject: whether obj is (now) this owner's.
func (m *Manager[T]) claimOne(ctx context.Context, obj T, filters []func(T) bool) (bool, error) {
	meta := obj.GetObjectMeta()
	if ref := meta.ControllerRef(); ref != nil {
		if ref.UID != m.owner.Ref.UID {
			return false, nil // another controller's
		}
		if m.matches(obj, filters) {
			return true, nil
		}
		if m.owner.Deleting {
			return false, nil // the garbage collector will handle it
		}
		return false, ignoreGone(m.release(ctx, meta))
	}
	// An orphan.
	if m.owner.Deleting || !m.matches(obj, filters) || meta.DeletionTimestamp != nil ||
		meta.Namespace != m.owner.Namespace {
		return false, nil
	}
	if err := m.adopt(ctx, meta); err != nil {
		// A 404 of the patch: the dependent is gone. A 404 of the owner's
		// fresh read is no such thing: the sync fails and is retried, as
		// Kubernetes' does.
		if rest.IsNotFound(err) && !errors.Is(err, ErrCannotAdopt) {
			return false, nil
		}
		return false, err
	}
	return true, nil
}

func (m *Manager[T]) adopt(ctx context.Context, meta *api.ObjectMeta) error {
	m.once.Do(func() {
		if m.recheck != nil {
			m.adoptable = m.recheck(ctx)
		}
	})
	if m.adoptable != nil {
		return fmt.Errorf("can't adopt %s (%s): %w", meta.Key(), meta.UID, m.adoptable)
	}
	patch, err := adoptPatch(m.owner.Ref, meta.UID)
	if err != nil {
		return err
	}
	if err := m.patch(ctx, meta.Name, patch); err != nil {
		return fmt.Errorf("adopting %s: %w", meta.Key(), err)
	}
	return nil
}

func (m *Manager[T]) release(ctx context.Context, meta *api.ObjectMeta) error {
	patch, err := releasePatch(m.owner.Ref.UID, meta.UID)
	if err != nil {
		return err
	}
	if err := m.patch(ctx, meta.Name, patch); err != nil {
		return fmt.Errorf("releasing %s: %w", meta.Key(), err)
	}
	return nil
}

// ignoreGone drops the errors of a release that has nothing left to do:
// the dependent is gone (404), or it no longer carries the ref or was
// replaced under the same name, which the UID precondition turns into 422.
func ignoreGone(err error) error {
	if rest.IsNotFound(err) || rest.IsInvalid(err) {
		return nil
	}
	return err
}
