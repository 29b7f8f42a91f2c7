package deltafifo

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"maps"
	"math/rand/v2"
	"slices"
	"strconv"
	"testing"
)

// model is the reference FIFO: a plain slice of pending deltas, searched
// linearly, with the same rules as the package documentation states them.
// The property test runs random operation sequences against the FIFO and the
// model side by side and demands identical batches, lengths and HasSynced.
type model struct {
	store    *store
	log      []Delta[*obj] // pending deltas, oldest first; log[:inflight] are in flight
	inflight int
	pushed   int // deltas ever enqueued
	consumed int // deltas whose process returned

	open    bool            // a replace is open
	seen    map[string]bool // keys the open replace listed or heard of
	initial bool            // the open replace's deltas carry InitialList
	rv      string          // the open replace's resourceVersion
	atomic  bool            // the open replace is atomic: objs, then one ReplacedAll
	objs    []*obj
	later   map[string]*obj // an atomic replace's news while open (nil: deleted)

	initialDone bool
	syncEnd     int

	// Options.Bookmarks and AtomicReplaces.
	bookmarks, atomicReplaces bool
}

// wholePending reports whether a ReplacedAll is pending.
func (m *model) wholePending() bool {
	for _, d := range m.log {
		if d.Type == ReplacedAll {
			return true
		}
	}
	return false
}

func (m *model) lastIdx(key string) int {
	for i := len(m.log) - 1; i >= 0; i-- {
		if !m.log[i].keyless() && m.log[i].Key == key {
			return i
		}
	}
	return -1
}

func (m *model) push(d Delta[*obj]) { m.log = append(m.log, d); m.pushed++ }

func (m *model) event(t DeltaType, o *obj) {
	switch {
	case m.open && m.atomic:
		m.later[o.Key()] = o
	case m.open:
		m.seen[o.Key()] = true
	}
	m.push(Delta[*obj]{Type: t, Object: o, Key: o.Key()})
}

// del models Delete and reports whether it enqueued a Deleted while a
// ReplacedAll was pending: the consumer may not hold its key by then.
func (m *model) del(o *obj) (blind bool) {
	d := Delta[*obj]{Type: Deleted, Object: o, Key: o.Key()}
	if m.open && m.atomic {
		m.later[d.Key] = nil
	}
	if i := m.lastIdx(d.Key); i >= 0 {
		if m.log[i].Type == Deleted {
			if i >= m.inflight && m.log[i].FinalStateUnknown {
				d.InitialList = m.log[i].InitialList
				m.log[i] = d
			}
			return false
		}
	} else if !m.store.has(d.Key) && !m.wholePending() {
		return false
	}
	m.push(d)
	return m.wholePending()
}

func (m *model) start(rv string) {
	m.open, m.seen, m.initial, m.rv = true, map[string]bool{}, !m.initialDone, rv
	m.atomic, m.objs, m.later = m.atomicReplaces && m.initialDone, nil, map[string]*obj{}
}

// replaceAdd models Replacer.Add; an atomic replace keeps the store's
// object when it is the same version.
func (m *model) replaceAdd(o *obj) {
	if m.atomic {
		if held, ok := m.store.GetByKey(o.Key()); ok && held.ResourceVersion == o.ResourceVersion && held.UID == o.UID {
			o = held
		}
		m.objs = append(m.objs, o)
		return
	}
	m.seen[o.Key()] = true
	m.push(Delta[*obj]{Type: Replaced, Object: o, Key: o.Key(), InitialList: m.initial})
}

// bookmark models Bookmark.
func (m *model) bookmark(rv string) {
	if !m.bookmarks || m.open {
		return
	}
	if n := len(m.log); n > m.inflight && m.log[n-1].Type == Bookmark {
		m.log[n-1].Info = &Info[*obj]{ResourceVersion: rv}
		return
	}
	m.push(Delta[*obj]{Type: Bookmark, Info: &Info[*obj]{ResourceVersion: rv}})
}

func (m *model) finish() {
	if m.atomic {
		var objs []*obj
		for _, o := range m.objs {
			if _, ok := m.later[o.Key()]; !ok {
				objs = append(objs, o)
			}
		}
		for _, k := range slices.Sorted(maps.Keys(m.later)) {
			if o := m.later[k]; o != nil {
				objs = append(objs, o)
			}
		}
		m.push(Delta[*obj]{Type: ReplacedAll, Info: &Info[*obj]{ResourceVersion: m.rv, Objects: objs}})
		m.open, m.objs = false, nil
		return
	}
	var tombs []Delta[*obj]
	tomb := func(k string, o *obj) {
		tombs = append(tombs, Delta[*obj]{Type: Deleted, Object: o, Key: k, FinalStateUnknown: true, InitialList: m.initial})
	}
	pending := map[string]bool{}
	for _, d := range m.log {
		if !d.keyless() {
			pending[d.Key] = true
		}
	}
	for k := range pending {
		if last := m.log[m.lastIdx(k)]; !m.seen[k] && last.Type != Deleted {
			tomb(k, last.Object)
		}
	}
	for _, k := range m.store.ListKeys() {
		if !m.seen[k] && !pending[k] {
			o, _ := m.store.GetByKey(k)
			tomb(k, o)
		}
	}
	slices.SortFunc(tombs, func(a, b Delta[*obj]) int { return cmp.Compare(a.Key, b.Key) })
	for _, d := range tombs {
		m.push(d)
	}
	if m.bookmarks {
		m.push(Delta[*obj]{Type: Bookmark, Info: &Info[*obj]{ResourceVersion: m.rv}})
	}
	if !m.initialDone {
		m.initialDone, m.syncEnd = true, m.pushed
	}
	m.open = false
}

