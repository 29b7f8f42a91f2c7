package rest

import (
	"context"
	"errors"
	"io"
	"net/http"
	"testing"
)

// TestServerPreferredResources: core v1 plus each group's preferred version
// (never another version of the group), verbs kept, subresources dropped; a
// group version that fails is named in the error while the rest is returned,
// as client-go's ServerPreferredResources does with ErrGroupDiscoveryFailed.
func TestServerPreferredResources(t *testing.T) {
	rcNoLeaks(t)
	mux := http.NewServeMux()
	mux.HandleFunc("/api/v1", func(w http.ResponseWriter, r *http.Request) {
		io.WriteString(w, `{"groupVersion":"v1","resources":[`+
			`{"name":"pods","namespaced":true,"kind":"Pod","verbs":["create","delete","deletecollection","get","list","watch"]},`+
			`{"name":"pods/status","namespaced":true,"kind":"Pod","verbs":["get","patch"]},`+
			`{"name":"bindings","namespaced":true,"kind":"Binding","verbs":["create"]}]}`)
	})
	mux.HandleFunc("/apis", func(w http.ResponseWriter, r *http.Request) {
		io.WriteString(w, `{"kind":"APIGroupList","groups":[`+
			`{"name":"apps","versions":[{"groupVersion":"apps/v1"},{"groupVersion":"apps/v1beta1"}],"preferredVersion":{"groupVersion":"apps/v1"}},`+
			`{"name":"metrics.k8s.io","preferredVersion":{"groupVersion":"metrics.k8s.io/v1beta1"}}]}`)
	})
	mux.HandleFunc("/apis/apps/v1", func(w http.ResponseWriter, r *http.Request) {
		io.WriteString(w, `{"groupVersion":"apps/v1","resources":[{"name":"deployments","namespaced":true,"kind":"Deployment","verbs":["list","watch","delete"]}]}`)
	})
	mux.HandleFunc("/apis/apps/v1beta1", func(w http.ResponseWriter, r *http.Request) {
		t.Error("a version that is not preferred was read")
	})
	mux.HandleFunc("/apis/metrics.k8s.io/v1beta1", func(w http.ResponseWriter, r *http.Request) {
		http.Error(w, `{"kind":"Status","code":503,"message":"service unavailable"}`, http.StatusServiceUnavailable)
	})
	c := rcClient(t, rcServer(t, mux).URL, nil, WithRetryPolicy(RetryPolicy{MaxAttempts: 1}))
	got, err := c.ServerPreferredResources(context.Background())
	var gerr *GroupDiscoveryError
	if !errors.Is(err, ErrGroupDiscovery) || !errors.As(err, &gerr) || len(gerr.Groups) != 1 || gerr.Groups["metrics.k8s.io/v1beta1"] == nil {
		t.Fatalf("err = %v, want the metrics group named", err)
	}
	var names []string
	for _, r := range got {
		names = append(names, r.String())
	}
	if want := "[pods.v1 bindings.v1 deployments.v1.apps]"; fmtList(names) != want {
		t.Fatalf("resources = %s, want %s", fmtList(names), want)
	}
	if !got[0].Supports("list", "deletecollection") || got[1].Supports("list") || !got[2].Supports("list", "watch", "delete") {
		t.Fatalf("verbs lost: %+v", got)
	}
}

func fmtList(s []string) string {
	out := "["
	for i, x := range s {
		if i > 0 {
			out += " "
		}
		out += x
	}
	return out + "]"
}
