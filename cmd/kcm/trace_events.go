package main

import (
	"slices"
	"time"

	"github.com/kcmlab/kcm/deltafifo"
	"github.com/kcmlab/kcm/kube/api"
	"github.com/kcmlab/kcm/kube/rest"
	"github.com/kcmlab/kcm/reflector"
	"github.com/kcmlab/kcm/store"
)

// traceEvent is one observation of the informer pipeline, stamped with the
// time it was made. kcm trace records them as they happen (trace_recorder.go)
// and prints them with a printer, which is a pure function of the sequence
// (trace_printer.go), so the printing can be tested without a cluster.
//
// Where each one is observed:
//
//	apiserver ──▶ watch stream ──▶ reflector ──▶ deltafifo ──Pop──▶ store ──▶ processor ──▶ handler
//	              watchOpened       listPage                        applied               delivered
//	              watchEvent        phaseChange
//	              watchClosed                                                synced (informer)
type traceEvent interface{ when() time.Time }

// traceStart opens a trace: what is traced, from where and how.
type traceStart struct {
	At        time.Time
	Resource  rest.Resource
	Namespace string // "" = all namespaces (or a cluster-scoped resource)
	Server    string // the API server's URL; never credentials
	Transport string // "chunked" or "websocket"
	WatchList bool
	// Encoding is what the reads ask for: "protobuf" or "JSON"; ""
	// (tests' fakes) says nothing.
	Encoding string
}

// listPage: the reflector received one page of a LIST.
type listPage struct {
	At    time.Time
	Items int
	RV    string // the list's resourceVersion
	More  bool   // a continue token follows: more pages to come
}

// watchOpened: the reflector opened a WATCH.
type watchOpened struct {
	At             time.Time
	RV             string // watch from this resourceVersion ("" with initial events: the newest state)
	InitialEvents  bool   // sendInitialEvents: the current state arrives as ADDED events (WatchList)
	TimeoutSeconds int64  // the server ends the watch after this long
}

// watchEvent: the reflector read one event from the watch stream.
type watchEvent struct {
	At         time.Time
	Type       rest.EventType
	Key        string // namespace/name; "" for BOOKMARK and ERROR
	RV         string
	Bytes      int  // size on the wire
	InitialEnd bool // the bookmark that ends a WatchList's initial events
	Err        string
}

// watchClosed: a watch stream ended for a reason other than kcm stopping.
type watchClosed struct {
	At  time.Time
	Err error // io.EOF when the server closed it normally
}

// phaseChange: the reflector's state machine moved between phases.
type phaseChange struct {
	At       time.Time
	From, To reflector.Phase
	Err      error // what caused it, if anything
}

// applied: the informer popped a delta from the FIFO and wrote it to the
// store (and queued its notification for the processor).
type applied struct {
	At                time.Time
	Type              deltafifo.DeltaType
	Key, RV           string
	InitialList       bool // part of the initial population
	FinalStateUnknown bool // a tombstone: deletion inferred by a relist
	Existed           bool // the store held the key before this write
	Deleting          bool // the object has a deletionTimestamp
	Depth             int  // deltas still queued in the FIFO
	Index             indexEntries
}

// delivered: a listener called its handler.
type delivered struct {
	At        time.Time
	Call      string // OnAdd, OnUpdate, OnDelete
	Key, RV   string
	Initial   bool // OnAdd(isInitialList=true)
	Unchanged bool // OnUpdate whose old and new resourceVersions are equal (relist, resync)
	Pending   int  // notifications still buffered for the handler
	Listeners int  // handlers registered on the informer
}

// synced: the informer reported HasSynced; Objects is the store's size then.
type synced struct {
	At      time.Time
	Objects int
}

// traceStopped: the trace ended (Ctrl-C).
type traceStopped struct{ At time.Time }

func (e traceStart) when() time.Time   { return e.At }
func (e listPage) when() time.Time     { return e.At }
func (e watchOpened) when() time.Time  { return e.At }
func (e watchEvent) when() time.Time   { return e.At }
func (e watchClosed) when() time.Time  { return e.At }
func (e phaseChange) when() time.Time  { return e.At }
func (e applied) when() time.Time      { return e.At }
func (e delivered) when() time.Time    { return e.At }
func (e synced) when() time.Time       { return e.At }
func (e traceStopped) when() time.Time { return e.At }

// indexEntries are the values an object is filed under in the store's
// built-in indexes, each list sorted.
type indexEntries struct {
	Namespace []string // store.IndexNamespace
	Label     []string // store.IndexLabel: "key=value"
	Owner     []string // store.IndexOwner: owner UIDs
}

// indexEntriesOf computes obj's entries with the store's own reference
// index functions, so the trace shows what the store indexes. The store
// files cluster-scoped objects under namespace ""; that entry is left out
// here, as it says nothing to a reader.
func indexEntriesOf[T api.Object](obj T) indexEntries {
	sorted := func(v []string) []string { slices.Sort(v); return slices.Compact(v) }
	ns := store.NamespaceIndexFunc(obj)
	if obj.GetObjectMeta().Namespace == "" {
		ns = nil
	}
	return indexEntries{
		Namespace: sorted(ns),
		Label:     sorted(store.LabelIndexFunc(obj)),
		Owner:     sorted(store.OwnerIndexFunc(obj)),
	}
}
