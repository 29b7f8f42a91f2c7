package podgen

import (
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
)

// ServerOptions shape a Server.
type ServerOptions struct {
	// Pods is the number of pods the collection holds (pods 0..Pods-1).
	Pods int
	// Events is the number of MODIFIED events (WatchEvents) that follow
	// the collection's resourceVersion.
	Events int
	// EndWatch ends each watch response once its events are written. By
	// default a watch stays open afterwards, as on a real server, until the
	// client goes away or the server is closed.
	EndWatch bool
	// EventsGate, when set, holds every watch before its MODIFIED events
	// until a value arrives on it (one value releases one watch), so a
	// benchmark can time the events apart from the initial sync.
	EventsGate <-chan struct{}
	// Relabel makes every second version of a pod change a label too
	// (RelabeledPodVersion): with Events = 2×Pods, each pod is updated
	// twice and the second update relabels it.
	Relabel bool
}

// Stats counts the requests a Server answered.
type Stats struct {
	Lists      int64 // LIST requests (each page counts)
	Watches    int64 // plain WATCH requests
	WatchLists int64 // WATCH requests with sendInitialEvents=true
}

// Server is a loopback HTTP server answering GET /api/v1/pods the way
// kube-apiserver does, from bytes encoded once in NewServer, so that every
// client under test reads identical bytes:
//
//   - LIST with limit/continue: pages of the collection, with continue
//     tokens and remainingItemCount; resourceVersion=0 (served from the
//     watch cache, which ignores limit) or no limit: the whole list.
//   - WATCH from resourceVersion N: the MODIFIED events newer than N; from
//     "" or "0": an ADDED event per pod first.
//   - WatchList (sendInitialEvents=true): an ADDED event per pod, the
//     k8s.io/initial-events-end BOOKMARK, then the MODIFIED events.
//
// The collection's resourceVersion is ListRV; event k carries ListRV+1+k.
// The encoded bytes live outside the Go heap (see offHeap), so a benchmark
// in the same process measures only its client's memory.
type Server struct {
	// URL is the base URL, e.g. "http://127.0.0.1:40193".
	URL string

	srv *httptest.Server
	// items (list items, without apiVersion/kind) and events (MODIFIED
	// event frames) are read-only slices of one off-heap arena, unmapped
	// by Close after the last handler returned.
	items   [][]byte
	events  [][]byte
	release func()
	listRV  int
	end     bool
	gate    <-chan struct{}
	done    chan struct{} // closed by Close: open watches return
	once    sync.Once

	lists, watches, watchLists atomic.Int64
}

// NewServer encodes the pods and events of o and starts serving them on a
// loopback port. Close it when done.
func NewServer(o ServerOptions) *Server {
	s := &Server{listRV: BaseResourceVersion + o.Pods, end: o.EndWatch, gate: o.EventsGate, done: make(chan struct{})}
	items := Items(o.Pods)
	events := make([][]byte, o.Events)
	version := eventPod
	if o.Relabel {
		version = relabeledEventPod
	}
	for k := range events {
		events[k] = Event("MODIFIED", version(o.Pods, k, s.listRV))
	}
	size := 0
	for _, b := range append(items[:len(items):len(items)], events...) {
		size += len(b)
	}
	arena, release := offHeap(size)
	s.items, arena = copyInto(arena, items)
	s.events, _ = copyInto(arena, events)
	s.release = release
	s.srv = httptest.NewServer(http.HandlerFunc(s.serve))
	s.URL = s.srv.URL
	return s
}

// copyInto copies each slice of src to the front of arena and returns the
// copies and the rest of the arena.
func copyInto(arena []byte, src [][]byte) ([][]byte, []byte) {
	out := make([][]byte, len(src))
	for k, b := range src {
		out[k] = arena[:len(b):len(b)]
		copy(out[k], b)
		arena = arena[len(b):]
	}
	return out, arena
}

// ListRV is the resourceVersion of the collection as listed.
func (s *Server) ListRV() string { return strconv.Itoa(s.listRV) }

// LastRV is the resourceVersion of the last event (ListRV without events).
func (s *Server) LastRV() string { return strconv.Itoa(s.listRV + len(s.events)) }

// Stats returns the requests answered so far.
func (s *Server) Stats() Stats {
	return Stats{Lists: s.lists.Load(), Watches: s.watches.Load(), WatchLists: s.watchLists.Load()}
}

