package protocodec_test

import (
	"fmt"

	"github.com/kcmlab/kcm/kube/api"
	"github.com/kcmlab/kcm/kube/api/protocodec"
)

// A read-modify-write in protobuf: the message as read carries a field
// kcm's Pod does not model (here a made-up field 99 of the pod's
// message, standing for anything newer than kcm); MarshalMerge writes the
// caller's change and keeps it.
func Example() {
	pod := &api.Pod{
		ObjectMeta: api.ObjectMeta{Name: "web-0", Namespace: "default"},
		Spec:       api.PodSpec{Containers: []api.Container{{Name: "app", Image: "app:v1"}}},
	}
	msg, err := protocodec.Marshal(pod)
	if err != nil {
		panic(err)
	}
	orig := append(msg, 0x9a, 0x06, 0x03, 'n', 'e', 'w') // field 99, "new"

	var before api.Pod
	if err := protocodec.Unmarshal(orig, &before); err != nil {
		panic(err)
	}
	after := before
	after.Spec.Containers = []api.Container{before.Spec.Containers[0]}
	after.Spec.Containers[0].Image = "app:v2"

	out, err := protocodec.MarshalMerge(orig, &before, &after)
	if err != nil {
		panic(err)
	}
	var back api.Pod
	if err := protocodec.Unmarshal(out, &back); err != nil {
		panic(err)
	}
	same, _ := protocodec.MarshalMerge(orig, &before, &before)
	fmt.Println(back.Name, back.Spec.Containers[0].Image)
	fmt.Printf("field 99 kept: %q\n", out[len(out)-3:])
	fmt.Println("unchanged merge is the message as read:", string(same) == string(orig))
	// Output:
	// web-0 app:v2
	// field 99 kept: "new"
	// unchanged merge is the message as read: true
}
