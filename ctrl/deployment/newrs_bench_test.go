package deployment

import (
	"testing"

	"github.com/kcmlab/kcm/kube/api"
)

// BenchmarkNewReplicaSetBody: the body of a new ReplicaSet built from a
// cached Deployment, per object, for a Deployment read as JSON and the
// same Deployment read as protobuf (template emptyObjectsTemplate, with
// empty objects and fields kcm does not model): reading the template,
// hashing it and building the body (NewReplicaSetFor: the body
// createNewReplicaSet sends, as a RawObject).
func BenchmarkNewReplicaSetBody(b *testing.B) {
	for _, c := range []struct {
		name string
		d    *api.Deployment
	}{
		{"json", compactDecode[api.Deployment](b, deploymentJSON(emptyObjectsTemplate))},
		{"protobuf", protoDeployment(b, protoTemplate(b, protoOpts{}), nil)},
	} {
		b.Run(c.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if body, err := NewReplicaSetFor(c.d, 3, 2); err != nil || body == nil {
					b.Fatal(err)
				}
			}
		})
	}
}
