package replicaset_test

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"slices"
	"sync"

	"github.com/kcmlab/kcm/ctrl/replicaset"
	"github.com/kcmlab/kcm/informer"
	"github.com/kcmlab/kcm/kube/api"
	"github.com/kcmlab/kcm/kube/rest"
	"github.com/kcmlab/kcm/store"
)

// printer records what the controller does: requests to a stand-in
// apiserver and the events it records.
type printer struct {
	mu    sync.Mutex
	lines []string
	n     int
}

func (p *printer) add(s string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.lines = append(p.lines, s)
}

func (p *printer) Eventf(_ api.ObjectReference, typ, reason, format string, args ...any) {
	p.add("event: " + typ + " " + reason + " " + fmt.Sprintf(format, args...))
}

func (p *printer) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(r.Body)
	var obj map[string]any
	_ = json.Unmarshal(body, &obj)
	w.Header().Set("Content-Type", "application/json")
	if r.Method == http.MethodPost { // a pod: the server names it
		p.mu.Lock()
		p.n++
		meta := obj["metadata"].(map[string]any)
		meta["name"] = fmt.Sprintf("%s%d", meta["generateName"], p.n)
		p.mu.Unlock()
		body, _ = json.Marshal(obj)
		p.add(fmt.Sprintf("%s %s generateName=%s", r.Method, r.URL.Path, meta["generateName"]))
	} else {
		st := obj["status"].(map[string]any)
		p.add(fmt.Sprintf("%s %s replicas=%v observedGeneration=%v", r.Method, r.URL.Path, st["replicas"], st["observedGeneration"]))
	}
	_, _ = w.Write(body)
}

// A new ReplicaSet of 3 and no pods yet: one sync creates 3 pods (slow
// start: a batch of 1, then of 2) and writes the status it saw.
func ExampleController_Sync() {
	p := &printer{}
	srv := httptest.NewServer(p)
	defer srv.Close()
	client, _ := rest.NewClient(&rest.Config{Host: srv.URL, QPS: -1})
	defer client.CloseIdleConnections()

	three := int32(3)
	rs := &api.ReplicaSet{
		ObjectMeta: api.ObjectMeta{Name: "web", Namespace: "ns", UID: "u1", Generation: 1},
		Spec: api.ReplicaSetSpec{Replicas: &three,
			Selector: &api.LabelSelector{MatchLabels: map[string]string{"app": "web"}},
			Template: api.PodTemplateSpec{ObjectMeta: api.ObjectMeta{Labels: map[string]string{"app": "web"}},
				Spec: api.PodSpec{Containers: []api.Container{{Name: "web", Image: "nginx"}}}}},
	}
	rsStore := store.New(store.Options[*api.ReplicaSet]{Indexers: store.BuiltinIndexers[*api.ReplicaSet]()})
	rsStore.Replace([]*api.ReplicaSet{rs})
	podStore := store.New(store.Options[*api.Pod]{Indexers: store.BuiltinIndexers[*api.Pod]()})
	c := replicaset.NewController(
		informer.ReplicaSetLister{Lister: informer.NewLister(rsStore.View(), "replicasets")},
		informer.PodLister{Lister: informer.NewLister(podStore.View(), "pods")},
		client, replicaset.Config{Recorder: p})

	_, err := c.Sync(context.Background(), "ns/web")
	slices.Sort(p.lines)
	for _, l := range p.lines {
		fmt.Println(l)
	}
	fmt.Println("error:", err)
	// Output:
	// POST /api/v1/namespaces/ns/pods generateName=web-
	// POST /api/v1/namespaces/ns/pods generateName=web-
	// POST /api/v1/namespaces/ns/pods generateName=web-
	// PUT /apis/apps/v1/namespaces/ns/replicasets/web/status replicas=0 observedGeneration=1
	// event: Normal SuccessfulCreate Created pod: web-1
	// event: Normal SuccessfulCreate Created pod: web-2
	// event: Normal SuccessfulCreate Created pod: web-3
	// error: <nil>
}
