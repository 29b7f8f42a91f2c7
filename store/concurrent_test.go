package store

import (
	"fmt"
	"maps"
	"math/rand/v2"
	"slices"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/kcmlab/kcm/kube/api"
)

// Concurrency tests: run them with -race. Readers check that every answer
// is internally consistent while writers change the store under them; at
// the end the store must equal what the writers wrote.

// checker runs one random read and reports what was wrong with it.
type checker struct {
	s *Store[*tobj]
	r *rand.Rand
}

func (c checker) fail(format string, args ...any) error { return fmt.Errorf(format, args...) }

// increasing reports whether keys are strictly ascending (ordered, no
// duplicates).
func increasing(keys []string) bool {
	for i := 1; i < len(keys); i++ {
		if keys[i-1] >= keys[i] {
			return false
		}
	}
	return true
}

func (c checker) readOnce() error {
	s, r := c.s, c.r
	switch r.IntN(9) {
	case 0:
		key := fmt.Sprintf("ns%d/w%d-%d", r.IntN(4), r.IntN(2), r.IntN(60))
		if o, ok := s.Get(key); ok && o.Key() != key {
			return c.fail("Get(%s) returned %s", key, o.Key())
		}
	case 1:
		ns := fmt.Sprintf("ns%d", r.IntN(4))
		objs, err := s.ByIndex(IndexNamespace, ns)
		for _, o := range objs {
			if o.Namespace != ns {
				return c.fail("ByIndex(namespace, %s) returned %s", ns, o.Key())
			}
		}
		if err != nil || !increasing(keysOf(objs)) {
			return c.fail("ByIndex(namespace, %s): err %v, keys %v", ns, err, keysOf(objs))
		}
	case 2:
		app := string(rune('a' + r.IntN(3)))
		objs, err := s.ByIndex(IndexLabel, "app="+app)
		for _, o := range objs {
			if o.Labels["app"] != app {
				return c.fail("ByIndex(label, app=%s) returned %s with %v", app, o.Key(), o.Labels)
			}
		}
		if err != nil || !increasing(keysOf(objs)) {
			return c.fail("ByIndex(label): err %v, keys %v", err, keysOf(objs))
		}
	case 3:
		uid := fmt.Sprintf("u%d", r.IntN(3))
		objs, _ := s.ByIndex(IndexOwner, uid)
		for _, o := range objs {
			if !slices.ContainsFunc(o.OwnerReferences, func(ref api.OwnerReference) bool { return ref.UID == uid }) {
				return c.fail("ByIndex(owner, %s) returned %s", uid, o.Key())
			}
		}
	case 4:
		n := fmt.Sprintf("n%d", r.IntN(3))
		after := ""
		for range 100 {
			page, next, err := s.ByIndexPage("node", n, after, 1+r.IntN(8))
			if err != nil || !increasing(keysOf(page)) || (len(page) > 0 && page[0].Key() <= after) {
				return c.fail("ByIndexPage(node, %s, %q): err %v keys %v", n, after, err, keysOf(page))
			}
			for _, o := range page {
				if o.Node != n {
					return c.fail("ByIndexPage(node, %s) returned %s on %s", n, o.Key(), o.Node)
				}
			}
			if next == "" {
				break
			}
			after = next
		}
	case 5:
		objs, _, _ := s.ByIndexRange(IndexLabel, "app=", "app>", Cursor{}, 0)
		for _, o := range objs {
			if _, ok := o.Labels["app"]; !ok {
				return c.fail("ByIndexRange(app=*) returned %s with %v", o.Key(), o.Labels)
			}
		}
	case 6:
		keys, _ := s.IndexKeys(IndexLabel, "app=b")
		if !increasing(keys) {
			return c.fail("IndexKeys not ordered: %v", keys)
		}
	case 7:
		if vals := s.ListIndexValues(IndexOwner); !increasing(vals) {
			return c.fail("ListIndexValues not ordered: %v", vals)
		}
	default:
		keys := sortedKeys(s.List())
		if !increasing(keys) {
			return c.fail("List has duplicates: %v", keys)
		}
	}
	return nil
}

// randomPod builds an object of writer w.
func randomPod(r *rand.Rand, w int) *tobj {
	o := mk(fmt.Sprintf("ns%d", r.IntN(4)), fmt.Sprintf("w%d-%d", w, r.IntN(60)),
		labels("app", string(rune('a'+r.IntN(3))), "tier", fmt.Sprint(r.IntN(2))),
		node(fmt.Sprintf("n%d", r.IntN(3))), rev(r.IntN(100)))
	if r.IntN(2) == 0 {
		owners(fmt.Sprintf("u%d", r.IntN(3)))(o)
	}
	if r.IntN(5) == 0 {
		delete(o.Labels, "app")
	}
	return o
}

func TestConcurrentReadersAndWriters(t *testing.T) {
	const writers, readers, writes = 2, 4, 1000
	s := New(Options[*tobj]{Indexers: allIndexers()})
	oracles := make([]*oracle, writers)
	hammer(t, readers, func(r *rand.Rand) error {
		return checker{s: s, r: r}.readOnce()
	}, func() {
		var wg sync.WaitGroup
		for w := range writers {
			o := &oracle{items: map[string]*tobj{}}
			oracles[w] = o
			wg.Go(func() { writeRandom(s, o, w, writes) })
		}
		wg.Wait()
	})
	final := &oracle{items: map[string]*tobj{}, indexes: map[string]bool{}}
	for _, o := range oracles {
		maps.Copy(final.items, o.items)
	}
	for name := range allIndexers() {
		final.indexes[name] = true
	}
	checkStore(t, gen{rand.New(rand.NewPCG(7, 7))}, s, final)
}

