package store

import (
	"github.com/google/btree"

	"github.com/kcmlab/kcm/kube/api"
)

// Cursor is a position in an index, (value, key): a paged range query
// resumes strictly after it. The zero Cursor is the start of the index.
type Cursor struct {
	Value string
	Key   string
}

// indexIn returns the current snapshot and the position of index in it.
func (s *Store[T]) indexIn(index string) (*snapshot[T], int, error) {
	sn := s.tab.Load().snap.Load()
	i, err := sn.lookup(index)
	return sn, i, err
}

// resolve returns the object that key entry e of value in index i leads
// to, or false when the key was deleted or its index values changed after
// sn away from value (see the package documentation).
func (sn *snapshot[T]) resolve(i int, value string, e kentry[T]) (T, bool) {
	// Object first, then its generation: see cell.
	obj, ok := e.c.load()
	if !ok || (e.c.gen.Load() > sn.gen && !sn.defs[i].has(obj, value)) {
		var zero T
		return zero, false
	}
	return obj, true
}

// walkKeys calls f for the keys of set after `after` ("" = from the
// first), in order, until f says stop.
func walkKeys[T api.Object](set *btree.BTreeG[kentry[T]], after string, f func(kentry[T]) bool) {
	if set == nil {
		return
	}
	if after == "" {
		set.Ascend(f)
		return
	}
	set.AscendGreaterOrEqual(kentry[T]{key: after}, func(e kentry[T]) bool {
		return e.key == after || f(e)
	})
}

// ByIndex returns the objects indexed under value, ordered by key (nil if
// none). It takes no lock and allocates only its result. Unknown index:
// ErrNoIndex.
func (s *Store[T]) ByIndex(index, value string) ([]T, error) {
	sn, i, err := s.indexIn(index)
	if err != nil {
		return nil, err
	}
	set := sn.keys(i, value)
	if set == nil || set.Len() == 0 {
		return nil, nil
	}
	out := make([]T, 0, set.Len())
	set.Ascend(func(e kentry[T]) bool {
		if obj, ok := sn.resolve(i, value, e); ok {
			out = append(out, obj)
		}
		return true
	})
	if len(out) == 0 {
		return nil, nil
	}
	return out, nil
}

// AppendByIndex is ByIndex appending to dst: a reader that reuses dst
// allocates nothing.
func (s *Store[T]) AppendByIndex(dst []T, index, value string) ([]T, error) {
	sn, i, err := s.indexIn(index)
	if err != nil {
		return dst, err
	}
	walkKeys(sn.keys(i, value), "", func(e kentry[T]) bool {
		if obj, ok := sn.resolve(i, value, e); ok {
			dst = append(dst, obj)
		}
		return true
	})
	return dst, nil
}

// IndexLen returns the number of keys indexed under value as last
// published (0 if none), without walking them: what a reader weighs before
// choosing which index to query. Unknown index: ErrNoIndex.
func (s *Store[T]) IndexLen(index, value string) (int, error) {
	sn, i, err := s.indexIn(index)
	if err != nil {
		return 0, err
	}
	if set := sn.keys(i, value); set != nil {
		return set.Len(), nil
	}
	return 0, nil
}

// IndexKeys returns the keys indexed under value, ordered (nil if none):
// the value's key set as last published, a point in time no older than
// the latest write that had returned when the call began.
func (s *Store[T]) IndexKeys(index, value string) ([]string, error) {
	sn, i, err := s.indexIn(index)
	if err != nil {
		return nil, err
	}
	set := sn.keys(i, value)
	if set == nil || set.Len() == 0 {
		return nil, nil
	}
	out := make([]string, 0, set.Len())
	set.Ascend(func(e kentry[T]) bool {
		out = append(out, e.key)
		return true
	})
	return out, nil
}

// ByIndexPage returns up to limit (<= 0: all) objects indexed under value
// whose key sorts after `after` ("" = from the first), ordered by key (nil
// if none).
// next is the key to pass as `after` for the following page, or "" when
// the index held nothing more (a following page can still come back empty
// if its objects are deleted meanwhile).
func (s *Store[T]) ByIndexPage(index, value, after string, limit int) (items []T, next string, err error) {
	sn, i, err := s.indexIn(index)
	if err != nil {
		return nil, "", err
	}
	buf := s.scratch()
	last := ""
	walkKeys(sn.keys(i, value), after, func(e kentry[T]) bool {
		if limit > 0 && len(*buf) == limit {
			next = last // one more entry exists
			return false
		}
		if obj, ok := sn.resolve(i, value, e); ok {
			*buf = append(*buf, obj)
			last = e.key
		}
		return true
	})
	return s.keep(buf), next, nil
}

// ByIndexRange returns up to limit (<= 0: all) objects indexed under a
// value in [from, to) (to == "": no upper bound), ordered by value then key
// (nil if none), starting strictly after the cursor `after` (zero Cursor:
// from the start).
// An object with several values in the range appears once per value. next
// resumes the query, or is the zero Cursor when the index held nothing
// more.
func (s *Store[T]) ByIndexRange(index, from, to string, after Cursor, limit int) (items []T, next Cursor, err error) {
	sn, i, err := s.indexIn(index)
	if err != nil {
		return nil, Cursor{}, err
	}
	start, afterKey := from, ""
	if after != (Cursor{}) && after.Value >= from {
		start, afterKey = after.Value, after.Key
	}
	buf := s.scratch()
	var last Cursor
	sn.tops[i].AscendGreaterOrEqual(group[T]{value: start}, func(g group[T]) bool {
		if to != "" && g.value >= to {
			return false
		}
		skip := ""
		if g.value == start {
			skip = afterKey
		}
		more := true
		walkKeys(g.h.keys.Load(), skip, func(e kentry[T]) bool {
			if limit > 0 && len(*buf) == limit {
				next, more = last, false
				return false
			}
			if obj, ok := sn.resolve(i, g.value, e); ok {
				*buf = append(*buf, obj)
				last = Cursor{Value: g.value, Key: e.key}
			}
			return true
		})
		return more
	})
	return s.keep(buf), next, nil
}

// ListIndexValues returns the distinct values of index that have at least
// one key, in order, as of the latest published snapshot (nil for an
// unknown index; client-go's ListIndexFuncValues).
func (s *Store[T]) ListIndexValues(index string) []string {
	sn, i, err := s.indexIn(index)
	if err != nil {
		return nil
	}
	top := sn.tops[i]
	if top.Len() == 0 {
		return nil
	}
	out := make([]string, 0, top.Len())
	top.Ascend(func(g group[T]) bool {
		out = append(out, g.value)
		return true
	})
	return out
}

// maxScratch is the largest read buffer kept for reuse (objects).
const maxScratch = 4096

// scratch returns an empty buffer for collecting a query's objects.
func (s *Store[T]) scratch() *[]T {
	if b, ok := s.bufs.Get().(*[]T); ok {
		return b
	}
	return new([]T)
}

// keep copies what buf collected into an exactly sized result (nil when
// empty) and recycles buf, so a query allocates only its result.
func (s *Store[T]) keep(buf *[]T) []T {
	var out []T
	if len(*buf) > 0 {
		out = make([]T, len(*buf))
		copy(out, *buf)
	}
	if cap(*buf) <= maxScratch {
		clear(*buf) // the pool must not keep objects alive
		*buf = (*buf)[:0]
		s.bufs.Put(buf)
	}
	return out
}
