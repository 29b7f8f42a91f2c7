package fakeapi

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/kcmlab/kcm/kube/api/protowire"
)

// Resource is one namespaced REST resource the fake serves.
type Resource struct {
	Group    string // "" for the core group
	Version  string // "v1"
	Resource string // plural: "pods"
	Kind     string // "Pod"
}

// APIVersion is "group/version", or "version" for the core group.
func (r Resource) APIVersion() string {
	if r.Group == "" {
		return r.Version
	}
	return r.Group + "/" + r.Version
}

// Options configure a Server. Zero values mean the defaults noted.
type Options struct {
	Resources []Resource
	// HistoryLimit is the most changes kept for watches; older ones are
	// compacted. 0: unlimited.
	HistoryLimit int
	// StartRV is the revision before the first write; default 1000.
	StartRV int64
	// BookmarkInterval: watches that allow bookmarks get one this often;
	// default one minute (kube-apiserver's rhythm).
	BookmarkInterval time.Duration
	// MaxWatch ends every watch cleanly after at most this long, whatever
	// its timeoutSeconds (kube-apiserver's --min-request-timeout, shrunk
	// for tests). 0: timeoutSeconds only.
	MaxWatch time.Duration
	// NoWatchList refuses sendInitialEvents=true with 422 Invalid, as
	// servers without the WatchList feature do.
	NoWatchList bool
	// CompactFrames writes chunked watch events back to back with no
	// newline between them (kube-apiserver writes one after each).
	CompactFrames bool
	// Faults, when set, makes the server misbehave.
	Faults *Injector
	// TLS serves HTTPS, HTTP/2 and HTTP/1.1 (for WebSocket), with a
	// certificate clients trust through CAPEM, and enables the connection
	// faults (tls.go).
	TLS bool
	// Tokens, when set, requires a bearer token it issued (401 otherwise)
	// and enables Unauthorized401.
	Tokens *Tokens
	// Redirects starts the other host that Redirect307 sends requests to
	// (Elsewhere reports what it received).
	Redirects bool
	// MaxObject is the client's bound on one object or event, which the
	// ProtoOversize fault exceeds; default protowire.DefaultMaxFrame
	// (client-go's 16 MiB).
	MaxObject int
}

// Stats count what the server was asked: LIST requests, WATCH requests,
// the watches among them served over WebSocket, and the WatchList requests
// (sendInitialEvents=true) of a server that serves them, counted whether
// or not a fault answered them.
type Stats struct {
	Lists, Watches, WebSockets, WatchLists int64
	// Conns counts the TLS connections accepted (Options.TLS only).
	Conns int64
	// Protobuf counts the LISTs and WATCHes answered with protobuf.
	Protobuf int64
}

// Server is a fake kube-apiserver on a loopback httptest server.
type Server struct {
	o      Options
	db     *db
	index  map[Resource]int
	byPath map[string]int // "group/version/resource" → index
	srv    *httptest.Server
	url    string
	faults *Injector
	// elsewhere is the redirect target (Options.Redirects), or nil.
	elsewhere *elsewhere
	resumes   *resumes
	// protoOnce turns the store's protobuf forms on (proto.go).
	protoOnce sync.Once

	// stop is closed by Close: every handler, hijacked ones included,
	// returns when it sees it.
	stop chan struct{}
	// mu guards closed; handlers register in wg under it, so that Close's
	// Wait never races a new Add.
	mu     sync.Mutex
	closed bool
	wg     sync.WaitGroup

	lists, watches, websockets, watchLists, conns, protobuf atomic.Int64
}

