package fakeapi

import (
	"encoding/json"
	"errors"
	"fmt"
	"sort"
	"strconv"
	"sync"
	"time"
)

// Sentinel errors of the Go write API.
var (
	ErrNotFound        = errors.New("fakeapi: object not found")
	ErrAlreadyExists   = errors.New("fakeapi: object already exists")
	ErrConflict        = errors.New("fakeapi: resourceVersion precondition failed")
	ErrUnknownResource = errors.New("fakeapi: resource not served")
	ErrInvalidObject   = errors.New("fakeapi: invalid object")
)

// Event types, as on the wire.
const (
	added    = "ADDED"
	modified = "MODIFIED"
	deleted  = "DELETED"
)

// entry is one stored object.
type entry struct {
	rv  int64
	obj []byte // JSON; its metadata.resourceVersion is rv
	pb  []byte // the same object's protobuf message (no envelope); nil for a kind without one, or before protobuf is asked for (proto.go)
}

// change is one write, kept in the history for watches and for rebuilding
// older snapshots.
type change struct {
	res  int
	typ  string
	ns   string
	key  string // namespace/name
	rv   int64
	obj  []byte // the state after the change; for DELETED the final state stamped with rv
	pb   []byte // obj's protobuf message, or nil
	prev *entry // the state before; nil for ADDED
}

// item is one object of a snapshot.
type item struct {
	key string
	obj []byte
	pb  []byte // obj's protobuf message, or nil
}

// db is the fake's storage: objects, a revision counter and the history
// of changes.
type db struct {
	mu sync.Mutex
	// rv is the newest revision; every write increments it.
	rv int64
	// floor: changes with rv <= floor were compacted away. A watch or an
	// exact read at a revision below floor is answered 410.
	floor int64
	// objects holds, per resource, the current state by key.
	objects []map[string]entry
	// history holds every change with rv > floor, in rv order.
	history []change
	// limit is the most changes history keeps (0: unlimited).
	limit int
	// changed is closed (and replaced) on every write: watches wait on it.
	changed chan struct{}
	uids    int64
	// encode gives a stored object's protobuf message (proto.go): nil for
	// a resource whose kind has none. It is nil itself until a client asks
	// for protobuf (Server.enableProto).
	encode func(res int, obj []byte) ([]byte, error)
}

func newDB(resources, limit int, startRV int64) *db {
	d := &db{rv: startRV, floor: startRV, limit: limit, changed: make(chan struct{})}
	for range resources {
		d.objects = append(d.objects, map[string]entry{})
	}
	return d
}

// write applies one change (typ ADDED, MODIFIED or DELETED) to the object
// ns/name of resource res and returns the stored JSON. obj is the new
// content; it is ignored for DELETED.
func (d *db) write(res int, ns, name, typ string, obj map[string]any) ([]byte, error) {
	d.mu.Lock()
	defer d.mu.Unlock()
	key := ns + "/" + name
	cur, exists := d.objects[res][key]
	switch {
	case typ == added && exists:
		return nil, fmt.Errorf("%w: %s", ErrAlreadyExists, key)
	case typ != added && !exists:
		return nil, fmt.Errorf("%w: %s", ErrNotFound, key)
	}
	rv := d.rv + 1
	var data []byte
	var err error
	switch typ {
	case added:
		d.uids++
		data, err = stamp(obj, rv, map[string]any{
			"uid":               "uid-" + strconv.FormatInt(d.uids, 10),
			"creationTimestamp": time.Now().UTC().Format(time.RFC3339),
		})
	case modified:
		data, err = d.updateLocked(cur, obj, rv)
	case deleted:
		data, err = restamp(cur.obj, rv)
	}
	if err != nil {
		return nil, err
	}
	var pb []byte
	if d.encode != nil {
		if pb, err = d.encode(res, data); err != nil {
			return nil, err
		}
	}
	c := change{res: res, typ: typ, ns: ns, key: key, rv: rv, obj: data, pb: pb}
	if exists {
		prev := cur
		c.prev = &prev
	}
	d.rv = rv
	if typ == deleted {
		delete(d.objects[res], key)
	} else {
		d.objects[res][key] = entry{rv: rv, obj: data, pb: pb}
	}
	d.history = append(d.history, c)
	if d.limit > 0 && len(d.history) > d.limit {
		d.compactLocked(d.limit)
	}
	close(d.changed)
	d.changed = make(chan struct{})
	return data, nil
}

