// Package fidelity checks kcm's promise that what a user wrote survives:
// a pod template copied into a child object, and an object written back
// after a read-modify-write, is equal to the input as Kubernetes compares
// objects — equality.Semantic.DeepEqual on k8s.io/api types, where a nil
// and an empty slice or map are equal but a nil pointer and a pointer to
// an empty struct are not. It lives in the bench module because it needs
// k8s.io/api as the judge, and kcm's own module may not import it.
//
// # Where it sits
//
//	Generator ──k8s.io/api Deployment──▶ JSON as the apiserver writes it (+ members no one models)
//	   │                                     │
//	   │                      kcm: Compact decode (the informer cache's codec)
//	   │                        ├─ deployment.NewReplicaSetFor ─▶ ReplicaSet JSON ─▶ replicaset.NewPodFor ─▶ pod JSON
//	   │                        └─ DeepCopy, change, rest Update / UpdateStatus ─▶ PUT body
//	   └────────── compared with ◀── each output decoded with k8s.io/api (and as JSON, member for member)
//
//	Generator ──k8s.io/api Deployment──▶ generated Marshal: the protobuf message the apiserver serves
//	   │                      kcm: Compact decode of the message (a protobuf client's cache)
//	   │                        └─ deployment.NewReplicaSetFor ─▶ ReplicaSet message ─▶ replicaset.NewPodFor ─▶ pod message
//	   └────────── compared with ◀── each output decoded with the generated Unmarshal (and byte for byte)
//
// The generator fills k8s.io/api types at random (sigs.k8s.io/randfill),
// then empties some of what it filled: pointers to empty structs
// ("securityContext": {}), empty slices and maps, explicit zero values
// behind pointers. The JSON is encoded from the Go value, as the apiserver
// encodes what it serves, and gets members that no Go type models at
// random places, as a newer apiserver would send.
//
// # Guarantees checked
//
//   - The ReplicaSet kcm creates has the Deployment's template: its Go
//     value is semantically equal (the pod-template-hash label aside) and
//     its JSON is the Deployment's member for member.
//   - A pod kcm creates from that ReplicaSet has its template's spec and
//     its labels, annotations and finalizers.
//   - kcm's template comparison (deployment.EqualIgnoreHash) says "equal"
//     exactly when Kubernetes' semantic equality does.
//   - The same on protobuf (proto.go): the ReplicaSet made from a
//     Deployment read as protobuf is a message whose template is
//     semantically the Deployment's and, byte for byte, the generated
//     Marshal of the Deployment's template with the hash label added; its
//     pod's spec is the template's spec, semantically and byte for byte;
//     deployment.EqualIgnoreHashProto on the generated messages says
//     "equal" exactly when semantic equality does.
//   - A typed Update or UpdateStatus of a cached Deployment or ReplicaSet
//     sends the object with the caller's change and nothing else changed.
//
// # client-go / Kubernetes names
//
// The judge is k8s.io/apimachinery's equality.Semantic; the generator
// plays the part of the fuzzers of Kubernetes' round-trip tests
// (k8s.io/apimachinery/pkg/api/apitesting/fuzzer), with its own fill
// functions.
package fidelity
