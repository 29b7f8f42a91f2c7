package store

import (
	"github.com/google/btree"

	"github.com/kcmlab/kcm/kube"
)

// Cursor is a position in an index, (value, key): a paged range query
// resumes strictly after it. The zero Cursor is the start of the index.
type Cursor struct {
	Value string
	Key   string
}

// view returns the current snapshot and the position of index in it.
func (s *Store[T]) view(index string) (*snapshot[T], int, error) {
	sn := s.tab.Load().snap.Load()
	i, err := sn.lookup(index)
	return sn, i, err
}

// resolve returns the object an entry of index i leads to, or false when
// the key was deleted or its index values changed after sn away from
// e.value (see the package documentation).
func (sn *snapshot[T]) resolve(i int, e entry[T]) (T, bool) {
	v := e.c.p.Load()
	if v == nil || (v.gen > sn.gen && !sn.defs[i].has(v.obj, e.value)) {
		var zero T
		return zero, false
	}
	return v.obj, true
}

// walkValue calls f for the entries of tree with the given value whose key
// is after `after` ("" = from the first), in key order, until f says stop.
func walkValue[T kube.Object](tree *btree.BTreeG[entry[T]], value, after string, f func(entry[T]) bool) {
	tree.AscendGreaterOrEqual(entry[T]{value: value, key: after}, func(e entry[T]) bool {
		if e.value != value {
			return false
		}
		if after != "" && e.key == after {
			return true
		}
		return f(e)
	})
}

// countValue counts the entries with value.
func countValue[T kube.Object](tree *btree.BTreeG[entry[T]], value string) int {
	n := 0
	walkValue(tree, value, "", func(entry[T]) bool {
		n++
		return true
	})
	return n
}

// ByIndex returns the objects indexed under value, ordered by key (nil if
// none). It takes no lock and allocates only its result. Unknown index:
// ErrNoIndex.
func (s *Store[T]) ByIndex(index, value string) ([]T, error) {
	items, _, err := s.ByIndexPage(index, value, "", 0)
	return items, err
}

// AppendByIndex is ByIndex appending to dst: a reader that reuses dst
// allocates nothing.
func (s *Store[T]) AppendByIndex(dst []T, index, value string) ([]T, error) {
	sn, i, err := s.view(index)
	if err != nil {
		return dst, err
	}
	walkValue(sn.trees[i], value, "", func(e entry[T]) bool {
		if obj, ok := sn.resolve(i, e); ok {
			dst = append(dst, obj)
		}
		return true
	})
	return dst, nil
}

// IndexKeys returns the keys indexed under value, ordered, exactly as of
// the latest published snapshot (nil if none).
func (s *Store[T]) IndexKeys(index, value string) ([]string, error) {
	sn, i, err := s.view(index)
	if err != nil {
		return nil, err
	}
	tree := sn.trees[i]
	n := countValue(tree, value)
	if n == 0 {
		return nil, nil
	}
	out := make([]string, 0, n)
	walkValue(tree, value, "", func(e entry[T]) bool {
		out = append(out, e.key)
		return true
	})
	return out, nil
}

// ByIndexPage returns up to limit (<= 0: all) objects indexed under value
// whose key sorts after `after` ("" = from the first), ordered by key.
// next is the key to pass as `after` for the following page, or "" when
// the index held nothing more (a following page can still come back empty
// if its objects are deleted meanwhile).
func (s *Store[T]) ByIndexPage(index, value, after string, limit int) (items []T, next string, err error) {
	sn, i, err := s.view(index)
	if err != nil {
		return nil, "", err
	}
	buf := s.scratch()
	last := ""
	walkValue(sn.trees[i], value, after, func(e entry[T]) bool {
		if limit > 0 && len(*buf) == limit {
			next = last // one more entry exists
			return false
		}
		if obj, ok := sn.resolve(i, e); ok {
			*buf = append(*buf, obj)
			last = e.key
		}
		return true
	})
	return s.keep(buf), next, nil
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

// ByIndexRange returns up to limit (<= 0: all) objects indexed under a
// value in [from, to) (to == "": no upper bound), ordered by value then key,
// starting strictly after the cursor `after` (zero Cursor: from the start).
// An object with several values in the range appears once per value. next
// resumes the query, or is the zero Cursor when the index held nothing
// more.
func (s *Store[T]) ByIndexRange(index, from, to string, after Cursor, limit int) (items []T, next Cursor, err error) {
	sn, i, err := s.view(index)
	if err != nil {
		return nil, Cursor{}, err
	}
	start, skip := entry[T]{value: from}, false
	if a := (entry[T]{value: after.Value, key: after.Key}); after != (Cursor{}) && !lessEntry(a, start) {
		start, skip = a, true
	}
	buf := s.scratch()
	var last Cursor
	sn.trees[i].AscendGreaterOrEqual(start, func(e entry[T]) bool {
		if to != "" && e.value >= to {
			return false
		}
		if skip && e.value == start.value && e.key == start.key {
			return true
		}
		if limit > 0 && len(*buf) == limit {
			next = last
			return false
		}
		if obj, ok := sn.resolve(i, e); ok {
			*buf = append(*buf, obj)
			last = Cursor{Value: e.value, Key: e.key}
		}
		return true
	})
	return s.keep(buf), next, nil
}

// ListIndexValues returns the distinct values of index that have at least
// one key, in order, as of the latest published snapshot (nil for an
// unknown index; client-go's ListIndexFuncValues).
func (s *Store[T]) ListIndexValues(index string) []string {
	sn, i, err := s.view(index)
	if err != nil {
		return nil
	}
	tree := sn.trees[i]
	var out []string
	pivot := entry[T]{}
	for {
		found := false
		tree.AscendGreaterOrEqual(pivot, func(e entry[T]) bool {
			out = append(out, e.value)
			found = true
			return false
		})
		if !found {
			return out
		}
		// The least string greater than every entry with this value.
		pivot = entry[T]{value: out[len(out)-1] + "\x00"}
	}
}