// updateLocked stamps an update, checking the caller's resourceVersion
// precondition and keeping uid and creationTimestamp.
func (d *db) updateLocked(cur entry, obj map[string]any, rv int64) ([]byte, error) {
	meta, _ := obj["metadata"].(map[string]any)
	if want, ok := meta["resourceVersion"].(string); ok && want != "" && want != strconv.FormatInt(cur.rv, 10) {
		return nil, fmt.Errorf("%w: have %d, precondition %s", ErrConflict, cur.rv, want)
	}
	var old struct {
		Metadata struct {
			UID               string `json:"uid"`
			CreationTimestamp string `json:"creationTimestamp"`
		} `json:"metadata"`
	}
	if err := json.Unmarshal(cur.obj, &old); err != nil {
		return nil, err
	}
	return stamp(obj, rv, map[string]any{"uid": old.Metadata.UID, "creationTimestamp": old.Metadata.CreationTimestamp})
}

// compactLocked drops all but the newest keep changes.
func (d *db) compactLocked(keep int) {
	n := len(d.history) - max(keep, 0)
	if n <= 0 {
		return
	}
	d.floor = d.history[n-1].rv
	d.history = append([]change(nil), d.history[n:]...)
}

// changesAfterLocked returns resource res's changes in namespace ns ("" =
// all) with rv > pos.
func (d *db) changesAfterLocked(res int, ns string, pos int64) []change {
	i := sort.Search(len(d.history), func(i int) bool { return d.history[i].rv > pos })
	var out []change
	for _, c := range d.history[i:] {
		if c.res == res && (ns == "" || c.ns == ns) {
			out = append(out, c)
		}
	}
	return out
}

// snapshotLocked returns resource res's objects in namespace ns at
// revision at (floor <= at <= rv), sorted by key. Changes after at are
// undone, newest first.
func (d *db) snapshotLocked(res int, ns string, at int64) []item {
	state := make(map[string]entry, len(d.objects[res]))
	for k, e := range d.objects[res] {
		state[k] = e
	}
	for i := len(d.history) - 1; i >= 0 && d.history[i].rv > at; i-- {
		c := d.history[i]
		switch {
		case c.res != res:
		case c.prev == nil:
			delete(state, c.key)
		default:
			state[c.key] = *c.prev
		}
	}
	out := make([]item, 0, len(state))
	for k, e := range state {
		if ns == "" || k[:len(ns)+1] == ns+"/" {
			out = append(out, item{key: k, obj: e.obj, pb: e.pb})
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].key < out[j].key })
	return out
}

// stamp returns obj's JSON with metadata.resourceVersion set to rv and the
// extra metadata fields added. obj itself is not modified.
func stamp(obj map[string]any, rv int64, extra map[string]any) ([]byte, error) {
	out := make(map[string]any, len(obj))
	for k, v := range obj {
		out[k] = v
	}
	meta := map[string]any{}
	if m, ok := obj["metadata"].(map[string]any); ok {
		for k, v := range m {
			meta[k] = v
		}
	}
	for k, v := range extra {
		meta[k] = v
	}
	meta["resourceVersion"] = strconv.FormatInt(rv, 10)
	out["metadata"] = meta
	data, err := json.Marshal(out)
	if err != nil {
		return nil, fmt.Errorf("%w: %v", ErrInvalidObject, err)
	}
	return data, nil
}

// restamp returns a stored object's JSON with a new resourceVersion.
func restamp(data []byte, rv int64) ([]byte, error) {
	var m map[string]any
	if err := json.Unmarshal(data, &m); err != nil {
		return nil, err
	}
	return stamp(m, rv, nil)
}