// New starts a server serving o.Resources.
func New(o Options) *Server {
	if o.StartRV <= 0 {
		o.StartRV = 1000
	}
	if o.BookmarkInterval <= 0 {
		o.BookmarkInterval = time.Minute
	}
	if o.MaxObject <= 0 {
		o.MaxObject = protowire.DefaultMaxFrame
	}
	s := &Server{o: o, db: newDB(len(o.Resources), o.HistoryLimit, o.StartRV), index: map[Resource]int{},
		byPath: map[string]int{}, faults: o.Faults, stop: make(chan struct{}), resumes: newResumes()}
	for i, r := range o.Resources {
		s.index[r] = i
		s.byPath[r.Group+"/"+r.Version+"/"+r.Resource] = i
	}
	if o.Redirects {
		secret := ""
		if o.Tokens != nil {
			secret = o.Tokens.Secret()
		}
		s.elsewhere = newElsewhere(o.TLS, secret)
	}
	s.srv = httptest.NewUnstartedServer(http.HandlerFunc(s.serveHTTP))
	s.url = startServer(s.srv, o.TLS, o.Faults, &s.conns)
	return s
}

// URL is the server's base URL, e.g. http://127.0.0.1:41234 (https:// with
// Options.TLS).
func (s *Server) URL() string { return s.url }

// Stats returns the request counts so far.
func (s *Server) Stats() Stats {
	return Stats{Lists: s.lists.Load(), Watches: s.watches.Load(), WebSockets: s.websockets.Load(),
		WatchLists: s.watchLists.Load(), Conns: s.conns.Load(), Protobuf: s.protobuf.Load()}
}

// Close ends every request in flight, stops the server and waits for all
// its goroutines.
func (s *Server) Close() {
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		return
	}
	s.closed = true
	close(s.stop)
	s.mu.Unlock()
	s.srv.CloseClientConnections()
	s.srv.Close()
	if s.elsewhere != nil {
		s.elsewhere.srv.CloseClientConnections()
		s.elsewhere.srv.Close()
	}
	s.wg.Wait()
}

// enter registers a handler; false once the server is closing.
func (s *Server) enter() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return false
	}
	s.wg.Add(1)
	return true
}

func (s *Server) serveHTTP(w http.ResponseWriter, r *http.Request) {
	if !s.enter() {
		writeStatus(w, r, http.StatusServiceUnavailable, "ServiceUnavailable", "fakeapi: shutting down")
		return
	}
	defer s.wg.Done()
	if r.Method != http.MethodGet {
		writeStatus(w, r, http.StatusMethodNotAllowed, "MethodNotAllowed", "fakeapi: only GET, LIST and WATCH are served")
		return
	}
	res, ns, name, ok := s.route(r.URL.Path)
	if !ok {
		writeStatus(w, r, http.StatusNotFound, "NotFound", "fakeapi: no resource at "+r.URL.Path)
		return
	}
	q := r.URL.Query()
	if q.Get("labelSelector") != "" || q.Get("fieldSelector") != "" {
		writeStatus(w, r, http.StatusBadRequest, "BadRequest", "fakeapi: selectors are not supported")
		return
	}
	if !s.authenticate(w, r) {
		return
	}
	if name != "" {
		if !s.requestFault(w, r, res, false, "", "", false) {
			s.serveGet(w, r, res, ns, name)
		}
		return
	}
	watch := q.Get("watch") == "true" || q.Get("watch") == "1"
	initial := q.Get("sendInitialEvents") == "true"
	if watch && initial && !s.o.NoWatchList {
		s.watchLists.Add(1) // asked for, whether or not a fault answers it
	}
	if s.requestFault(w, r, res, watch, q.Get("resourceVersion"), q.Get("continue"), initial) {
		return
	}
	s.connFault(r)
	if watch {
		s.serveWatch(w, r, res, ns)
		return
	}
	s.serveList(w, r, res, ns)
}

