package garbagecollector

import (
	"context"
	"fmt"
	"maps"
	"math/rand/v2"
	"slices"
	"strconv"
	"testing"
	"time"

	"github.com/rs/zerolog"

	"github.com/kcmlab/kcm/kube/api"
	"github.com/kcmlab/kcm/kube/rest"
)

// The chaos suite of the collector: a simulated cluster in which objects
// are created, deleted with every propagation policy, recreated under the
// same name (a new uid), adopted and released, while the collector's
// informers lose watches and relist (deletes seen only as tombstones,
// with a stale last state) and its events arrive late and interleaved
// with its workers in a seeded random order. Every DELETE the collector
// sends that the simulated apiserver accepts is checked against the rule
// the collector must never break: it deletes no object that still has an
// owner — one that exists under the referenced kind, name and uid, in the
// dependent's namespace when namespaced, and is not itself waiting for
// its dependents in the foreground — nor an object without owners, nor a
// cluster-scoped object for a namespaced owner. At the end, with every
// event delivered and the queues drained, the collector must have
// finished its work: no garbage left, no owner stuck on a finalizer.

const (
	chaosSeeds = 100
	chaosSteps = 2000
)

var chaosKinds = []rest.Resource{rest.ConfigMaps, rest.Secrets, rest.Nodes}

type simObject struct {
	res  rest.Resource
	meta api.ObjectMeta
}

func (o *simObject) key() string { return o.res.Resource + "/" + o.meta.Namespace + "/" + o.meta.Name }

func (o *simObject) raw() *api.RawObject {
	m := o.meta
	m.OwnerReferences = slices.Clone(m.OwnerReferences)
	m.Finalizers = slices.Clone(m.Finalizers)
	return &api.RawObject{TypeMeta: api.TypeMeta{APIVersion: o.res.GroupVersion(), Kind: o.res.Kind}, ObjectMeta: m}
}

// simEvent is one notification waiting in a resource's watch.
type simEvent struct {
	typ ChangeType
	obj *api.RawObject
}

// sim is the simulated apiserver (an ObjectAPI), its watches, and the
// collector's informer caches.
type sim struct {
	t       *testing.T
	rng     *rand.Rand
	rv      int
	uids    int
	live    map[string]*simObject                // by key
	pending map[string][]simEvent                // by resource: the watch not yet delivered
	cache   map[string]map[string]*api.RawObject // by resource, by key: what the informer holds
	c       *Collector
	delQ    []string
	orphQ   []string
	deletes int
}

type simQueue struct {
	q *[]string
}

func (s simQueue) Add(k string) {
	if !slices.Contains(*s.q, k) {
		*s.q = append(*s.q, k)
	}
}
func (s simQueue) AddRateLimited(k string) { s.Add(k) }

func newSim(t *testing.T, seed uint64) *sim {
	s := &sim{t: t, rng: rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15)), live: map[string]*simObject{},
		pending: map[string][]simEvent{}, cache: map[string]map[string]*api.RawObject{}}
	// One dependent orphaned at a time: parallel patches would make the
	// order of their watch events, and so the run, differ between runs.
	s.c = NewCollector(s, simQueue{&s.delQ}, simQueue{&s.orphQ}, Config{Logger: zerolog.Nop(), OrphanParallelism: 1})
	var all []rest.APIResource
	for _, r := range chaosKinds {
		all = append(all, rest.APIResource{Resource: r, Verbs: []string{"delete", "get", "list", "patch", "watch"}})
		s.cache[r.Resource] = map[string]*api.RawObject{}
	}
	s.c.mapper.set(all)
	s.c.jitter = func() float64 { return 0 }
	return s
}

func (s *sim) nextRV() string { s.rv++; return strconv.Itoa(s.rv) }

