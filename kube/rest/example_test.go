package rest_test

import (
	"errors"
	"fmt"
	"strings"

	"github.com/kcmlab/kcm/kube/api"
	"github.com/kcmlab/kcm/kube/api/decode"
	"github.com/kcmlab/kcm/kube/rest"
)

// Request paths for built-in kinds and custom resources, namespaced or
// not, with subresources.
func ExampleResource_Path() {
	fmt.Println(rest.Pods.Path("default", "web-0"))
	fmt.Println(rest.Pods.Path("", ""))
	fmt.Println(rest.Deployments.Path("prod", "api", "scale"))
	fmt.Println(rest.Namespaces.Path("", "team-a", "finalize"))
	widgets := rest.Resource{Group: "example.com", Version: "v1", Resource: "widgets", Kind: "Widget", Namespaced: true}
	fmt.Println(widgets.Path("team-a", "w1", "status"))
	fmt.Println(widgets)
	// Output:
	// /api/v1/namespaces/default/pods/web-0
	// /api/v1/pods
	// /apis/apps/v1/namespaces/prod/deployments/api/scale
	// /api/v1/namespaces/team-a/finalize
	// /apis/example.com/v1/namespaces/team-a/widgets/w1/status
	// widgets.v1.example.com
}

// A JSON merge patch (RFC 7386) from two versions of an object: changed
// keys, and null for removed ones.
func ExampleCreateMergePatch() {
	before := []byte(`{"metadata":{"labels":{"app":"web","tier":"fe"}},"spec":{"replicas":1}}`)
	after := []byte(`{"metadata":{"labels":{"app":"web"}},"spec":{"replicas":3}}`)
	patch, err := rest.CreateMergePatch(before, after)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Printf("%s\n", patch)
	// Output:
	// {"metadata":{"labels":{"tier":null}},"spec":{"replicas":3}}
}

// Server failures match the package's predicates and sentinel errors, also
// when wrapped.
func ExampleIsNotFound() {
	var err error = &rest.StatusError{Verb: "GET", Path: "/api/v1/namespaces/default/pods/web-0",
		Status: rest.Status{Code: 404, Reason: "NotFound", Message: `pods "web-0" not found`}}
	err = fmt.Errorf("sync default/web-0: %w", err)
	fmt.Println(rest.IsNotFound(err), errors.Is(err, rest.ErrNotFound), rest.IsConflict(err))
	fmt.Println(err)

	throttled := rest.StatusErrorFrom("GET", "/api/v1/pods", rest.Status{Code: 429, Details: &rest.StatusDetails{RetryAfterSeconds: 2}})
	d, ok := rest.RetryAfter(throttled)
	fmt.Println(rest.IsTooManyRequests(throttled), d, ok)

	expired := rest.StatusErrorFrom("WATCH", "/api/v1/pods", rest.Status{Code: 410, Reason: "Expired", Message: "too old resource version: 5 (10)"})
	fmt.Println(rest.IsGone(expired))
	// Output:
	// true true false
	// sync default/web-0: GET /api/v1/namespaces/default/pods/web-0: 404 NotFound: pods "web-0" not found
	// true 2s true
	// true
}

// A list is decoded one item at a time, in order.
func ExampleDecodeList() {
	body := strings.NewReader(`{"kind":"ConfigMapList","metadata":{"resourceVersion":"42"},` +
		`"items":[{"metadata":{"name":"a"}},{"metadata":{"name":"b"}}]}`)
	meta, err := rest.DecodeList(body, decode.Typed[api.ConfigMap](), func(cm *api.ConfigMap) error {
		fmt.Println("item", cm.Name)
		return nil
	})
	fmt.Println("resourceVersion", meta.ResourceVersion, err)
	// Output:
	// item a
	// item b
	// resourceVersion 42 <nil>
}

// The query of a paginated list and of a WatchList.
func ExampleListOptions_Values() {
	page := rest.ListOptions{LabelSelector: "app=web", Limit: 500}
	fmt.Println(page.Values().Encode())
	yes := true
	watchList := rest.ListOptions{SendInitialEvents: &yes, ResourceVersionMatch: "NotOlderThan", AllowWatchBookmarks: true}
	fmt.Println(watchList.Values().Encode())
	// Output:
	// labelSelector=app%3Dweb&limit=500
	// allowWatchBookmarks=true&resourceVersionMatch=NotOlderThan&sendInitialEvents=true
}
