package lease

import (
	"context"
	"sync"
	"time"

	"github.com/kcmlab/kcm/kube/api"
	"github.com/kcmlab/kcm/kube/api/decode"
	"github.com/kcmlab/kcm/kube/rest"
)

// KubeStore is the Store backed by a real coordination.k8s.io/v1 Lease.
// Updates are PUTs carrying the resourceVersion of the record, so the
// apiserver answers 409 Conflict to a stale writer.
type KubeStore struct {
	leases    *rest.Resources[*api.Lease]
	namespace string
	name      string
	// timeout bounds each request (0: only the caller's ctx does).
	timeout time.Duration

	mu sync.Mutex
	// last is the Lease as last read or written, guarded by mu. An update at
	// its resourceVersion starts from it, so labels, annotations and fields
	// kcm does not model survive the write.
	last *api.Lease
}

var _ Store = (*KubeStore)(nil)

// NewKubeStore returns the store for Lease namespace/name. requestTimeout
// bounds each request on top of the caller's ctx (0: no extra bound).
func NewKubeStore(c *rest.Client, namespace, name string, requestTimeout time.Duration) *KubeStore {
	return &KubeStore{
		leases:    rest.NewResources(c, rest.Leases, decode.Typed[api.Lease]()).InNamespace(namespace),
		namespace: namespace, name: name, timeout: requestTimeout,
	}
}

// Get reads the Lease.
func (k *KubeStore) Get(ctx context.Context) (Record, error) {
	ctx, cancel := k.bound(ctx)
	defer cancel()
	l, err := k.leases.Get(ctx, k.name)
	if err != nil {
		return Record{}, err
	}
	return k.remember(l), nil
}

// Create creates the Lease holding rec.
func (k *KubeStore) Create(ctx context.Context, rec Record) (Record, error) {
	ctx, cancel := k.bound(ctx)
	defer cancel()
	l := &api.Lease{
		TypeMeta:   api.TypeMeta{APIVersion: "coordination.k8s.io/v1", Kind: "Lease"},
		ObjectMeta: api.ObjectMeta{Namespace: k.namespace, Name: k.name},
	}
	setSpec(&l.Spec, rec)
	out, err := k.leases.Create(ctx, l)
	if err != nil {
		return Record{}, err
	}
	return k.remember(out), nil
}

// Update replaces the Lease's spec with rec, at rec.ResourceVersion.
func (k *KubeStore) Update(ctx context.Context, rec Record) (Record, error) {
	ctx, cancel := k.bound(ctx)
	defer cancel()
	out, err := k.leases.Update(ctx, k.base(rec))
	if err != nil {
		return Record{}, err
	}
	return k.remember(out), nil
}

// base returns the object to PUT for rec: the last one seen when its
// resourceVersion matches (to keep what kcm does not model), else a bare one.
func (k *KubeStore) base(rec Record) *api.Lease {
	k.mu.Lock()
	defer k.mu.Unlock()
	var l api.Lease
	if k.last != nil && k.last.ResourceVersion == rec.ResourceVersion {
		l = *k.last // shallow: the spec pointers are replaced, nothing shared is modified
	} else {
		l = api.Lease{
			TypeMeta:   api.TypeMeta{APIVersion: "coordination.k8s.io/v1", Kind: "Lease"},
			ObjectMeta: api.ObjectMeta{Namespace: k.namespace, Name: k.name},
		}
	}
	l.ResourceVersion = rec.ResourceVersion
	setSpec(&l.Spec, rec)
	return &l
}

func (k *KubeStore) remember(l *api.Lease) Record {
	k.mu.Lock()
	k.last = l
	k.mu.Unlock()
	return recordOf(l)
}

func (k *KubeStore) bound(ctx context.Context) (context.Context, context.CancelFunc) {
	if k.timeout > 0 {
		return context.WithTimeout(ctx, k.timeout)
	}
	return context.WithCancel(ctx)
}

// recordOf reads the record out of a Lease.
func recordOf(l *api.Lease) Record {
	s := &l.Spec
	r := Record{ResourceVersion: l.ResourceVersion}
	if s.HolderIdentity != nil {
		r.HolderIdentity = *s.HolderIdentity
	}
	if s.LeaseDurationSeconds != nil {
		r.LeaseDuration = time.Duration(*s.LeaseDurationSeconds) * time.Second
	}
	if s.AcquireTime != nil {
		r.AcquireTime = s.AcquireTime.Time
	}
	if s.RenewTime != nil {
		r.RenewTime = s.RenewTime.Time
	}
	if s.LeaseTransitions != nil {
		r.LeaseTransitions = *s.LeaseTransitions
	}
	return r
}

// setSpec writes rec into s; an empty holder or zero time is left unset,
// which the three-way merge of Update turns into a removed field.
// Strategy and PreferredHolder are kept as they were.
func setSpec(s *api.LeaseSpec, rec Record) {
	s.HolderIdentity, s.AcquireTime, s.RenewTime = nil, nil, nil
	if rec.HolderIdentity != "" {
		s.HolderIdentity = &rec.HolderIdentity
	}
	secs := int32(wireDuration(rec.LeaseDuration) / time.Second)
	s.LeaseDurationSeconds = &secs
	if !rec.AcquireTime.IsZero() {
		t := api.NewMicroTime(rec.AcquireTime)
		s.AcquireTime = &t
	}
	if !rec.RenewTime.IsZero() {
		t := api.NewMicroTime(rec.RenewTime)
		s.RenewTime = &t
	}
	s.LeaseTransitions = &rec.LeaseTransitions
}