// write stores o and queues its watch event.
func (s *sim) write(o *simObject, typ ChangeType) {
	o.meta.ResourceVersion = s.nextRV()
	if typ == Deleted {
		delete(s.live, o.key())
	} else {
		s.live[o.key()] = o
	}
	s.pending[o.res.Resource] = append(s.pending[o.res.Resource], simEvent{typ, o.raw()})
}

// finish removes an object being deleted once its finalizers are gone.
func (s *sim) finish(o *simObject) {
	if o.meta.DeletionTimestamp != nil && len(o.meta.Finalizers) == 0 {
		s.write(o, Deleted)
	}
}

// deleteObject is kube-apiserver's DELETE: Background removes at once
// (unless finalizers hold it), Foreground and Orphan add their finalizer.
//
// A second DELETE of an object already being deleted changes nothing here
// (kube-apiserver may switch its finalizers; the simulation keeps the
// first choice).
func (s *sim) deleteObject(o *simObject, policy string) {
	if o.meta.DeletionTimestamp != nil {
		return
	}
	now := api.NewTime(time.Unix(int64(s.rv), 0))
	switch policy {
	case rest.PropagationForeground, rest.PropagationOrphan:
		f := FinalizerDeleteDependents
		if policy == rest.PropagationOrphan {
			f = FinalizerOrphanDependents
		}
		o.meta.DeletionTimestamp = &now
		o.meta.Finalizers = append(o.meta.Finalizers, f)
		s.write(o, Updated)
	default:
		if len(o.meta.Finalizers) > 0 {
			o.meta.DeletionTimestamp = &now
			s.write(o, Updated)
			return
		}
		s.write(o, Deleted)
	}
}

func (s *sim) find(res rest.Resource, ns, name string) *simObject {
	return s.live[res.Resource+"/"+namespaceFor(res, ns)+"/"+name]
}

// deliver hands the next event of one resource's watch to the informer
// cache and the graph.
func (s *sim) deliver(res string) {
	evs := s.pending[res]
	if len(evs) == 0 {
		return
	}
	ev := evs[0]
	s.pending[res] = evs[1:]
	s.apply(res, ev.typ, ev.obj)
}

func (s *sim) apply(res string, typ ChangeType, obj *api.RawObject) {
	key := obj.Namespace + "/" + obj.Name
	old, had := s.cache[res][key]
	ch := Change{Type: typ, APIVersion: obj.APIVersion, Kind: obj.Kind, Object: &obj.ObjectMeta}
	switch {
	case typ == Deleted:
		delete(s.cache[res], key)
	case had:
		ch.Type, ch.Old = Updated, &old.ObjectMeta
		s.cache[res][key] = obj
	default:
		ch.Type = Added
		s.cache[res][key] = obj
	}
	s.c.Apply(ch)
}

// relist is a watch that broke (or answered 410) and a list that
// replaced the cache: the events in flight are lost; objects the cache
// has and the server not are deleted with their last known state (a
// tombstone); the others are added or updated to the server's state.
func (s *sim) relist(res rest.Resource) {
	s.pending[res.Resource] = nil
	cache := s.cache[res.Resource]
	for _, key := range slices.Sorted(maps.Keys(cache)) {
		old := cache[key]
		if o := s.live[res.Resource+"/"+key]; o == nil || o.meta.UID != old.UID {
			s.apply(res.Resource, Deleted, old)
		}
	}
	for _, key := range slices.Sorted(maps.Keys(s.live)) {
		if o := s.live[key]; o.res == res {
			if c := s.cache[res.Resource][o.meta.Namespace+"/"+o.meta.Name]; c == nil || c.ResourceVersion != o.meta.ResourceVersion {
				s.apply(res.Resource, Updated, o.raw())
			}
		}
	}
}

