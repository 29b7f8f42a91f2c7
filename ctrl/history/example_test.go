package history_test

import (
	"fmt"

	"github.com/kcmlab/kcm/ctrl/history"
	"github.com/kcmlab/kcm/kube/api"
	"github.com/kcmlab/kcm/kube/api/decode"
)

// A StatefulSet as the apiserver sends it: the pod's empty securityContext
// is not modelled by kcm's PodSpec, yet it is part of the patch.
const exampleSet = `{"apiVersion":"apps/v1","kind":"StatefulSet","metadata":{"name":"web","namespace":"default","uid":"u1"},
"spec":{"serviceName":"web","selector":{"matchLabels":{"app":"web"}},"template":{"metadata":{"labels":{"app":"web"}},
"spec":{"containers":[{"name":"nginx","image":"nginx:1.27"}],"securityContext":{}}}}}`

// The revision a StatefulSet's template is recorded as: the patch, and the
// name, which the collision count changes.
func Example() {
	set, err := decode.Typed[api.StatefulSet]().Decode([]byte(exampleSet))
	if err != nil {
		panic(err)
	}
	rev, err := history.NewStatefulSetRevision(set, history.NextRevision(nil), nil)
	if err != nil {
		panic(err)
	}
	fmt.Println(string(rev.Data.Raw))
	fmt.Println(rev.Name, rev.Labels[history.HashLabel], rev.Revision)
	one := int32(1)
	fmt.Println(history.RevisionName(set.Name, history.Hash(rev.Data.Raw, &one)))
	// Output:
	// {"spec":{"template":{"$patch":"replace","metadata":{"labels":{"app":"web"}},"spec":{"containers":[{"image":"nginx:1.27","name":"nginx"}],"securityContext":{}}}}}
	// web-7fc9466bc9 7fc9466bc9 1
	// web-5747d8996d
}