func (m *model) resync() {
	if m.wholePending() {
		return
	}
	for _, k := range m.store.ListKeys() {
		if m.lastIdx(k) < 0 {
			o, _ := m.store.GetByKey(k)
			m.push(Delta[*obj]{Type: Sync, Object: o, Key: k})
		}
	}
}

func (m *model) take(max int) []Delta[*obj] {
	m.inflight = min(len(m.log), max)
	return slices.Clone(m.log[:m.inflight])
}

func (m *model) consume() {
	m.log = m.log[m.inflight:]
	m.consumed += m.inflight
	m.inflight = 0
}

func (m *model) synced() bool { return m.initialDone && m.consumed >= m.syncEnd }

// run is one random sequence against a FIFO and a model sharing one store.
type run struct {
	t   *testing.T
	rng *rand.Rand
	f   *FIFO[*obj]
	m   *model
	r   *Replacer[*obj]
	rv  int
	// lastType is the type of the last delta delivered per key, to check
	// that no key ever gets two Deleted in a row.
	lastType map[string]DeltaType
	// blind are the objects of Deleted deltas enqueued for a key neither
	// pending nor held, while a ReplacedAll was pending.
	blind map[*obj]bool
	trace []string
}

var modelKeys = []string{"ns/a", "ns/b", "ns/c", "ns/d", "other/a", "node1"}

func (x *run) obj() *obj {
	x.rv++
	return mk(modelKeys[x.rng.IntN(len(modelKeys))], strconv.Itoa(x.rv))
}

func (x *run) must(err error) {
	x.t.Helper()
	if err != nil {
		x.t.Fatalf("%v\ntrace: %q", err, x.trace)
	}
}

// step performs one random operation; inProcess excludes Pop (we are inside
// one) and is where producer calls meet in-flight deltas.
func (x *run) step(inProcess bool) {
	switch op := x.rng.IntN(12); {
	case op < 2:
		o := x.obj()
		x.trace = append(x.trace, "Add "+o.Key())
		x.must(x.f.Add(o))
		x.m.event(Added, o)
	case op < 4:
		o := x.obj()
		x.trace = append(x.trace, "Update "+o.Key())
		x.must(x.f.Update(o))
		x.m.event(Updated, o)
	case op < 6:
		o := x.obj()
		x.trace = append(x.trace, "Delete "+o.Key())
		x.must(x.f.Delete(o))
		if x.m.del(o) {
			x.blind[o] = true
		}
	case op == 6:
		x.trace = append(x.trace, "StartReplace")
		old := x.r
		x.r = x.f.StartReplace(strconv.Itoa(x.rv))
		if old != nil {
			if err := old.Finish(); !errors.Is(err, ErrReplaceEnded) {
				x.t.Fatalf("superseded Finish = %v", err)
			}
		}
		x.m.start(strconv.Itoa(x.rv))
	case op == 7 && x.r != nil:
		o := x.obj()
		if held, ok := x.m.store.GetByKey(o.Key()); ok && x.rng.IntN(3) == 0 {
			o = mk(held.Key(), held.ResourceVersion) // the version the store holds, decoded again
		}
		x.trace = append(x.trace, "r.Add "+o.Key())
		x.must(x.r.Add(o))
		x.m.replaceAdd(o)
	case op == 8 && x.r != nil:
		x.trace = append(x.trace, "r.Finish")
		x.must(x.r.Finish())
		x.m.finish()
		x.r = nil
	case op == 9 && x.r != nil && x.rng.IntN(3) == 0:
		x.trace = append(x.trace, "r.Abort")
		x.r.Abort()
		x.m.open = false
		x.r = nil
	case op == 10 && x.rng.IntN(3) == 0:
		x.trace = append(x.trace, "Resync")
		x.must(x.f.Resync())
		x.m.resync()
	case op == 11 && x.rng.IntN(3) == 0:
		x.rv++
		x.trace = append(x.trace, "Bookmark")
		x.must(x.f.Bookmark(strconv.Itoa(x.rv)))
		x.m.bookmark(strconv.Itoa(x.rv))
	case op >= 10 && !inProcess && len(x.m.log) > 0:
		x.pop()
	}
	x.check()
}

