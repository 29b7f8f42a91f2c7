package decode_test

import (
	"bytes"
	"testing"

	"github.com/kcmlab/kcm/internal/testing/podgen"
	"github.com/kcmlab/kcm/kube/api"
	"github.com/kcmlab/kcm/kube/api/decode"
	"github.com/kcmlab/kcm/kube/internal/jsonx"
)

// TestTypedKeepsTheApiserversJSON: Typed decodes a pod as the apiserver
// writes it (managedFields and all) into the typed struct, as a plain
// json-iterator decode does, and keeps the JSON for read-modify-write.
func TestTypedKeepsTheApiserversJSON(t *testing.T) {
	in := podgen.Pod(7)
	pod, err := decode.Typed[api.Pod]().Decode(bytes.Clone(in))
	if err != nil {
		t.Fatal(err)
	}
	var plain api.Pod
	if err := jsonx.Unmarshal(in, &plain); err != nil {
		t.Fatal(err)
	}
	if pod.Spec.NodeName == "" || pod.Spec.NodeName != plain.Spec.NodeName || pod.UID != plain.UID {
		t.Errorf("typed codec: node %q uid %q, want %q %q", pod.Spec.NodeName, pod.UID, plain.Spec.NodeName, plain.UID)
	}
	if !bytes.Equal(pod.Raw(), in) {
		t.Errorf("typed codec did not keep the JSON it decoded: Raw is %d bytes, not the %d decoded", len(pod.Raw()), len(in))
	}
}
