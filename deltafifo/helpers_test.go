package deltafifo

import (
	"fmt"
	"slices"
	"strings"
	"sync"

	"github.com/kcmlab/kcm/kube/api"
)

// obj is the test object: only metadata. ResourceVersion tells versions of
// one key apart in the expectations.
type obj struct {
	api.TypeMeta
	api.ObjectMeta
}

// mk builds an object from "ns/name" (or "name") and a resourceVersion.
func mk(key, rv string) *obj {
	o := &obj{}
	if ns, name, ok := strings.Cut(key, "/"); ok {
		o.Namespace, o.Name = ns, name
	} else {
		o.Name = key
	}
	o.ResourceVersion = rv
	return o
}

// store is a minimal consumer store: a map guarded by a mutex. It satisfies
// KnownObjects and applies deltas the way the informer's apply loop does.
type store struct {
	mu sync.Mutex
	m  map[string]*obj
	rv string // the last Bookmark's or ReplacedAll's resourceVersion
}

func newStore(objs ...*obj) *store {
	s := &store{m: map[string]*obj{}}
	for _, o := range objs {
		s.m[o.Key()] = o
	}
	return s
}

func (s *store) ListKeys() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	keys := make([]string, 0, len(s.m))
	for k := range s.m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}

func (s *store) GetByKey(key string) (*obj, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	o, ok := s.m[key]
	return o, ok
}

func (s *store) has(key string) bool {
	_, ok := s.GetByKey(key)
	return ok
}

// apply writes d into the store; a Deleted of a key it does not hold is an
// error (the FIFO promises never to deliver one when Known is set).
func (s *store) apply(d Delta[*obj]) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	switch d.Type {
	case Bookmark:
		s.rv = d.Info.ResourceVersion
		return nil
	case ReplacedAll:
		s.m = map[string]*obj{}
		for _, o := range d.Info.Objects {
			s.m[o.Key()] = o
		}
		s.rv = d.Info.ResourceVersion
		return nil
	}
	if d.Type == Deleted {
		if _, ok := s.m[d.Key]; !ok {
			return fmt.Errorf("Deleted delivered for %q, which the store does not hold", d.Key)
		}
		delete(s.m, d.Key)
		return nil
	}
	s.m[d.Key] = d.Object
	return nil
}

// String renders the store as "key@rv" in key order.
func (s *store) String() string {
	var out []string
	for _, k := range s.ListKeys() {
		o, _ := s.GetByKey(k)
		out = append(out, k+"@"+o.ResourceVersion)
	}
	return strings.Join(out, " ")
}

// render writes a delta as "Type key@rv", with " tomb" for a tombstone and
// " init" for the initial list.
func render(d Delta[*obj]) string {
	switch d.Type {
	case Bookmark:
		return "Bookmark @" + d.Info.ResourceVersion
	case ReplacedAll:
		var objs []string
		for _, o := range d.Info.Objects {
			objs = append(objs, o.Key()+"@"+o.ResourceVersion)
		}
		return fmt.Sprintf("ReplacedAll @%s [%s]", d.Info.ResourceVersion, strings.Join(objs, " "))
	}
	s := fmt.Sprintf("%s %s@%s", d.Type, d.Key, d.Object.ResourceVersion)
	if d.FinalStateUnknown {
		s += " tomb"
	}
	if d.InitialList {
		s += " init"
	}
	return s
}

// checkInvariant recomputes the per-key bookkeeping from the queue and the
// in-flight batch and compares it with f.keys. Safe to call at any time,
// also from inside process.
func (f *FIFO[T]) checkInvariant() error {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.closed {
		if f.keys != nil || f.queue.Len() != 0 {
			return fmt.Errorf("closed FIFO still holds %d keys, %d queued", len(f.keys), f.queue.Len())
		}
		return nil
	}
	if f.done > f.head || f.head > f.tail {
		return fmt.Errorf("counters out of order: done=%d head=%d tail=%d", f.done, f.head, f.tail)
	}
	if got := uint64(f.queue.Len()); got != f.tail-f.head {
		return fmt.Errorf("queue holds %d deltas, tail-head=%d", got, f.tail-f.head)
	}
	if f.head-f.done > uint64(len(f.batch)) {
		return fmt.Errorf("%d in flight but batch buffer has %d", f.head-f.done, len(f.batch))
	}
	want := map[string]keyState{}
	whole := 0
	visit := func(seq uint64, d *Delta[T]) {
		if d.keyless() {
			if d.Type == ReplacedAll {
				whole++
			}
			return
		}
		st := want[d.Key]
		st.pending++
		st.last = seq
		want[d.Key] = st
	}
	for s := f.done; s < f.head; s++ {
		visit(s, &f.batch[s-f.done])
	}
	for s := f.head; s < f.tail; s++ {
		visit(s, f.queue.At(int(s-f.head)))
	}
	if whole != f.wholePending {
		return fmt.Errorf("wholePending = %d, log holds %d ReplacedAll", f.wholePending, whole)
	}
	if len(want) != len(f.keys) {
		return fmt.Errorf("bookkeeping has %d keys, log has %d", len(f.keys), len(want))
	}
	for k, w := range want {
		if got, ok := f.keys[k]; !ok || got != w {
			return fmt.Errorf("key %q: bookkeeping %+v (present %v), log says %+v", k, got, ok, w)
		}
	}
	return nil
}
