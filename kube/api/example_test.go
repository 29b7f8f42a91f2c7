package api_test

import (
	"fmt"

	"github.com/kcmlab/kcm/kube/api"
)

// managedFields is cut from the bytes before anything is decoded.
func ExampleStripManagedFields() {
	pod := []byte(`{"kind":"Pod","metadata":{"name":"web-0","managedFields":[{"manager":"kubectl","fieldsV1":{"f:spec":{}}}],"uid":"u1"},"spec":{}}`)
	out, err := api.StripManagedFields(pod)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Printf("%s\n%d bytes saved\n", out, len(pod)-len(out))
	// Output:
	// {"kind":"Pod","metadata":{"name":"web-0","uid":"u1"},"spec":{}}
	// 65 bytes saved
}

// Edit returns a changed copy of a RawObject; fields it does not touch stay
// exactly as they were.
func ExampleRawObject_Edit() {
	w, err := api.DecodeRawObject([]byte(`{"apiVersion":"example.com/v1","kind":"Widget","metadata":{"name":"w1"},"spec":{"size":3,"id":9007199254740993}}`))
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

// A cache's typed objects keep no JSON, only what their struct does not
// model; Raw rebuilds the JSON as read, so a copy written back keeps it.
func ExampleCompact() {
	c := api.Compact[api.Pod]()
	pod, err := c.Decode([]byte(`{"kind":"Pod","apiVersion":"v1","metadata":{"name":"web-0"},` +
		`"spec":{"containers":[{"name":"web","image":"nginx","securityContext":{"runAsUser":1000}}]}}`))
	if err != nil {
		fmt.Println(err)
		return
	}
	cp, err := api.DeepCopy(pod)
	if err != nil {
		fmt.Println(err)
		return
	}
	cp.Spec.Containers[0].Image = "nginx:1.27" // Update merges this onto cp.Raw()
	fmt.Println(pod.Spec.Containers[0].Image)
	fmt.Printf("%s\n", cp.Raw())
	// Output:
	// nginx
	// {"apiVersion":"v1","kind":"Pod","metadata":{"name":"web-0"},"spec":{"containers":[{"image":"nginx","name":"web","securityContext":{"runAsUser":1000}}]}}
}