// work runs one queued item of a random queue.
func (s *sim) work() {
	q, sync := &s.delQ, s.c.AttemptToDelete
	if len(s.orphQ) > 0 && (len(s.delQ) == 0 || s.rng.IntN(3) == 0) {
		q, sync = &s.orphQ, s.c.AttemptToOrphan
	}
	if len(*q) == 0 {
		return
	}
	i := s.rng.IntN(len(*q))
	uid := (*q)[i]
	*q = slices.Delete(*q, i, i+1)
	res, err := sync(context.Background(), uid)
	if err != nil || res.Requeue {
		*q = append(*q, uid)
	}
}

func (s *sim) randomObject() *simObject {
	if len(s.live) == 0 {
		return nil
	}
	keys := slices.Sorted(maps.Keys(s.live))
	return s.live[keys[s.rng.IntN(len(keys))]]
}

// randomRef is a reference to a live object, or to a uid nothing has, or
// to a live name under a stale uid.
func (s *sim) randomRef() api.OwnerReference {
	block := s.rng.IntN(2) == 0
	o := s.randomObject()
	if o == nil || s.rng.IntN(5) == 0 {
		r := chaosKinds[s.rng.IntN(len(chaosKinds))]
		s.uids++
		return api.OwnerReference{APIVersion: r.GroupVersion(), Kind: r.Kind, Name: "ghost", UID: fmt.Sprintf("ghost-%d", s.uids), BlockOwnerDeletion: &block}
	}
	uid := o.meta.UID
	if s.rng.IntN(6) == 0 {
		uid += "-stale"
	}
	return api.OwnerReference{APIVersion: o.res.GroupVersion(), Kind: o.res.Kind, Name: o.meta.Name, UID: uid, BlockOwnerDeletion: &block}
}

func (s *sim) create(name string) {
	r := chaosKinds[s.rng.IntN(len(chaosKinds))]
	ns := ""
	if r.Namespaced {
		ns = []string{"a", "b"}[s.rng.IntN(2)]
	}
	if s.find(r, ns, name) != nil {
		return
	}
	s.uids++
	o := &simObject{res: r, meta: api.ObjectMeta{Namespace: ns, Name: name, UID: fmt.Sprintf("u%d", s.uids)}}
	for range s.rng.IntN(3) {
		ref := s.randomRef()
		if ref.UID != o.meta.UID && !slices.ContainsFunc(o.meta.OwnerReferences, func(x api.OwnerReference) bool { return x.UID == ref.UID }) {
			o.meta.OwnerReferences = append(o.meta.OwnerReferences, ref)
		}
	}
	s.write(o, Added)
}

// step does one random thing.
func (s *sim) step() {
	names := []string{"n0", "n1", "n2", "n3", "n4", "n5", "n6", "n7"}
	switch k := s.rng.IntN(100); {
	case k < 14:
		s.create(names[s.rng.IntN(len(names))])
	case k < 22:
		if o := s.randomObject(); o != nil {
			policies := []string{rest.PropagationBackground, rest.PropagationForeground, rest.PropagationOrphan}
			s.deleteObject(o, policies[s.rng.IntN(3)])
		}
	case k < 26: // deleted and recreated under the same name: a new uid
		if o := s.randomObject(); o != nil && len(o.meta.Finalizers) == 0 {
			s.write(o, Deleted)
			s.uids++
			n := &simObject{res: o.res, meta: api.ObjectMeta{Namespace: o.meta.Namespace, Name: o.meta.Name,
				UID: fmt.Sprintf("u%d", s.uids), OwnerReferences: slices.Clone(o.meta.OwnerReferences)}}
			s.write(n, Added)
		}
	case k < 30: // adopted or released
		if o := s.randomObject(); o != nil && o.meta.DeletionTimestamp == nil {
			if len(o.meta.OwnerReferences) > 0 && s.rng.IntN(2) == 0 {
				o.meta.OwnerReferences = o.meta.OwnerReferences[1:]
			} else if ref := s.randomRef(); ref.UID != o.meta.UID {
				o.meta.OwnerReferences = append(slices.Clone(o.meta.OwnerReferences), ref)
			}
			s.write(o, Updated)
		}
	case k < 33:
		s.relist(chaosKinds[s.rng.IntN(len(chaosKinds))])
	case k < 60:
		s.deliver(chaosKinds[s.rng.IntN(len(chaosKinds))].Resource)
	default:
		s.work()
	}
}

