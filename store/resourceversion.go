package store

// Bookmark records rv as the resourceVersion the store's content is
// current at: every change the server made up to rv has been written
// (client-go's Store.Bookmark, and the resourceVersion its thread-safe
// store keeps beside the items). The writer calls it after the writes that
// brought the content to rv, never before, so that a reader that loads rv
// and then reads objects finds at least the state of rv: the objects'
// stores happen before rv's (atomic stores on both sides). rv may go back
// (a relist served older than the last event), which only makes a reader
// wait longer; "" means unknown.
func (s *Store[T]) Bookmark(rv string) {
	if p := s.rv.Load(); p != nil && *p == rv {
		return
	}
	s.rv.Store(&rv)
}

// LastStoreSyncResourceVersion is the resourceVersion the content is
// current at, the last one given to Bookmark ("" before the first):
// client-go's Store.LastStoreSyncResourceVersion, which controllers
// compare with the resourceVersion of their own last write to tell
// whether their cache has seen it yet (Kubernetes' KEP-5647).
func (s *Store[T]) LastStoreSyncResourceVersion() string {
	if p := s.rv.Load(); p != nil {
		return *p
	}
	return ""
}

// LastStoreSyncResourceVersion is the resourceVersion the content is
// current at (Store.LastStoreSyncResourceVersion).
func (v View[T]) LastStoreSyncResourceVersion() string { return v.s.LastStoreSyncResourceVersion() }
