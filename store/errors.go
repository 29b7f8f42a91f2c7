package store

import "errors"

// Sentinel errors. Callers test them with errors.Is; the store wraps them
// with the index name involved.
var (
	// ErrNoIndex reports a query on an index the store does not maintain.
	ErrNoIndex = errors.New("store: no such index")
	// ErrIndexExists reports an AddIndexers call naming an index that is
	// already maintained.
	ErrIndexExists = errors.New("store: index already exists")
	// ErrNilIndexFunc reports a nil IndexFunc under a name that is not one
	// of the built-in indexes (IndexNamespace, IndexLabel, IndexOwner).
	ErrNilIndexFunc = errors.New("store: nil index func for a name that is not built in")
)
