package api_test

import (
	"fmt"

	"github.com/kcmlab/kcm/kube/api"
)

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
