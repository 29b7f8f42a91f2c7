package lease

import (
	"context"
	"fmt"
	"strconv"
	"sync"

	"github.com/kcmlab/kcm/kube/rest"
)

// Store is the lease's I/O: read, create and conditionally update one
// record. Implementations report conditions with rest's sentinel errors, so
// the elector tests them one way for every store:
//
//	Get     → rest.ErrNotFound when there is no lease
//	Create  → rest.ErrAlreadyExists when someone created it first
//	Update  → rest.ErrConflict when rec.ResourceVersion is stale
//
// Every method must return soon after ctx is done: the elector cancels a
// leader's pending write at its RenewDeadline and waits for it. A
// candidate's round has no deadline of its own, so a store that talks to a
// server should also bound each call (KubeStore takes a request timeout).
type Store interface {
	Get(ctx context.Context) (Record, error)
	Create(ctx context.Context, rec Record) (Record, error)
	Update(ctx context.Context, rec Record) (Record, error)
}

// MemoryStore is a Store in memory with the apiserver's optimistic
// concurrency: every successful write gets a new resourceVersion, and an
// update at an older one fails with rest.ErrConflict. Several electors may
// share one to elect among themselves in a test. The zero value is an
// empty store, ready to use.
type MemoryStore struct {
	mu sync.Mutex
	// rec is the stored record; meaningful only when exists.
	rec    Record
	exists bool
	// version is the last resourceVersion handed out. Invariant: when exists,
	// rec.ResourceVersion == strconv.Itoa(version).
	version int
}

var _ Store = (*MemoryStore)(nil)

// Get returns the stored record or an error wrapping rest.ErrNotFound.
func (m *MemoryStore) Get(ctx context.Context) (Record, error) {
	if err := ctx.Err(); err != nil {
		return Record{}, err
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	if !m.exists {
		return Record{}, fmt.Errorf("lease: memory store: %w", rest.ErrNotFound)
	}
	return m.rec, nil
}

// Create stores rec (its ResourceVersion is ignored) unless a record exists.
func (m *MemoryStore) Create(ctx context.Context, rec Record) (Record, error) {
	if err := ctx.Err(); err != nil {
		return Record{}, err
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.exists {
		return Record{}, fmt.Errorf("lease: memory store: %w", rest.ErrAlreadyExists)
	}
	m.exists = true
	return m.storeLocked(rec), nil
}

// Update replaces the record if rec.ResourceVersion is the current one.
func (m *MemoryStore) Update(ctx context.Context, rec Record) (Record, error) {
	if err := ctx.Err(); err != nil {
		return Record{}, err
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	if !m.exists {
		return Record{}, fmt.Errorf("lease: memory store: %w", rest.ErrNotFound)
	}
	if rec.ResourceVersion != m.rec.ResourceVersion {
		return Record{}, fmt.Errorf("lease: memory store: resourceVersion %q, stored %q: %w",
			rec.ResourceVersion, m.rec.ResourceVersion, rest.ErrConflict)
	}
	return m.storeLocked(rec), nil
}

// storeLocked saves rec under a fresh resourceVersion and returns it.
func (m *MemoryStore) storeLocked(rec Record) Record {
	m.version++
	rec.ResourceVersion = strconv.Itoa(m.version)
	m.rec = rec
	return rec
}
