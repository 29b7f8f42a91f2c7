package namespace

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/rs/zerolog"

	"github.com/kcmlab/kcm/clock"
	"github.com/kcmlab/kcm/ctrl"
	"github.com/kcmlab/kcm/informer"
	"github.com/kcmlab/kcm/kube/api"
	"github.com/kcmlab/kcm/kube/rest"
	"github.com/kcmlab/kcm/store"
)

// t0 is the fake clock's start; the namespace was deleted at tDeleted.
var (
	t0       = time.Date(2025, 6, 1, 12, 0, 0, 0, time.UTC)
	tDeleted = t0.Add(-10 * time.Second)
)

// Resources of the fixtures' discovery.
var (
	configMaps = rest.APIResource{Resource: rest.ConfigMaps, Verbs: verbs("create delete deletecollection get list patch update watch")}
	podsRes    = rest.APIResource{Resource: rest.Pods, Verbs: verbs("create delete deletecollection get list patch update watch")}
	// widgets cannot be deleted as a collection: list, then one by one.
	widgets = rest.APIResource{Resource: rest.Resource{Group: "example.com", Version: "v1", Resource: "widgets", Kind: "Widget", Namespaced: true},
		Verbs: verbs("delete get list")}
	// bindings cannot be deleted at all: skipped.
	bindings = rest.APIResource{Resource: rest.Resource{Version: "v1", Resource: "bindings", Kind: "Binding", Namespaced: true}, Verbs: verbs("create")}
	// nodes are not namespaced: skipped.
	nodes = rest.APIResource{Resource: rest.Nodes, Verbs: verbs("delete deletecollection list")}
	// blind can be deleted but not listed: delete collection, no check.
	blind = rest.APIResource{Resource: rest.Resource{Group: "example.com", Version: "v1", Resource: "blinds", Kind: "Blind", Namespaced: true},
		Verbs: verbs("delete deletecollection")}
)

func verbs(s string) []string { return strings.Fields(s) }

// fakeObject is one object of the fake apiserver.
type fakeObject struct {
	name       string
	finalizers []string
	// deleting: a delete was asked for but finalizers or a grace period
	// keep the object.
	deleting bool
	// grace and phase are a pod's terminationGracePeriodSeconds and
	// status.phase; a pod with a grace period stays after its delete
	// (like a pod bound to a node, whose kubelet has not confirmed yet).
	grace *int64
	phase api.PodPhase
	// sticky objects survive their deletion without any reason a
	// client can see.
	sticky bool
}

// fixture is the sample-controller test shape: the namespace loaded into
// the lister, a fake apiserver holding the namespace and its content that
// records every request, and the controller on a fake clock.
type fixture struct {
	t     *testing.T
	clock *clock.Fake
	// ns is the namespace as the apiserver holds it; nil: gone.
	ns *api.Namespace
	// cached is what the lister holds; nil: the same as ns.
	cached *api.Namespace
	// objects by collection path ("/api/v1/namespaces/ns/configmaps").
	objects map[string][]*fakeObject
	// resources is what discovery returns, with discoverErr.
	resources   []rest.APIResource
	discoverErr error
	// fail answers "VERB path" with a status, once per entry use when
	// failOnce is set for it.
	fail     map[string]*rest.Status
	failOnce map[string]bool
	// recreateAtGet, when > 0, makes the namespace another one (a new
	// UID) from that GET of it on, counting from 1.
	recreateAtGet int
	gets          int

	mu      sync.Mutex
	actions []string
	bodies  map[string][]byte // the last body per action
	rv      int
}

func newFixture(t *testing.T) *fixture {
	dt := api.NewTime(tDeleted)
	return &fixture{
		t: t, clock: clock.NewFake(t0),
		ns: &api.Namespace{
			ObjectMeta: api.ObjectMeta{Name: "ns", UID: "uid-1", ResourceVersion: "1", DeletionTimestamp: &dt},
			Spec:       api.NamespaceSpec{Finalizers: []string{api.FinalizerKubernetes}},
			Status:     api.NamespaceStatus{Phase: api.NamespaceTerminating},
		},
		objects:   map[string][]*fakeObject{},
		resources: []rest.APIResource{configMaps, podsRes, widgets, bindings, nodes, blind},
		fail:      map[string]*rest.Status{}, failOnce: map[string]bool{},
		bodies: map[string][]byte{}, rv: 1,
	}
}

