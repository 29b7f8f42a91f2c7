package rest

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/kcmlab/kcm/kube/api"
	"github.com/kcmlab/kcm/kube/api/decode"
	"github.com/kcmlab/kcm/tap"
)

// While the view watches, every write is reported at the Write stage,
// named after the client's User-Agent: the verb (and subresource), the
// resource, the key and, from the server's answer, the resourceVersion
// and uid — the metadata that lets the view recognise the watch event the
// write causes. A write made in a sync's context carries the sync's
// number. A failed write shows the Status code and reason, never the
// server's message (which may quote the object). Reads are not reported.
func TestTapReportsWrites(t *testing.T) {
	srv := rcServer(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.Copy(io.Discard, r.Body)
		switch {
		case r.Method == http.MethodPost && strings.HasSuffix(r.URL.Path, "/pods"):
			_, _ = io.WriteString(w, `{"kind":"Pod","apiVersion":"v1","metadata":{"namespace":"ns","name":"web-x7k2q","resourceVersion":"101","uid":"u1"}}`)
		case r.Method == http.MethodPut:
			w.WriteHeader(http.StatusConflict)
			_, _ = io.WriteString(w, `{"kind":"Status","status":"Failure","reason":"Conflict","code":409,"message":"secret-ish message about spec.password"}`)
		case r.Method == http.MethodPatch:
			_, _ = io.WriteString(w, `{"kind":"Pod","apiVersion":"v1","metadata":{"namespace":"ns","name":"a","resourceVersion":"103","uid":"u2"}}`)
		case r.Method == http.MethodDelete:
			_, _ = io.WriteString(w, `{"kind":"Status","status":"Success"}`)
		default:
			_, _ = io.WriteString(w, `{"kind":"Pod","apiVersion":"v1","metadata":{"namespace":"ns","name":"a","resourceVersion":"100"}}`)
		}
	}))
	var log tap.Log
	tp := tap.New(&log, nil)
	base := rcClient(t, srv.URL, nil, WithTap(tp))
	c := base.WithOptions("kcm/v0 (replicaset-controller)", -1, 0)
	pods := NewResources(c, Pods, decode.Typed[api.Pod]()).InNamespace("ns")
	ctx := context.Background()
	if _, err := pods.Create(ctx, &api.Pod{ObjectMeta: api.ObjectMeta{Name: "off"}}); err != nil {
		t.Fatal(err)
	}
	tp.SetOn(true)
	synced := tap.WithSync(ctx, tap.SyncRef{Controller: "replicaset-controller", Key: "ns/web", Seq: 7})
	if _, err := pods.Create(synced, &api.Pod{ObjectMeta: api.ObjectMeta{GenerateName: "web-"}}); err != nil {
		t.Fatal(err)
	}
	if _, err := pods.Get(ctx, "a"); err != nil {
		t.Fatal(err)
	}
	if _, err := pods.UpdateStatus(ctx, &api.Pod{ObjectMeta: api.ObjectMeta{Namespace: "ns", Name: "a", ResourceVersion: "100"}}); err == nil {
		t.Fatal("the PUT should have failed with a Conflict")
	}
	if _, err := pods.Patch(ctx, "a", MergePatch, []byte(`{}`), PatchOptions{}); err != nil {
		t.Fatal(err)
	}
	if err := NewResources(base, ReplicaSets, decode.Raw()).InNamespace("ns").Delete(ctx, "rs", DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, e := range log.Matching(tap.Write, nil) {
		got = append(got, fmt.Sprintf("%s: %s %s %s@%s %s seq=%d err=%q", e.Source, e.Op, e.Resource, e.Key, e.RV, e.UID, e.Sync.Seq, e.Err))
	}
	want := []string{
		`kcm/v0 (replicaset-controller): POST pods ns/web-x7k2q@101 u1 seq=7 err=""`,
		`kcm/v0 (replicaset-controller): PUT status pods ns/a@  seq=0 err="409 Conflict"`,
		`kcm/v0 (replicaset-controller): PATCH pods ns/a@103 u2 seq=0 err=""`,
		DefaultUserAgent + `: DELETE replicasets.apps ns/rs@  seq=0 err=""`,
	}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Fatalf("write events\n%q\nwant\n%q", got, want)
	}
}

func TestRequestName(t *testing.T) {
	if got := requestName(&api.ObjectMeta{GenerateName: "web-"}); got != "web-*" {
		t.Errorf("generateName: %q", got)
	}
	if got := requestName(&api.ObjectMeta{Name: "a", GenerateName: "web-"}); got != "a" {
		t.Errorf("name wins: %q", got)
	}
}