// settle delivers every event and drains the queues.
func (s *sim) settle() {
	for range 20000 {
		idle := len(s.delQ)+len(s.orphQ) == 0
		for _, r := range chaosKinds {
			if len(s.pending[r.Resource]) > 0 {
				idle = false
				s.deliver(r.Resource)
			}
		}
		if idle {
			return
		}
		s.work()
	}
	s.t.Fatalf("the collector did not settle: queues %v %v", s.delQ, s.orphQ)
}

// garbage says why a live object should have been collected or
// finalized by now, or "".
func (s *sim) garbage(o *simObject) string {
	if o.meta.DeletionTimestamp != nil && slices.Contains(o.meta.Finalizers, FinalizerOrphanDependents) {
		return "still waiting on the collector's orphan finalizer"
	}
	if o.meta.DeletionTimestamp != nil && slices.Contains(o.meta.Finalizers, FinalizerDeleteDependents) && !s.heldForever(o) {
		return "still waiting on the collector's foregroundDeletion finalizer"
	}
	if len(o.meta.OwnerReferences) == 0 || o.meta.DeletionTimestamp != nil {
		return ""
	}
	for _, ref := range o.meta.OwnerReferences {
		if (o.meta.Namespace == "" && kindNamespaced(ref.Kind)) || s.owner(o, ref) != nil {
			return ""
		}
	}
	return "every owner is gone"
}

// heldForever reports whether an owner waiting for its dependents
// waits, under Kubernetes' collector too, for one it may never delete:
// among its blocking dependents or theirs, a cluster-scoped object that
// names a namespaced kind among its owners (the collector refuses to
// classify it at all), or a cycle of blocking references whose every
// member was deleted in the foreground (each waits for the next; the
// collector breaks a cycle only through a member that is not itself
// waiting).
func (s *sim) heldForever(owner *simObject) bool {
	return s.held(owner, map[string]bool{})
}

func (s *sim) held(owner *simObject, path map[string]bool) bool {
	path[owner.meta.UID] = true
	defer delete(path, owner.meta.UID)
	for _, key := range slices.Sorted(maps.Keys(s.live)) {
		d := s.live[key]
		blocking, unresolvable := false, false
		for _, ref := range d.meta.OwnerReferences {
			blocking = blocking || (ref.UID == owner.meta.UID && blocks(ref))
			unresolvable = unresolvable || (d.meta.Namespace == "" && kindNamespaced(ref.Kind))
		}
		if !blocking {
			continue
		}
		if path[d.meta.UID] {
			if waitsInForeground(d) {
				return true
			}
			continue
		}
		if unresolvable || s.held(d, path) {
			return true
		}
	}
	return false
}

func waitsInForeground(o *simObject) bool {
	return o.meta.DeletionTimestamp != nil && slices.Contains(o.meta.Finalizers, FinalizerDeleteDependents)
}

// TestChaos runs chaosSeeds seeded simulations (see the top of the file).
// A failure names its seed; rerun one with -run 'TestChaos/seed=N'.
func TestChaos(t *testing.T) {
	total := 0
	for seed := range uint64(chaosSeeds) {
		t.Run("seed="+strconv.FormatUint(seed, 10), func(t *testing.T) {
			s := newSim(t, seed)
			for range chaosSteps {
				s.step()
			}
			s.settle()
			for _, o := range s.live {
				if why := s.garbage(o); why != "" {
					t.Errorf("after settling, %s (%s) is left: %s; owners %+v", o.key(), o.meta.UID, why, o.meta.OwnerReferences)
				}
			}
			total += s.deletes
		})
	}
	t.Logf("%d seeds, %d deletions by the collector checked", chaosSeeds, total)
}
