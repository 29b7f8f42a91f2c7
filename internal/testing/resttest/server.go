package resttest

import (
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/kcmlab/kcm/clock"
	"github.com/kcmlab/kcm/kube/rest"
)

// Options configure a Server.
type Options struct {
	// Clock stamps creationTimestamp and deletionTimestamp; default
	// clock.Real. Give it the controller's fake clock.
	Clock clock.Clock
	// UID returns the uid of an object the server creates (or an object
	// Add stores without one); default "uid-1", "uid-2", ... in order.
	UID func(namespace, name string) string
}

// Server is the recording fake apiserver: an httptest server, the object
// tracker behind it, the actions it received and the interceptors that
// may answer them.
type Server struct {
	t      testing.TB
	srv    *httptest.Server
	client *rest.Client

	mu      sync.Mutex
	tr      *tracker
	actions []Action
	hooks   []*interceptor
}

// New starts a server for the test; t's cleanup stops it.
func New(t testing.TB, opts Options) *Server {
	t.Helper()
	s, err := Start(opts)
	if err != nil {
		t.Fatal(err)
	}
	s.t = t
	t.Cleanup(s.Close)
	return s
}

// Start starts a server outside a test (an Example); Close stops it.
// Helpers that would fail a test panic instead.
func Start(opts Options) (*Server, error) {
	clk := opts.Clock
	if clk == nil {
		clk = clock.Real{}
	}
	s := &Server{tr: newTracker(clk.Now, opts.UID)}
	s.srv = httptest.NewServer(s)
	c, err := rest.NewClient(&rest.Config{Host: s.srv.URL, QPS: -1}, rest.WithRetryPolicy(rest.RetryPolicy{MaxAttempts: 1}))
	if err != nil {
		s.srv.Close()
		return nil, fmt.Errorf("resttest: client: %w", err)
	}
	s.client = c
	return s, nil
}

// Close stops the server and closes the client's idle connections.
func (s *Server) Close() {
	s.client.CloseIdleConnections()
	s.srv.Close()
}

// Client is a client of the server that tries each request once and is
// not rate limited, so that every action a test expects is made exactly
// once.
func (s *Server) Client() *rest.Client { return s.client }

// URL is the server's base URL.
func (s *Server) URL() string { return s.srv.URL }

// Actions returns the actions received so far, in order.
func (s *Server) Actions() []Action {
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Clone(s.actions)
}

// Take returns the actions received so far and forgets them.
func (s *Server) Take() []Action {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := s.actions
	s.actions = nil
	return out
}

// fatal fails the test, or panics outside one.
func (s *Server) fatal(err error) {
	if s.t == nil {
		panic(err)
	}
	s.t.Helper()
	s.t.Fatal(err)
}

// request is a parsed request path.
type request struct {
	ref
	version, namespace, name, sub string
}

// parsePath splits /api/v1[/namespaces/{ns}]/{resource}[/{name}[/{sub}]]
// and its /apis/{group}/{version} form. /api/v1/namespaces/{name}/status
// and /finalize are the namespace's subresources.
func parsePath(p string) (request, bool) {
	segs := strings.Split(strings.Trim(p, "/"), "/")
	var r request
	switch {
	case len(segs) >= 3 && segs[0] == "api":
		r.version, segs = segs[1], segs[2:]
	case len(segs) >= 4 && segs[0] == "apis":
		r.group, r.version, segs = segs[1], segs[2], segs[3:]
	default:
		return r, false
	}
	if len(segs) >= 3 && segs[0] == "namespaces" && !(len(segs) == 3 && (segs[2] == "status" || segs[2] == "finalize")) {
		r.namespace, segs = segs[1], segs[2:]
	}
	if len(segs) > 3 || segs[0] == "" {
		return r, false
	}
	r.resource = segs[0]
	if len(segs) > 1 {
		r.name = segs[1]
	}
	if len(segs) > 2 {
		r.sub = segs[2]
	}
	return r, true
}

// verbOf is the Kubernetes verb of a request.
func verbOf(method string, r request, watch bool) string {
	switch method {
	case http.MethodGet:
		switch {
		case r.name != "":
			return "get"
		case watch:
			return "watch"
		}
		return "list"
	case http.MethodPost:
		return "create"
	case http.MethodPut:
		return "update"
	case http.MethodPatch:
		return "patch"
	case http.MethodDelete:
		if r.name == "" {
			return "deletecollection"
		}
		return "delete"
	}
	return strings.ToLower(method)
}