// Close ends open watches, stops the server and waits for its handlers.
func (s *Server) Close() {
	s.once.Do(func() {
		close(s.done)
		s.srv.Close()
		s.items, s.events = nil, nil
		s.release()
	})
}

func (s *Server) serve(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodGet || r.URL.Path != "/api/v1/pods" {
		writeStatus(w, http.StatusNotFound, "NotFound", "the server could not find the requested resource")
		return
	}
	q := r.URL.Query()
	w.Header().Set("Content-Type", "application/json")
	if q.Get("watch") == "true" || q.Get("watch") == "1" {
		s.serveWatch(w, r)
		return
	}
	s.lists.Add(1)
	limit, _ := strconv.Atoi(q.Get("limit"))
	offset := 0
	if c := q.Get("continue"); c != "" {
		var ok bool
		if offset, ok = parseContinue(c, len(s.items)); !ok {
			writeStatus(w, http.StatusBadRequest, "BadRequest", "invalid continue token")
			return
		}
	}
	end, remaining, cont := len(s.items), -1, ""
	if limit > 0 && q.Get("resourceVersion") != "0" && offset+limit < len(s.items) {
		end = offset + limit
		remaining = len(s.items) - end
		cont = "podgen-" + strconv.Itoa(end)
	}
	writeList(w, s.items[offset:end], s.ListRV(), cont, remaining)
}

// parseContinue reads the offset out of a continue token.
func parseContinue(c string, n int) (int, bool) {
	v, ok := strings.CutPrefix(c, "podgen-")
	if !ok {
		return 0, false
	}
	off, err := strconv.Atoi(v)
	return off, err == nil && off >= 0 && off <= n
}

// writeList streams a list response item by item, so the server holds no
// copy of the page.
func writeList(w http.ResponseWriter, items [][]byte, rv, cont string, remaining int) {
	head := appendList(nil, nil, rv, cont, remaining)
	_, _ = w.Write(head[:len(head)-len("]}\n")])
	for k, it := range items {
		if k > 0 {
			_, _ = w.Write(comma)
		}
		_, _ = w.Write(it)
	}
	_, _ = w.Write(listTail)
}

func (s *Server) serveWatch(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	from := 0 // first event to send
	switch rv := q.Get("resourceVersion"); {
	case q.Get("sendInitialEvents") == "true":
		s.watchLists.Add(1)
		s.writeAdded(w)
		_, _ = w.Write(InitialEventsEnd(s.ListRV()))
	case rv == "" || rv == "0":
		s.watches.Add(1)
		s.writeAdded(w)
	default:
		s.watches.Add(1)
		n, err := strconv.Atoi(rv)
		if err != nil {
			writeStatus(w, http.StatusBadRequest, "BadRequest", "invalid resourceVersion")
			return
		}
		from = min(max(n-s.listRV, 0), len(s.events))
	}
	if s.gate != nil && from < len(s.events) {
		if f, ok := w.(http.Flusher); ok {
			f.Flush()
		}
		select {
		case <-s.gate:
		case <-r.Context().Done():
			return
		case <-s.done:
			return
		}
	}
	for _, ev := range s.events[from:] {
		if _, err := w.Write(ev); err != nil {
			return
		}
	}
	if f, ok := w.(http.Flusher); ok {
		f.Flush()
	}
	if s.end {
		return
	}
	select {
	case <-r.Context().Done():
	case <-s.done:
	}
}

var (
	addedHead = []byte(`{"type":"ADDED","object":{"kind":"Pod","apiVersion":"v1",`)
	eventTail = []byte("}\n")
	comma     = []byte{','}
	listTail  = []byte("]}\n")
)

// writeAdded writes an ADDED event for each pod, adding the apiVersion and
// kind that list items leave out.
func (s *Server) writeAdded(w http.ResponseWriter) {
	for _, it := range s.items {
		_, _ = w.Write(addedHead)
		_, _ = w.Write(it[1:]) // skips the item's opening brace
		_, _ = w.Write(eventTail)
	}
}

// writeStatus answers with a meta/v1 Status.
func writeStatus(w http.ResponseWriter, code int, reason, msg string) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(code)
	_, _ = w.Write([]byte(`{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"` + msg +
		`","reason":"` + reason + `","code":` + strconv.Itoa(code) + "}\n"))
}
