package jsonx_test

import (
	"fmt"

	"github.com/kcmlab/kcm/kube/internal/jsonx"
)

// Members finds each key and the byte span of its value without decoding
// anything: the spans point into the input.
func ExampleMembers() {
	obj := []byte(`{"kind":"Pod", "metadata":{"name":"web-0"},"spec":{"containers":[{"name":"a\"b"}]}}`)
	ms, err := jsonx.Members(obj, 0)
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, m := range ms {
		fmt.Printf("%s = %s\n", obj[m.KeyStart:m.KeyEnd], obj[m.ValStart:m.End])
	}
	// Output:
	// kind = "Pod"
	// metadata = {"name":"web-0"}
	// spec = {"containers":[{"name":"a\"b"}]}
}
