package kube_test

import (
	"errors"
	"fmt"
	"strings"

	"github.com/kcmlab/kcm/kube"
)

// Request paths for built-in kinds and custom resources, namespaced or
// not, with subresources.
func ExampleResource_Path() {
	fmt.Println(kube.Pods.Path("default", "web-0"))
	fmt.Println(kube.Pods.Path("", ""))
	fmt.Println(kube.Deployments.Path("prod", "api", "scale"))
	fmt.Println(kube.Namespaces.Path("", "team-a", "finalize"))
	widgets := kube.Resource{Group: "example.com", Version: "v1", Resource: "widgets", Kind: "Widget", Namespaced: true}
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

// managedFields is cut from the bytes before anything is decoded.
func ExampleStripManagedFields() {
	pod := []byte(`{"kind":"Pod","metadata":{"name":"web-0","managedFields":[{"manager":"kubectl","fieldsV1":{"f:spec":{}}}],"uid":"u1"},"spec":{}}`)
	out, err := kube.StripManagedFields(pod)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Printf("%s\n%d bytes saved\n", out, len(pod)-len(out))
	// Output:
	// {"kind":"Pod","metadata":{"name":"web-0","uid":"u1"},"spec":{}}
	// 65 bytes saved
}

// A JSON merge patch (RFC 7386) from two versions of an object: changed
// keys, and null for removed ones.
func ExampleCreateMergePatch() {
	before := []byte(`{"metadata":{"labels":{"app":"web","tier":"fe"}},"spec":{"replicas":1}}`)
	after := []byte(`{"metadata":{"labels":{"app":"web"}},"spec":{"replicas":3}}`)
	patch, err := kube.CreateMergePatch(before, after)
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
	var err error = &kube.StatusError{Verb: "GET", Path: "/api/v1/namespaces/default/pods/web-0",
		Status: kube.Status{Code: 404, Reason: "NotFound", Message: `pods "web-0" not found`}}
	err = fmt.Errorf("sync default/web-0: %w", err)
	fmt.Println(kube.IsNotFound(err), errors.Is(err, kube.ErrNotFound), kube.IsConflict(err))
	fmt.Println(err)

	throttled := kube.StatusErrorFrom("GET", "/api/v1/pods", kube.Status{Code: 429, Details: &kube.StatusDetails{RetryAfterSeconds: 2}})
	d, ok := kube.RetryAfter(throttled)
	fmt.Println(kube.IsTooManyRequests(throttled), d, ok)

	expired := kube.StatusErrorFrom("WATCH", "/api/v1/pods", kube.Status{Code: 410, Reason: "Expired", Message: "too old resource version: 5 (10)"})
	fmt.Println(kube.IsGone(expired))
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
	meta, err := kube.DecodeList(body, kube.Typed[kube.ConfigMap](), func(cm *kube.ConfigMap) error {
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
	page := kube.ListOptions{LabelSelector: "app=web", Limit: 500}
	fmt.Println(page.Values().Encode())
	yes := true
	watchList := kube.ListOptions{SendInitialEvents: &yes, ResourceVersionMatch: "NotOlderThan", AllowWatchBookmarks: true}
	fmt.Println(watchList.Values().Encode())
	// Output:
	// labelSelector=app%3Dweb&limit=500
	// allowWatchBookmarks=true&resourceVersionMatch=NotOlderThan&sendInitialEvents=true
}

// Edit returns a changed copy of a RawObject; fields it does not touch stay
// exactly as they were.
func ExampleRawObject_Edit() {
	w, err := kube.DecodeRawObject([]byte(`{"apiVersion":"example.com/v1","kind":"Widget","metadata":{"name":"w1"},"spec":{"size":3,"id":9007199254740993}}`))
	if err != nil {
		fmt.Println(err)
		return
	}
	bigger, err := w.Edit(func(m map[string]any) error {
		m["spec"].(map[string]any)["size"] = 5
		return nil
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	size, _, _ := bigger.NestedField("spec", "size")
	fmt.Println(size)
	fmt.Printf("%s\n", bigger.Raw())
	// Output:
	// 5
	// {"apiVersion":"example.com/v1","kind":"Widget","metadata":{"name":"w1"},"spec":{"id":9007199254740993,"size":5}}
}
