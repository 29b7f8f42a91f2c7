package protowire_test

import (
	"bytes"
	"fmt"

	"github.com/kcmlab/kcm/kube/api/protowire"
)

// A LIST answered in protobuf: unwrap the envelope, split the PodList
// into items, and keep each pod as its protobuf message with its metadata
// read out and managedFields dropped.
func Example() {
	pod := func(name string) []byte {
		meta := protowire.AppendString(nil, 1, name)   // ObjectMeta.name = 1
		meta = protowire.AppendString(meta, 3, "prod") // namespace = 3
		entry := protowire.AppendString(protowire.AppendString(nil, 1, "app"), 2, "web")
		meta = protowire.AppendBytes(meta, 11, entry)                    // labels = 11
		meta = protowire.AppendBytes(meta, 17, []byte("managed fields")) // managedFields = 17
		msg := protowire.AppendBytes(nil, 1, meta)                       // Pod.metadata = 1
		return protowire.AppendBytes(msg, 2, []byte("spec"))             // Pod.spec = 2
	}
	listMeta := protowire.AppendString(nil, 2, "4242")  // ListMeta.resourceVersion = 2
	list := protowire.AppendBytes(nil, 1, listMeta)     // PodList.metadata = 1
	list = protowire.AppendBytes(list, 2, pod("web-a")) // PodList.items = 2
	list = protowire.AppendBytes(list, 2, pod("web-b"))
	body := protowire.Wrap(nil, "v1", "PodList", list) // what the apiserver sends

	u, err := protowire.Unwrap(body)
	if err != nil {
		fmt.Println(err)
		return
	}
	l, err := protowire.SplitList(u.Raw)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(string(u.Kind), "at resourceVersion", l.ResourceVersion)
	for _, item := range l.Items {
		o, err := protowire.DecodeMessage(protowireTypeMeta("v1", protowire.ItemKind(string(u.Kind))), item,
			protowire.Options{DropManagedFields: true})
		if err != nil {
			fmt.Println(err)
			return
		}
		fmt.Printf("%s %s app=%s: %d bytes kept of %d, managedFields kept: %v\n", o.Kind, o.Key(), o.Labels["app"],
			len(o.Message()), len(item), bytes.Contains(o.Message(), []byte("managed fields")))
	}
	// Output:
	// PodList at resourceVersion 4242
	// Pod prod/web-a app=web: 33 bytes kept of 50, managedFields kept: false
	// Pod prod/web-b app=web: 33 bytes kept of 50, managedFields kept: false
}

// A LIST read as it arrives (ReadList), and a failure's Status: what
// kube/rest does with a protobuf answer.
func ExampleReadList() {
	item := func(name string) []byte {
		return protowire.AppendBytes(nil, 1, protowire.AppendString(nil, 1, name)) // Pod.metadata.name
	}
	list := protowire.AppendBytes(nil, 1, protowire.AppendString(nil, 2, "77")) // ListMeta.resourceVersion
	list = protowire.AppendBytes(list, 2, item("web-a"))
	list = protowire.AppendBytes(list, 2, item("web-b"))
	body := protowire.Wrap(nil, "v1", "PodList", list)

	lm, err := protowire.ReadList(bytes.NewReader(body), 1<<20,
		func(apiVersion, kind string) error {
			fmt.Println("items are", apiVersion, protowire.ItemKind(kind))
			return nil
		},
		func(msg []byte) error { // valid only during the call
			o, err := protowire.DecodeMessage(protowire.TypeMetaOf(protowire.Unknown{}), msg, protowire.Options{})
			if err == nil {
				fmt.Println("item", o.Name)
			}
			return err
		})
	fmt.Println("resourceVersion", lm.ResourceVersion, err)

	failure := protowire.Wrap(nil, "v1", protowire.StatusKind, protowire.AppendStatus(nil,
		protowire.Status{Status: "Failure", Reason: "Expired", Message: "too old resource version", Code: 410}))
	u, _ := protowire.Unwrap(failure)
	s, err := protowire.DecodeStatus(u.Raw)
	fmt.Println(string(u.Kind), s.Code, s.Reason, err)
	// Output:
	// items are v1 Pod
	// item web-a
	// item web-b
	// resourceVersion 77 <nil>
	// Status 410 Expired <nil>
}
