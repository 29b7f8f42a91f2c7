package deltafifo

import (
	"errors"

	"github.com/rs/zerolog"

	"github.com/kcmlab/kcm/kube/api"
)

// DeltaType says what happened to an object.
type DeltaType string

// The delta types, named as in client-go.
const (
	// Added: a watch ADDED event.
	Added DeltaType = "Added"
	// Updated: a watch MODIFIED event.
	Updated DeltaType = "Updated"
	// Deleted: a watch DELETED event, or (with FinalStateUnknown) a deletion
	// inferred because a relist no longer contained the object.
	Deleted DeltaType = "Deleted"
	// Replaced: the object as listed by a (re)list.
	Replaced DeltaType = "Replaced"
	// Sync: a periodic resync re-delivers what the store already holds.
	Sync DeltaType = "Sync"
	// Bookmark: the server's state has reached Info.ResourceVersion; once
	// the deltas before it are applied, the consumer's content is current
	// at it. It carries no key and no object (Options.Bookmarks).
	Bookmark DeltaType = "Bookmark"
	// ReplacedAll: a relist as one delta, Info.Objects being the whole
	// content as of Info.ResourceVersion, to be swapped in at once
	// (Options.AtomicReplaces). It carries no key and no object.
	ReplacedAll DeltaType = "ReplacedAll"
)

// Delta is one change to one object, in the order the FIFO received it.
type Delta[T api.Object] struct {
	Type DeltaType
	// Object is the object after the change; for a Deleted delta, its last
	// state (the final state from the server, or for a tombstone the last
	// state this FIFO or its store knew).
	Object T
	// Key is the cache key of Object (Options.KeyFunc).
	Key string
	// FinalStateUnknown marks a tombstone (client-go's
	// DeletedFinalStateUnknown): a Deleted inferred from a relist that no
	// longer contained the key. The server's final state was never seen;
	// Object is the last known one.
	FinalStateUnknown bool
	// InitialList marks the deltas of the initial population: the Replaced
	// items and tombstones of every replace that started before the first
	// replace finished. The processor reports them as OnAdd(isInitialList=true).
	InitialList bool
	// Info is what a Bookmark or ReplacedAll delta says; nil for the
	// other types.
	Info *Info[T]
}

// Info is the content of a Bookmark or ReplacedAll delta (client-go's
// BookmarkInfo and ReplacedAllInfo).
type Info[T api.Object] struct {
	// ResourceVersion is what the consumer's content is current at once
	// the delta is applied: a watch bookmark's, or a list's.
	ResourceVersion string
	// Objects is a ReplacedAll's whole content, in list order; nil for a
	// Bookmark.
	Objects []T
}

// keyless reports whether d is a Bookmark or a ReplacedAll: a delta about
// the whole content, with no key, outside the per-key bookkeeping.
func (d *Delta[T]) keyless() bool { return d.Type == Bookmark || d.Type == ReplacedAll }

// KnownObjects is the part of the store the FIFO reads: which keys the
// consumer has applied, and their objects. The FIFO only asks about keys that
// have no pending deltas, so the store's answer for them is current.
type KnownObjects[T api.Object] interface {
	ListKeys() []string
	GetByKey(key string) (T, bool)
}

// Options configure New.
type Options[T api.Object] struct {
	// KeyFunc computes an object's key; default: ObjectMeta.Key
	// ("namespace/name", or "name" when cluster-scoped). It must be pure.
	KeyFunc func(T) string
	// Known is the consumer's store. Nil means the FIFO cannot tell what the
	// consumer holds: Delete is then never ignored, Finish tombstones only
	// keys that are pending in the FIFO, and Resync does nothing.
	Known KnownObjects[T]
	// Logger receives debug lines about replaces; the zero value logs nothing.
	Logger zerolog.Logger
	// GatherReplaces makes Pop, while a replace is open, wait until max
	// deltas are queued (or the replace finishes or aborts) instead of
	// taking whatever arrived: a LIST streamed item by item is then
	// consumed in full batches rather than a few items at a time as the
	// consumer catches up with the decoder. The informer sets it: its
	// store publishes its indexes once per batch, and without it a
	// 50k-pod initial list was applied in ~10 000 batches of about 5
	// pods, each publish leaving the next writes to copy the index paths
	// it shared. What a delta waits is bounded by the list's own progress:
	// until max more items arrive or the list ends.
	GatherReplaces bool
	// Bookmarks makes the FIFO carry resourceVersions to the consumer in
	// order with the objects: Bookmark(rv) enqueues a Bookmark delta, and
	// a replace ends with one holding the list's resourceVersion (after
	// its tombstones). Off, Bookmark does nothing (client-go's RealFIFO
	// EmitDeltaTypeBookmark).
	Bookmarks bool
	// AtomicReplaces delivers each replace that starts after the first
	// one finished (a relist) as one ReplacedAll delta enqueued by Finish,
	// instead of a stream of Replaced deltas and tombstones: the consumer
	// swaps the whole content at once, so that nobody sees half the old
	// content and half the new (client-go's AtomicFIFO). The initial list
	// is still streamed, so that it is never held whole in memory. The
	// replace keeps, instead of each listed object, the one Known already
	// holds for the key when it is the same version (same UID and
	// resourceVersion): a relist then costs memory only for what
	// changed. It needs Known; without it the option is ignored.
	AtomicReplaces bool
}

// Sentinel errors; callers test them with errors.Is.
var (
	// ErrClosed: the FIFO was closed.
	ErrClosed = errors.New("deltafifo: closed")
	// ErrReplaceEnded: the Replacer was already finished or aborted, or a
	// newer StartReplace superseded it.
	ErrReplaceEnded = errors.New("deltafifo: replace already finished, aborted or superseded")
	// ErrConcurrentPop: Pop was called while another Pop was running.
	ErrConcurrentPop = errors.New("deltafifo: another Pop is running")
)

// metaKey is the default KeyFunc.
func metaKey[T api.Object](obj T) string { return obj.GetObjectMeta().Key() }
