package pipeview

import (
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/kcmlab/kcm/tap"
)

// What the view wants in full.
//
// A stage that passes thousands of events a second would cost the
// pipeline a clock read, a key string and a copy per event if every one
// were built, while the page shows a handful per stage. So each reporting
// site asks first (tap.Point.Want), and the Hub wants:
//
//   - every event of an object a browser follows (the follow set);
//   - every event of the work that object causes: the adds its handler
//     calls make (the correlator knows the call in progress), the syncs of
//     those keys and their retries (hot keys), every watch event while such
//     a sync runs and the later events of the objects those syncs wrote
//     (hot objects) — so that the loop closing is seen even when the watch
//     event comes before the write's answer;
//   - every API write (they are few: a client's rate limit bounds them);
//   - of the rest, one in every k, with k chosen at each update so that a
//     stage keeps about sampleTarget events per period, its newest ones
//     spread over the period.
//
// An event not wanted is counted, nothing more: totals and rates stay
// exact.

// sampleTarget is how many events a stage keeps per update period when it
// is busier than that.
const sampleTarget = 100

// hotFor is how long a key or object stays hot after the followed object
// last caused work on it.
const hotFor = 30 * time.Second

// objKey is an object's namespace and name (no string is built to look
// one up).
type objKey struct{ ns, name string }

// splitKey turns "namespace/name" (or "name") into an objKey.
func splitKey(key string) objKey {
	if i := strings.IndexByte(key, '/'); i >= 0 {
		return objKey{key[:i], key[i+1:]}
	}
	return objKey{name: key}
}

// wants is the Hub's state behind Want: sets read on the pipeline's
// goroutines without a lock (immutable maps behind atomic pointers,
// replaced on change), written rarely.
type wants struct {
	follow atomic.Pointer[map[objKey]struct{}]
	// hotKeys are controller queue keys, hotObjects objects, that followed
	// objects caused work on, with when they last did.
	hotKeys    atomic.Pointer[map[qkey]time.Time]
	hotObjects atomic.Pointer[map[objKey]time.Time]
	// hotSyncs counts the syncs of hot keys in progress; hotSeqs are their
	// numbers (guarded by mu).
	hotSyncs atomic.Int64

	mu      sync.Mutex // serialises writers of the maps
	hotSeqs map[uint64]bool
}

func (w *wants) followed(ns, name string) bool {
	m := w.follow.Load()
	if m == nil {
		return false
	}
	_, ok := (*m)[objKey{ns, name}]
	return ok
}

func (w *wants) hotKey(controller, key string) bool {
	m := w.hotKeys.Load()
	if m == nil {
		return false
	}
	_, ok := (*m)[qkey{controller, key}]
	return ok
}

func (w *wants) hotObject(ns, name string) bool {
	m := w.hotObjects.Load()
	if m == nil {
		return false
	}
	_, ok := (*m)[objKey{ns, name}]
	return ok
}

// setFollowed replaces the follow set.
func (w *wants) setFollowed(targets []target) {
	m := make(map[objKey]struct{}, len(targets))
	for _, t := range targets {
		m[splitKey(t.Key)] = struct{}{}
	}
	w.follow.Store(&m)
}

// heatKey marks a queue key hot (a followed object caused an add of it).
func (w *wants) heatKey(q qkey, now time.Time) {
	w.mu.Lock()
	defer w.mu.Unlock()
	m := copyMap(w.hotKeys.Load())
	m[q] = now
	w.hotKeys.Store(&m)
	o := copyMap(w.hotObjects.Load())
	o[splitKey(q.key)] = now // the controller's own object: its status writes come back as its events
	w.hotObjects.Store(&o)
}

// heatObject marks an object hot (a hot sync wrote it).
func (w *wants) heatObject(k objKey, now time.Time) {
	w.mu.Lock()
	defer w.mu.Unlock()
	o := copyMap(w.hotObjects.Load())
	o[k] = now
	w.hotObjects.Store(&o)
}

// syncBegan notes a sync; it reports whether it is hot.
func (w *wants) syncBegan(controller, key string, seq uint64) bool {
	if !w.hotKey(controller, key) {
		return false
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.hotSeqs == nil {
		w.hotSeqs = map[uint64]bool{}
	}
	w.hotSeqs[seq] = true
	w.hotSyncs.Add(1)
	return true
}

// syncEnded notes the end of sync seq.
func (w *wants) syncEnded(seq uint64) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.hotSeqs[seq] {
		delete(w.hotSeqs, seq)
		w.hotSyncs.Add(-1)
	}
}

// hotSeq reports whether sync seq is a hot one in progress.
func (w *wants) hotSeq(seq uint64) bool {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.hotSeqs[seq]
}

// cool forgets what has not been hot since before now − hotFor.
func (w *wants) cool(now time.Time) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if m := w.hotKeys.Load(); m != nil && stale(*m, now) {
		n := fresh(*m, now)
		w.hotKeys.Store(&n)
	}
	if m := w.hotObjects.Load(); m != nil && stale(*m, now) {
		n := fresh(*m, now)
		w.hotObjects.Store(&n)
	}
}

func stale[K comparable](m map[K]time.Time, now time.Time) bool {
	for _, at := range m {
		if now.Sub(at) > hotFor {
			return true
		}
	}
	return false
}

func fresh[K comparable](m map[K]time.Time, now time.Time) map[K]time.Time {
	n := make(map[K]time.Time, len(m))
	for k, at := range m {
		if now.Sub(at) <= hotFor {
			n[k] = at
		}
	}
	return n
}

func copyMap[K comparable, V any](m *map[K]V) map[K]V {
	n := map[K]V{}
	if m != nil {
		for k, v := range *m {
			n[k] = v
		}
	}
	return n
}

// Want is part of tap.Recorder.
func (p *point) Want(ns, name string) bool {
	h := p.h
	w := &h.wants
	switch p.id.stage {
	case tap.Write:
		return true
	case tap.Enqueue:
		if w.hotKey(p.id.source, name) || h.corr.followedCall(p.id.source, w) {
			return true
		}
	case tap.Sync:
		if w.hotKey(p.id.source, name) {
			return true
		}
	case tap.Socket:
		if w.hotSyncs.Load() > 0 || w.hotObject(ns, name) {
			return true
		}
	}
	if w.followed(ns, name) || p.sampled() {
		return true
	}
	p.skipped.Add(1)
	return false
}

// sampled draws one event in every p.every.
func (p *point) sampled() bool {
	k := p.every.Load()
	return k <= 1 || p.seen.Add(1)%k == 0
}

// resample sets how many events to skip per kept one from the count of the
// last period.
func (p *point) resample(lastPeriod uint64) {
	p.every.Store(max(1, (lastPeriod+sampleTarget-1)/sampleTarget))
}

// Calling is part of tap.Recorder.
func (p *point) Calling(start bool) { p.h.corr.calling(p, start) }
