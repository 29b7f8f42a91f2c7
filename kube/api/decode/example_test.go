package decode_test

import (
	"fmt"

	"github.com/kcmlab/kcm/kube/api"
	"github.com/kcmlab/kcm/kube/api/decode"
)

// managedFields is cut from the bytes before anything is decoded.
func ExampleStripManagedFields() {
	pod := []byte(`{"kind":"Pod","metadata":{"name":"web-0","managedFields":[{"manager":"kubectl","fieldsV1":{"f:spec":{}}}],"uid":"u1"},"spec":{}}`)
	out, err := decode.StripManagedFields(pod)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Printf("%s\n%d bytes saved\n", out, len(pod)-len(out))
	// Output:
	// {"kind":"Pod","metadata":{"name":"web-0","uid":"u1"},"spec":{}}
	// 65 bytes saved
}

// A cache's typed objects keep no JSON, only what their struct does not
// model; Raw rebuilds the JSON as read, so a copy written back keeps it.
func ExampleCompact() {
	c := decode.Compact[api.Pod]()
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