func (x *run) pop() {
	max := 1 + x.rng.IntN(4)
	fail := x.rng.IntN(10) == 0
	x.trace = append(x.trace, fmt.Sprintf("Pop %d", max))
	errFail := errors.New("process failed")
	err := x.f.Pop(context.Background(), max, func(b []Delta[*obj]) error {
		want := x.m.take(max)
		if !slices.EqualFunc(b, want, sameDelta) {
			x.t.Fatalf("batch\n  %v\nwant\n  %v\ntrace: %q", renderAll(b), renderAll(want), x.trace)
		}
		for n := x.rng.IntN(3); n > 0; n-- {
			x.step(true)
		}
		if !slices.EqualFunc(b, want, sameDelta) {
			x.t.Fatalf("batch changed while in flight\n  %v\nwant\n  %v\ntrace: %q", renderAll(b), renderAll(want), x.trace)
		}
		for _, d := range b {
			if d.Type == ReplacedAll {
				clear(x.lastType)
			}
			if blind := x.blind[d.Object]; d.Type == Deleted && blind {
				if x.m.store.has(d.Key) {
					x.lastType[d.Key] = d.Type
					x.must(x.m.store.apply(d))
				}
				continue
			}
			if d.Type == Deleted && x.lastType[d.Key] == Deleted {
				x.t.Fatalf("two Deleted in a row for %s\ntrace: %q", d.Key, x.trace)
			}
			if !d.keyless() {
				x.lastType[d.Key] = d.Type
			}
			if err := x.m.store.apply(d); err != nil {
				x.t.Fatalf("%v\nbatch %v (delta %s)\ntrace: %q", err, renderAll(b), render(d), x.trace)
			}
		}
		if fail {
			return errFail
		}
		return nil
	})
	if fail != errors.Is(err, errFail) || (!fail && err != nil) {
		x.t.Fatalf("Pop = %v (process failed: %v)", err, fail)
	}
	x.m.consume()
}

func (x *run) check() {
	x.t.Helper()
	if err := x.f.checkInvariant(); err != nil {
		x.t.Fatalf("%v\ntrace: %q", err, x.trace)
	}
	if got, want := x.f.Len(), len(x.m.log); got != want {
		x.t.Fatalf("Len = %d, model %d\ntrace: %q", got, want, x.trace)
	}
	if got, want := x.f.HasSynced(), x.m.synced(); got != want {
		x.t.Fatalf("HasSynced = %v, model %v\ntrace: %q", got, want, x.trace)
	}
}

func renderAll(ds []Delta[*obj]) []string {
	out := make([]string, len(ds))
	for i, d := range ds {
		out[i] = render(d)
	}
	return out
}

// sameDelta compares deltas field by field, the Info of a Bookmark or a
// ReplacedAll by content (its objects by identity: an atomic replace
// keeps the store's object of an unchanged key).
func sameDelta(a, b Delta[*obj]) bool {
	ai, bi := a.Info, b.Info
	a.Info, b.Info = nil, nil
	if a != b || (ai == nil) != (bi == nil) {
		return false
	}
	return ai == nil || (ai.ResourceVersion == bi.ResourceVersion && slices.Equal(ai.Objects, bi.Objects))
}

// TestModel runs the model against the FIFO with each combination of
// Options.Bookmarks and Options.AtomicReplaces.
func TestModel(t *testing.T) {
	for _, o := range []struct{ bookmarks, atomic bool }{{false, false}, {true, false}, {false, true}, {true, true}} {
		t.Run(fmt.Sprintf("bookmarks=%v,atomic=%v", o.bookmarks, o.atomic), func(t *testing.T) {
			testModel(t, o.bookmarks, o.atomic)
		})
	}
}

func testModel(t *testing.T, bookmarks, atomic bool) {
	seeds, steps := 120, 300
	if testing.Short() {
		seeds = 50
	}
	for seed := range seeds {
		rng := rand.New(rand.NewPCG(uint64(seed), 0xdf))
		s := newStore()
		x := &run{
			t: t, rng: rng,
			f:        New(Options[*obj]{Known: s, Bookmarks: bookmarks, AtomicReplaces: atomic}),
			m:        &model{store: s, bookmarks: bookmarks, atomicReplaces: atomic},
			lastType: map[string]DeltaType{},
			blind:    map[*obj]bool{},
		}
		for range steps {
			x.step(false)
		}
		for len(x.m.log) > 0 {
			x.pop()
			x.check()
		}
		if len(x.f.keys) != 0 {
			t.Fatalf("seed %d: %d keys left after drain", seed, len(x.f.keys))
		}
	}
}