// route maps /api/{v}[/namespaces/{ns}]/{res} and
// /apis/{g}/{v}[/namespaces/{ns}]/{res} to a served resource, and
// /api/{v}/namespaces/{ns}/{res}/{name} (or /apis/...) to one object.
func (s *Server) route(path string) (res int, ns, name string, ok bool) {
	parts := strings.Split(strings.Trim(path, "/"), "/")
	var gv string
	switch {
	case len(parts) >= 3 && parts[0] == "api":
		gv, parts = "/"+parts[1], parts[2:]
	case len(parts) >= 4 && parts[0] == "apis":
		gv, parts = parts[1]+"/"+parts[2], parts[3:]
	default:
		return 0, "", "", false
	}
	switch {
	case len(parts) == 4 && parts[0] == "namespaces" && parts[1] != "" && parts[3] != "":
		ns, name, parts = parts[1], parts[3], parts[2:3]
	case len(parts) == 3 && parts[0] == "namespaces" && parts[1] != "":
		ns, parts = parts[1], parts[2:]
	case len(parts) != 1:
		return 0, "", "", false
	}
	res, ok = s.byPath[gv+"/"+parts[0]]
	return res, ns, name, ok
}

// requestFault answers the request with an injected failure, if one
// strikes, and reports whether it did. Only faults a real server could
// give for this request are candidates.
func (s *Server) requestFault(w http.ResponseWriter, r *http.Request, res int, watch bool, rv, cont string, initial bool) bool {
	cands := []Fault{Status500, Status503, Status429, SlowStart}
	exactRV := rv != "" && rv != "0"
	if watch {
		cands = append(cands, StallHeader, ForbiddenWatch403)
	}
	if s.o.Tokens != nil {
		cands = append(cands, Unauthorized401)
	}
	if s.elsewhere != nil {
		cands = append(cands, Redirect307)
	}
	switch {
	case watch && exactRV && !initial:
		cands = append(cands, Gone410)
	case !watch && cont != "":
		cands = append(cands, Gone410)
	case !watch && exactRV:
		cands = append(cands, Gone410, TooLarge504)
	}
	f := s.faults.roll(cands...)
	if s.authFault(f, w, r, res) {
		return true
	}
	switch f {
	case Status500:
		writeStatus(w, r, http.StatusInternalServerError, "InternalError", "fakeapi: injected internal error")
	case Status503:
		w.Header().Set("Content-Type", "text/plain")
		w.WriteHeader(http.StatusServiceUnavailable)
		_, _ = w.Write([]byte("upstream connect error or disconnect/reset before headers\n"))
	case Status429:
		w.Header().Set("Retry-After", "1")
		writeStatus(w, r, http.StatusTooManyRequests, "TooManyRequests", "fakeapi: injected throttling")
	case Gone410:
		writeStatus(w, r, http.StatusGone, "Expired", "fakeapi: injected: too old resource version: "+rv)
	case TooLarge504:
		writeStatusCause(w, r, http.StatusGatewayTimeout, "Timeout", "fakeapi: injected: too large resource version: "+rv,
			"ResourceVersionTooLarge")
	case SlowStart:
		s.pause(s.faults.slow(), nil)
		return false
	case StallHeader:
		s.pause(time.Hour, r.Context().Done())
	default:
		return false
	}
	return true
}

// pause waits d, or less when the server closes or done is closed.
func (s *Server) pause(d time.Duration, done <-chan struct{}) {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
	case <-s.stop:
	case <-done:
	}
}

// status is a meta/v1 Status.
type status struct {
	Kind       string         `json:"kind"`
	APIVersion string         `json:"apiVersion"`
	Metadata   struct{}       `json:"metadata"`
	Status     string         `json:"status"`
	Message    string         `json:"message"`
	Reason     string         `json:"reason"`
	Details    *statusDetails `json:"details,omitempty"`
	Code       int            `json:"code"`
}

type statusDetails struct {
	Causes []statusCause `json:"causes,omitempty"`
}

type statusCause struct {
	Reason  string `json:"reason"`
	Message string `json:"message"`
}

func newStatus(code int, reason, msg string, causes ...string) []byte {
	st := status{Kind: "Status", APIVersion: "v1", Status: "Failure", Message: msg, Reason: reason, Code: code}
	if len(causes) > 0 {
		st.Details = &statusDetails{}
		for _, c := range causes {
			st.Details.Causes = append(st.Details.Causes, statusCause{Reason: c, Message: msg})
		}
	}
	data, _ := json.Marshal(st)
	return data
}