// writeRandom is writer w: random Sets, Deletes and Apply batches of its own
// keys (name prefix w<n>-), so that its oracle knows their final state.
func writeRandom(s *Store[*tobj], o *oracle, w, writes int) {
	r := rand.New(rand.NewPCG(uint64(w), 1))
	for range writes {
		switch r.IntN(10) {
		case 0, 1, 2, 3, 4:
			p := randomPod(r, w)
			s.Set(p)
			o.set(p)
		case 5, 6:
			key := randomPod(r, w).Key()
			s.Delete(key)
			o.del(key)
		default:
			ops := make([]Op[*tobj], 1+r.IntN(8))
			for i := range ops {
				ops[i] = Op[*tobj]{Obj: randomPod(r, w), Delete: r.IntN(4) == 0}
			}
			s.Apply(ops)
			for _, op := range ops {
				if op.Delete {
					o.del(op.Obj.Key())
				} else {
					o.set(op.Obj)
				}
			}
		}
	}
}

// world builds the complete content of generation n: size objects in one
// namespace, all labelled world=n.
func world(n, size int) []*tobj {
	out := make([]*tobj, size)
	for i := range out {
		out[i] = mk("w", fmt.Sprint(i), labels("world", fmt.Sprint(n)), rev(n))
	}
	return out
}

// hammer runs readers calling read until write returns, and reports the
// first error a reader found.
func hammer(t *testing.T, readers int, read func(r *rand.Rand) error, write func()) {
	t.Helper()
	var done atomic.Bool
	var readErr atomic.Pointer[error]
	var rg sync.WaitGroup
	for i := range readers {
		rg.Go(func() {
			r := rand.New(rand.NewPCG(uint64(i), 3))
			for n := 0; n < 100 || !done.Load(); n++ {
				if err := read(r); err != nil {
					readErr.CompareAndSwap(nil, &err)
					return
				}
			}
		})
	}
	write()
	done.Store(true)
	rg.Wait()
	if p := readErr.Load(); p != nil {
		t.Fatal(*p)
	}
}

// oneWorld checks that objs is one complete world.
func oneWorld(what string, objs []*tobj, size int) error {
	if len(objs) != size {
		return fmt.Errorf("%s: %d objects, want %d", what, len(objs), size)
	}
	for _, o := range objs {
		if o.Labels["world"] != objs[0].Labels["world"] {
			return fmt.Errorf("%s mixes worlds %s and %s", what, o.Labels["world"], objs[0].Labels["world"])
		}
	}
	return nil
}

// Every read sees a Replace completely or not at all.
func TestReplaceAtomicForReaders(t *testing.T) {
	const size, rounds = 50, 150
	s := newTestStore()
	s.Replace(world(0, size))
	hammer(t, 4, func(r *rand.Rand) error {
		switch r.IntN(4) {
		case 0:
			objs, _ := s.ByIndex(IndexNamespace, "w")
			return oneWorld("ByIndex(namespace)", objs, size)
		case 1:
			return oneWorld("List", s.List(), size)
		case 2:
			vals := s.ListIndexValues(IndexLabel)
			if len(vals) != 1 {
				return fmt.Errorf("ListIndexValues = %v, want one world", vals)
			}
			objs, _ := s.ByIndex(IndexLabel, vals[0])
			if len(objs) != 0 { // 0: a later Replace came between the calls
				return oneWorld("ByIndex(label)", objs, size)
			}
		default:
			if n := s.Len(); n != size {
				return fmt.Errorf("Len = %d", n)
			}
		}
		return nil
	}, func() {
		for n := 1; n <= rounds; n++ {
			s.Replace(world(n, size))
		}
	})
}

// The index snapshot shows an Apply batch completely or not at all; live
// reads (ByIndex) never show an object under a value it does not have.
func TestApplyAtomicForIndexSnapshots(t *testing.T) {
	const size, rounds = 50, 150
	s := newTestStore()
	s.Replace(world(0, size))
	hammer(t, 4, func(r *rand.Rand) error {
		vals := s.ListIndexValues(IndexLabel)
		if len(vals) != 1 {
			return fmt.Errorf("ListIndexValues = %v, want one world", vals)
		}
		if r.IntN(2) == 0 {
			keys, _ := s.IndexKeys(IndexLabel, vals[0])
			if len(keys) != size && len(keys) != 0 {
				return fmt.Errorf("IndexKeys(%s) has %d keys, want all or none", vals[0], len(keys))
			}
			return nil
		}
		objs, _ := s.ByIndex(IndexLabel, vals[0])
		for _, o := range objs {
			if "world="+o.Labels["world"] != vals[0] {
				return fmt.Errorf("ByIndex(%s) returned %s in world %s", vals[0], o.Key(), o.Labels["world"])
			}
		}
		return nil
	}, func() {
		for n := 1; n <= rounds; n++ {
			objs := world(n, size)
			ops := make([]Op[*tobj], size)
			for i := range ops {
				ops[i].Obj = objs[i]
			}
			s.Apply(ops)
		}
	})
}