// add puts objects of res into namespace ns.
func (f *fixture) add(res rest.Resource, objs ...*fakeObject) {
	p := res.Path("ns", "")
	f.objects[p] = append(f.objects[p], objs...)
}

func failure(code int32, reason, msg string) *rest.Status {
	return &rest.Status{TypeMeta: api.TypeMeta{Kind: "Status", APIVersion: "v1"}, Status: "Failure", Code: code, Reason: reason, Message: msg}
}

func forbidden(verb, resource string) *rest.Status {
	return failure(403, "Forbidden", resource+` is forbidden: User "system:serviceaccount:kube-system:namespace-controller" cannot `+
		verb+` resource "`+resource+`" in API group "" in the namespace "ns"`)
}

func (f *fixture) reply(w http.ResponseWriter, code int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(code)
	_ = json.NewEncoder(w).Encode(v)
}

// nsJSON renders the namespace as the apiserver would.
func (f *fixture) nsJSON() map[string]any {
	b, err := json.Marshal(f.ns)
	if err != nil {
		f.t.Fatal(err)
	}
	var m map[string]any
	_ = json.Unmarshal(b, &m)
	m["apiVersion"], m["kind"] = "v1", "Namespace"
	return m
}

// serve records "VERB path" and answers like kube-apiserver.
func (f *fixture) serve(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(r.Body)
	action := r.Method + " " + r.URL.Path
	f.mu.Lock()
	defer f.mu.Unlock()
	f.actions = append(f.actions, action)
	f.bodies[action] = body
	if st, ok := f.fail[action]; ok {
		if f.failOnce[action] {
			delete(f.fail, action)
		}
		f.reply(w, int(st.Code), st)
		return
	}
	const nsPath = "/api/v1/namespaces/ns"
	switch {
	case r.URL.Path != nsPath+"/status" && r.URL.Path != nsPath+"/finalize" &&
		(strings.HasPrefix(r.URL.Path, nsPath+"/") || strings.HasPrefix(r.URL.Path, "/apis/")):
		f.serveContent(w, r, body)
	case r.URL.Path == nsPath && r.Method == http.MethodGet:
		if f.ns == nil {
			f.reply(w, 404, failure(404, "NotFound", `namespaces "ns" not found`))
			return
		}
		f.gets++
		if f.recreateAtGet > 0 && f.gets >= f.recreateAtGet {
			f.ns.UID = "uid-2"
		}
		f.reply(w, 200, f.nsJSON())
	case r.Method == http.MethodPut && (r.URL.Path == nsPath+"/status" || r.URL.Path == nsPath+"/finalize"):
		var in api.Namespace
		if err := json.Unmarshal(body, &in); err != nil {
			f.reply(w, 400, failure(400, "BadRequest", err.Error()))
			return
		}
		if f.ns == nil {
			f.reply(w, 404, failure(404, "NotFound", `namespaces "ns" not found`))
			return
		}
		if in.ResourceVersion != f.ns.ResourceVersion {
			f.reply(w, 409, failure(409, "Conflict", `Operation cannot be fulfilled on namespaces "ns": the object has been modified`))
			return
		}
		f.rv++
		f.ns.ResourceVersion = strconv.Itoa(f.rv)
		if strings.HasSuffix(r.URL.Path, "/status") {
			f.ns.Status = in.Status
		} else {
			f.ns.Spec = in.Spec
		}
		f.reply(w, 200, f.nsJSON())
	default:
		f.reply(w, 404, failure(404, "NotFound", "no route for "+action))
	}
}

