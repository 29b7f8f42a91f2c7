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
}

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
