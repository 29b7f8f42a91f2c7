package reflector

import "fmt"

// InitialList is how a reflector reads the state it starts from: the
// first request of its life, before it has a resourceVersion of its own.
// What each choice may serve stale is in the package documentation
// ("What the first list may serve stale"). Relists after a watch expired
// read at the reflector's last resourceVersion ("not older than") whatever
// the choice, and the newest state when that is itself expired.
type InitialList int

// The choices. The zero value is DefaultInitialList.
const (
	// ListDefault is DefaultInitialList.
	ListDefault InitialList = iota
	// ListFromCache is client-go's first list: LIST at resourceVersion
	// "0" ("any"), which kube-apiserver answers from its watch cache in one
	// response whatever the page size; a resource without a watch cache
	// is paged from etcd. It may be stale (see the package documentation);
	// the watch from its resourceVersion brings the cache up to date.
	ListFromCache
	// ListConsistent lists at resourceVersion "" (the newest state, as a
	// quorum read of etcd would see it), in pages of Options.PageSize.
	ListConsistent
	// ListStream streams the newest state over a watch (WatchList:
	// sendInitialEvents=true), falling back to ListConsistent for good
	// once the server refuses it.
	ListStream
)

// DefaultInitialList is what the zero Options use: measured against
// kube-apiserver 1.34 with 20,000 pods (bench/RESULTS.md, "list+sync
// against the real kube-apiserver").
const DefaultInitialList = ListFromCache

func (l InitialList) String() string {
	switch l {
	case ListDefault:
		return "default"
	case ListFromCache:
		return "from-cache"
	case ListConsistent:
		return "consistent"
	case ListStream:
		return "stream"
	}
	return fmt.Sprintf("InitialList(%d)", int(l))
}

// Initial returns the choice o makes: InitialList, ListDefault read as
// DefaultInitialList and, with DisableWatchList, ListStream read as
// ListConsistent.
func (o Options) Initial() InitialList { return o.InitialList.resolve(o.DisableWatchList) }

// resolve returns the choice l stands for, DisableWatchList applied.
func (l InitialList) resolve(disableWatchList bool) InitialList {
	if l == ListDefault {
		l = DefaultInitialList
	}
	if l == ListStream && disableWatchList {
		l = ListConsistent
	}
	return l
}