// serveContent answers list, delete-collection and delete of a
// namespace's objects.
func (f *fixture) serveContent(w http.ResponseWriter, r *http.Request, body []byte) {
	prefix, rel, _ := strings.Cut(r.URL.Path, "/namespaces/ns/")
	res, name, _ := strings.Cut(rel, "/")
	coll := prefix + "/namespaces/ns/" + res
	switch {
	case r.Method == http.MethodGet && name == "":
		var items []any
		for _, o := range f.objects[coll] {
			items = append(items, f.render(o, r.Header.Get("Accept")))
		}
		f.reply(w, 200, map[string]any{"kind": "List", "apiVersion": "v1", "metadata": map[string]any{"resourceVersion": "9"}, "items": items})
	case r.Method == http.MethodDelete:
		var opts rest.DeleteOptions
		_ = json.Unmarshal(body, &opts)
		if opts.PropagationPolicy != rest.PropagationBackground {
			f.reply(w, 400, failure(400, "BadRequest", "the test expects propagationPolicy Background"))
			return
		}
		var kept []*fakeObject
		found := false
		for _, o := range f.objects[coll] {
			if name != "" && o.name != name {
				kept = append(kept, o)
				continue
			}
			found = true
			if len(o.finalizers) > 0 || o.grace != nil && *o.grace > 0 || o.sticky {
				o.deleting = true
				kept = append(kept, o)
			}
		}
		f.objects[coll] = kept
		if name != "" && !found {
			f.reply(w, 404, failure(404, "NotFound", name+" not found"))
			return
		}
		f.reply(w, 200, map[string]any{"kind": "Status", "apiVersion": "v1", "status": "Success"})
	default:
		f.reply(w, 405, failure(405, "MethodNotAllowed", "the server does not allow this method on the requested resource"))
	}
}

// render is an object as a list item: metadata only when asked for.
func (f *fixture) render(o *fakeObject, accept string) map[string]any {
	meta := map[string]any{"name": o.name, "namespace": "ns"}
	if len(o.finalizers) > 0 {
		meta["finalizers"] = o.finalizers
	}
	if o.deleting {
		meta["deletionTimestamp"] = t0.Format(time.RFC3339)
	}
	m := map[string]any{"metadata": meta}
	if strings.Contains(accept, "as=PartialObjectMetadataList") {
		m["kind"], m["apiVersion"] = "PartialObjectMetadata", "meta.k8s.io/v1"
		return m
	}
	spec := map[string]any{"containers": []any{map[string]any{"name": "c", "image": "i"}}}
	if o.grace != nil {
		spec["terminationGracePeriodSeconds"] = *o.grace
	}
	m["spec"] = spec
	m["status"] = map[string]any{"phase": string(o.phase)}
	return m
}

// run loads the lister and syncs the namespace once, returning the result,
// the error and the requests made.
func (f *fixture) run() (ctrl.Result, error, []string) {
	f.t.Helper()
	srv := httptest.NewServer(http.HandlerFunc(f.serve))
	defer srv.Close()
	client, err := rest.NewClient(&rest.Config{Host: srv.URL, QPS: -1}, rest.WithRetryPolicy(rest.RetryPolicy{MaxAttempts: 1}))
	if err != nil {
		f.t.Fatal(err)
	}
	defer client.CloseIdleConnections()
	st := store.New(store.Options[*api.Namespace]{})
	cached := f.cached
	if cached == nil && f.ns != nil {
		c := *f.ns
		cached = &c
	}
	if cached != nil {
		st.Replace([]*api.Namespace{cached})
	}
	c := NewController(informer.NewLister(st.View(), "namespaces"), client, Config{
		Clock: f.clock, Logger: zerolog.Nop(),
		Discover: func(context.Context) ([]rest.APIResource, error) { return f.resources, f.discoverErr },
	})
	res, err := c.Sync(context.Background(), "ns")
	f.mu.Lock()
	defer f.mu.Unlock()
	return res, err, slices.Clone(f.actions)
}

// condition returns the namespace's condition of the type as
// "Status Reason: Message".
func (f *fixture) condition(typ string) string {
	if f.ns == nil {
		return "<namespace gone>"
	}
	for _, c := range f.ns.Status.Conditions {
		if c.Type == typ {
			return string(c.Status) + " " + c.Reason + ": " + c.Message
		}
	}
	return "<none>"
}

// has reports whether actions holds want.
func has(actions []string, want string) bool { return slices.Contains(actions, want) }

func grace(s int64) *int64 { return &s }
