package namespace_test

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"time"

	"github.com/kcmlab/kcm/ctrl/namespace"
	"github.com/kcmlab/kcm/informer"
	"github.com/kcmlab/kcm/kube/api"
	"github.com/kcmlab/kcm/kube/rest"
	"github.com/kcmlab/kcm/store"
)

// apiserver is a stand-in that holds one terminating namespace, "team-a",
// with nothing left in it, and prints each request.
type apiserver struct {
	mu sync.Mutex
}

func (s *apiserver) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(r.Body)
	s.mu.Lock()
	defer s.mu.Unlock()
	w.Header().Set("Content-Type", "application/json")
	switch {
	case r.URL.Path == "/api/v1/namespaces/team-a" || r.Method == http.MethodPut:
		fmt.Println(r.Method, r.URL.Path)
		if r.Method == http.MethodPut {
			_, _ = w.Write(body)
			return
		}
		_, _ = io.WriteString(w, `{"apiVersion":"v1","kind":"Namespace","metadata":{"name":"team-a","uid":"u1",`+
			`"resourceVersion":"7","deletionTimestamp":"2025-06-01T12:00:00Z"},`+
			`"spec":{"finalizers":["kubernetes"]},"status":{"phase":"Terminating"}}`)
	case r.Method == http.MethodDelete:
		fmt.Println(r.Method, r.URL.Path)
		_, _ = io.WriteString(w, `{"kind":"Status","apiVersion":"v1","status":"Success"}`)
	default: // lists: the namespace is empty
		fmt.Println(r.Method, r.URL.Path)
		_, _ = io.WriteString(w, `{"kind":"List","apiVersion":"v1","metadata":{},"items":[]}`)
	}
}

// A namespace was deleted and its content is gone: one sync deletes what
// discovery lists (nothing is left), writes the five conditions, all
// False, and removes the "kubernetes" finalizer through /finalize.
func ExampleController_Sync() {
	srv := httptest.NewServer(&apiserver{})
	defer srv.Close()
	client, _ := rest.NewClient(&rest.Config{Host: srv.URL, QPS: -1})
	defer client.CloseIdleConnections()

	cache := store.New(store.Options[*api.Namespace]{})
	dt := api.NewTime(time.Date(2025, 6, 1, 12, 0, 0, 0, time.UTC))
	cache.Replace([]*api.Namespace{{ObjectMeta: api.ObjectMeta{Name: "team-a", DeletionTimestamp: &dt}}})
	discover := func(context.Context) ([]rest.APIResource, error) {
		return []rest.APIResource{{Resource: rest.ConfigMaps, Verbs: strings.Fields("delete deletecollection list")}}, nil
	}
	c := namespace.NewController(informer.NewLister(cache.View(), "namespaces"), client,
		namespace.Config{Discover: discover})
	res, err := c.Sync(context.Background(), "team-a")
	fmt.Println("requeue after:", res.RequeueAfter, "error:", err)
	// Output:
	// GET /api/v1/namespaces/team-a
	// DELETE /api/v1/namespaces/team-a/configmaps
	// GET /api/v1/namespaces/team-a/configmaps
	// PUT /api/v1/namespaces/team-a/status
	// PUT /api/v1/namespaces/team-a/finalize
	// requeue after: 0s error: <nil>
}