// writeStatus answers r with a Status failure: protobuf when r asks for
// protobuf first (proto.go), else JSON.
func writeStatus(w http.ResponseWriter, r *http.Request, code int, reason, msg string) {
	writeStatusCause(w, r, code, reason, msg)
}

func writeStatusCause(w http.ResponseWriter, r *http.Request, code int, reason, msg string, causes ...string) {
	if acceptsProto(r, false) {
		w.Header().Set("Content-Type", protowire.ContentType)
		w.WriteHeader(code)
		_, _ = w.Write(protoStatus(code, reason, msg, 0, causes...))
		return
	}
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(code)
	_, _ = w.Write(newStatus(code, reason, msg, causes...))
}

// Create stores a new object of res. obj must carry metadata.name and
// metadata.namespace; uid, creationTimestamp and resourceVersion are set
// by the server. It returns the stored JSON.
func (s *Server) Create(res Resource, obj map[string]any) ([]byte, error) {
	return s.write(res, added, obj)
}

// Update replaces an existing object. A non-empty metadata.resourceVersion
// in obj is a precondition (ErrConflict when stale).
func (s *Server) Update(res Resource, obj map[string]any) ([]byte, error) {
	return s.write(res, modified, obj)
}

// Delete removes an object and returns its final state, stamped with the
// revision of the delete as the DELETED event carries it.
func (s *Server) Delete(res Resource, namespace, name string) ([]byte, error) {
	return s.write(res, deleted, map[string]any{"metadata": map[string]any{"namespace": namespace, "name": name}})
}

func (s *Server) write(res Resource, typ string, obj map[string]any) ([]byte, error) {
	i, ok := s.index[res]
	if !ok {
		return nil, fmt.Errorf("%w: %s", ErrUnknownResource, res.Resource)
	}
	meta, _ := obj["metadata"].(map[string]any)
	ns, _ := meta["namespace"].(string)
	name, _ := meta["name"].(string)
	if ns == "" || name == "" {
		return nil, fmt.Errorf("%w: metadata.namespace and metadata.name are required", ErrInvalidObject)
	}
	if typ != deleted {
		obj = withType(obj, res)
	}
	return s.db.write(i, ns, name, typ, obj)
}

// withType sets apiVersion and kind when obj lacks them.
func withType(obj map[string]any, res Resource) map[string]any {
	if _, ok := obj["kind"]; ok {
		return obj
	}
	out := map[string]any{"apiVersion": res.APIVersion(), "kind": res.Kind}
	for k, v := range obj {
		out[k] = v
	}
	return out
}

// Objects returns the current key ("namespace/name") → resourceVersion of
// res's objects in namespace ("" = all).
func (s *Server) Objects(res Resource, namespace string) map[string]string {
	out := map[string]string{}
	i, ok := s.index[res]
	if !ok {
		return out
	}
	s.db.mu.Lock()
	defer s.db.mu.Unlock()
	for k, e := range s.db.objects[i] {
		if namespace == "" || strings.HasPrefix(k, namespace+"/") {
			out[k] = strconv.FormatInt(e.rv, 10)
		}
	}
	return out
}

// ResourceVersion returns the newest revision.
func (s *Server) ResourceVersion() string {
	s.db.mu.Lock()
	defer s.db.mu.Unlock()
	return strconv.FormatInt(s.db.rv, 10)
}

// Compact drops all but the newest keep changes from the history: watches
// and exact reads from before them get 410 Expired.
func (s *Server) Compact(keep int) {
	s.db.mu.Lock()
	defer s.db.mu.Unlock()
	s.db.compactLocked(keep)
	close(s.db.changed) // lagging watches must learn they fell behind
	s.db.changed = make(chan struct{})
}
