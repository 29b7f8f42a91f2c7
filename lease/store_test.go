package lease_test

import (
	"context"
	"errors"
	"testing"

	"github.com/kcmlab/kcm/kube/rest"
	"github.com/kcmlab/kcm/lease"
)

// TestMemoryStore checks MemoryStore against the Store contract, the
// apiserver's optimistic concurrency as the elector relies on it: GET of a
// missing object is 404 NotFound, a POST of an existing name 409
// AlreadyExists, a PUT of a missing object 404 and a PUT at a stale
// metadata.resourceVersion 409 Conflict; every successful write gets a
// new resourceVersion; a call on a done context returns its error.
func TestMemoryStore(t *testing.T) {
	ctx := context.Background()
	m := &lease.MemoryStore{}
	if _, err := m.Get(ctx); !rest.IsNotFound(err) {
		t.Errorf("Get of no lease = %v, want NotFound", err)
	}
	if _, err := m.Update(ctx, lease.Record{HolderIdentity: "a"}); !rest.IsNotFound(err) {
		t.Errorf("Update of no lease = %v, want NotFound", err)
	}
	rec, err := m.Create(ctx, lease.Record{HolderIdentity: "a", ResourceVersion: "99"})
	if err != nil || rec.ResourceVersion != "1" || rec.HolderIdentity != "a" {
		t.Fatalf("Create = %+v, %v; want holder a at resourceVersion 1", rec, err)
	}
	if _, err := m.Create(ctx, lease.Record{HolderIdentity: "b"}); !rest.IsAlreadyExists(err) {
		t.Errorf("second Create = %v, want AlreadyExists", err)
	}
	rec.HolderIdentity = "b"
	if got, err := m.Update(ctx, rec); err != nil || got.ResourceVersion != "2" || got.HolderIdentity != "b" {
		t.Errorf("Update = %+v, %v; want holder b at resourceVersion 2", got, err)
	}
	if _, err := m.Update(ctx, rec); !rest.IsConflict(err) { // rec still carries 1
		t.Errorf("Update at a stale resourceVersion = %v, want Conflict", err)
	}
	if got := mustGet(t, m); got.ResourceVersion != "2" || got.HolderIdentity != "b" {
		t.Errorf("Get = %+v, want holder b at resourceVersion 2", got)
	}

	done, cancel := context.WithCancel(ctx)
	cancel()
	got := mustGet(t, m)
	if _, err := m.Get(done); !errors.Is(err, context.Canceled) {
		t.Errorf("Get on a cancelled context = %v", err)
	}
	if _, err := m.Create(done, got); !errors.Is(err, context.Canceled) {
		t.Errorf("Create on a cancelled context = %v", err)
	}
	if _, err := m.Update(done, got); !errors.Is(err, context.Canceled) {
		t.Errorf("Update on a cancelled context = %v", err)
	}
	if after := mustGet(t, m); after != got {
		t.Errorf("calls on a cancelled context changed the lease to %+v", after)
	}
}