// ServeHTTP records the request as an Action, runs the interceptors, and
// serves it from the tracker.
func (s *Server) ServeHTTP(w http.ResponseWriter, hr *http.Request) {
	body, _ := io.ReadAll(hr.Body)
	r, ok := parsePath(hr.URL.Path)
	q := hr.URL.Query()
	a := Action{Verb: verbOf(hr.Method, r, q.Get("watch") == "true" || q.Get("watch") == "1"),
		Group: r.group, Resource: r.resource, Subresource: r.sub, Namespace: r.namespace, Name: r.name,
		Body: body, Query: q}
	if a.Verb == "patch" {
		a.PatchType = rest.PatchType(hr.Header.Get("Content-Type"))
	}
	if a.Verb == "create" && r.name == "" {
		var m map[string]any
		if o, err := decodeObject(body); err == nil {
			m = meta(o)
		}
		a.Name = str(m, "name")
	}
	s.mu.Lock()
	s.actions = append(s.actions, a)
	s.mu.Unlock()
	if !ok {
		reply(w, 404, failureOf(&apiError{code: 404, reason: "NotFound", message: "the server could not find the requested resource"}))
		return
	}
	err := s.intercept(a)
	s.mu.Lock()
	defer s.mu.Unlock()
	var se *rest.StatusError
	switch {
	case errors.Is(err, NoOp):
		s.pretend(w, r, a)
	case errors.As(err, &se):
		st := se.Status
		st.Kind, st.APIVersion, st.Status = "Status", "v1", "Failure"
		reply(w, int(st.Code), st)
	case err != nil:
		reply(w, 500, failureOf(&apiError{code: 500, reason: "InternalError", message: err.Error()}))
	default:
		s.serve(w, hr, r, a)
	}
}

// serve carries the action out on the tracker. Called with s.mu held.
func (s *Server) serve(w http.ResponseWriter, hr *http.Request, r request, a Action) {
	k := key{r.ref, r.namespace, r.name}
	accept := hr.Header.Get("Accept")
	var (
		out  any
		code = http.StatusOK
		err  error
	)
	switch a.Verb {
	case "get":
		if r.sub != "" {
			err = &apiError{code: 404, reason: "NotFound", message: "the server could not find the requested resource"}
			break
		}
		var o object
		if o, err = s.tr.get(k); err == nil {
			out = render(o, accept)
		}
	case "list":
		var items []object
		if items, err = s.tr.list(r.ref, r.namespace, a.Query.Get("labelSelector"), a.Query.Get("fieldSelector")); err == nil {
			out = s.renderList(items, accept)
		}
	case "create":
		if r.name != "" {
			err = &apiError{code: 404, reason: "NotFound", message: "the server could not find the requested resource"}
			break
		}
		var o object
		if o, err = decodeObject(a.Body); err != nil {
			err = badRequest(err.Error())
			break
		}
		out, err = s.tr.create(r.ref, r.namespace, o)
		code = http.StatusCreated
	case "update":
		var o object
		if o, err = decodeObject(a.Body); err != nil {
			err = badRequest(err.Error())
			break
		}
		out, err = s.tr.update(k, r.sub, o)
	case "patch":
		out, err = s.tr.patch(k, r.sub, a.PatchType, a.Body)
	case "delete":
		var kept object
		var gone bool
		if kept, gone, err = s.tr.remove(k, a.DeleteOptions()); err == nil {
			out = kept
			if gone {
				out = success(k, str(meta(kept), "uid"))
			}
		}
	case "deletecollection":
		if err = s.tr.removeCollection(r.ref, r.namespace, a.Query.Get("labelSelector"), a.Query.Get("fieldSelector"), a.DeleteOptions()); err == nil {
			out = success(key{ref: r.ref}, "")
		}
	default:
		err = &apiError{code: 405, reason: "MethodNotAllowed",
			message: "resttest does not serve " + a.Verb + ": load listers with resttest.Lister instead of watching"}
	}
	if err != nil {
		reply(w, statusCode(err), failureOf(err))
		return
	}
	reply(w, code, out)
}

// pretend answers a as if it had been carried out, changing nothing.
func (s *Server) pretend(w http.ResponseWriter, r request, a Action) {
	switch a.Verb {
	case "create":
		o, err := decodeObject(a.Body)
		if err != nil {
			reply(w, 400, failureOf(badRequest(err.Error())))
			return
		}
		reply(w, http.StatusCreated, o)
	case "get", "update", "patch":
		if o, err := s.tr.get(key{r.ref, r.namespace, r.name}); err == nil {
			reply(w, http.StatusOK, o)
			return
		}
		reply(w, http.StatusOK, map[string]any{})
	case "list":
		reply(w, http.StatusOK, s.renderList(nil, ""))
	default:
		reply(w, http.StatusOK, success(key{r.ref, r.namespace, r.name}, ""))
	}
}

// render is o as the answer to a request with that Accept header: the
// whole object, or its PartialObjectMetadata.
func render(o object, accept string) object {
	if !strings.Contains(accept, "as=PartialObjectMetadata") {
		return o
	}
	return object{"apiVersion": "meta.k8s.io/v1", "kind": "PartialObjectMetadata", "metadata": o["metadata"]}
}

func (s *Server) renderList(items []object, accept string) object {
	kind := "List"
	out := make([]any, len(items))
	for i, o := range items {
		out[i] = render(o, accept)
		if k, _ := o["kind"].(string); k != "" {
			kind = k + "List"
		}
	}
	apiVersion := "v1"
	if strings.Contains(accept, "as=PartialObjectMetadata") {
		kind, apiVersion = "PartialObjectMetadataList", "meta.k8s.io/v1"
	}
	return object{"apiVersion": apiVersion, "kind": kind, "items": out,
		"metadata": map[string]any{"resourceVersion": fmt.Sprint(s.tr.rv)}}
}

func reply(w http.ResponseWriter, code int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(code)
	_, _ = w.Write(encode(v))
}
