package bench

import (
	"bytes"
	"encoding/json"
	"fmt"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/serializer/protobuf"
	"k8s.io/apimachinery/pkg/runtime/serializer/streaming"
	"k8s.io/client-go/kubernetes/scheme"

	"github.com/kcmlab/kcm/internal/testing/podgen"
)

// kube/api/protowire's inputs (issues 13, 34): the bench
// pods in the encoding kube-apiserver serves to kube-controller-manager,
// produced by apimachinery's own serializers, so the bytes are exactly
// what a protobuf client reads.

// ProtoSerializer is kube-apiserver's protobuf serializer: objects and
// lists in the k8s envelope.
var ProtoSerializer = protobuf.NewSerializer(scheme.Scheme, scheme.Scheme)

// protoRaw is the serializer of watch events in a protobuf stream: no
// envelope, the stream's media type says what each frame is.
var protoRaw = protobuf.NewRawSerializer(scheme.Scheme, scheme.Scheme)

// PodgenPod returns podgen's pod i as client-go's v1.Pod.
func PodgenPod(i int) (*corev1.Pod, error) {
	p := &corev1.Pod{}
	if err := json.Unmarshal(podgen.Pod(i), p); err != nil {
		return nil, fmt.Errorf("bench: podgen pod %d: %w", i, err)
	}
	return p, nil
}

// EncodeProto writes obj as kube-apiserver does for
// application/vnd.kubernetes.protobuf: the k8s envelope around its
// message.
func EncodeProto(obj runtime.Object) ([]byte, error) {
	var b bytes.Buffer
	if err := ProtoSerializer.Encode(obj, &b); err != nil {
		return nil, fmt.Errorf("bench: protobuf encode: %w", err)
	}
	return b.Bytes(), nil
}

// PodgenProtoList returns podgen's pods 0..n-1 as one protobuf PodList
// (enveloped, resourceVersion rv) and as the JSON list podgen serves.
func PodgenProtoList(n int, rv string) (pb, js []byte, err error) {
	l := &corev1.PodList{TypeMeta: metav1.TypeMeta{APIVersion: "v1", Kind: "PodList"},
		ListMeta: metav1.ListMeta{ResourceVersion: rv}, Items: make([]corev1.Pod, n)}
	for i := range n {
		p, err := PodgenPod(i)
		if err != nil {
			return nil, nil, err
		}
		p.TypeMeta = metav1.TypeMeta{} // list items carry no type
		l.Items[i] = *p
	}
	pb, err = EncodeProto(l)
	if err != nil {
		return nil, nil, err
	}
	return pb, podgen.List(n, rv), nil
}

// EncodeProtoWatch writes events as kube-apiserver's protobuf watch stream
// does: each object enveloped by the ordinary serializer into
// object.raw, each metav1.WatchEvent by the raw serializer into a
// length-prefixed frame.
func EncodeProtoWatch(events ...metav1.WatchEvent) ([]byte, error) {
	var b bytes.Buffer
	enc := streaming.NewEncoder(protobuf.LengthDelimitedFramer.NewFrameWriter(&b), protoRaw)
	for i := range events {
		if err := enc.Encode(&events[i]); err != nil {
			return nil, fmt.Errorf("bench: protobuf watch event %d: %w", i, err)
		}
	}
	return b.Bytes(), nil
}
