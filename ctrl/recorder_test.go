package ctrl

import (
	"testing"

	"github.com/kcmlab/kcm/kube/api"
)

// TestNopRecorder: the recorder of a controller built without one takes
// every event and writes nothing (it has no broadcaster to write to).
func TestNopRecorder(t *testing.T) {
	var r EventRecorder = NopRecorder{}
	r.Eventf(api.ObjectReference{Kind: "ReplicaSet", Namespace: "ns", Name: "web"}, api.EventTypeWarning, ReasonFailedCreate, "Error creating: %s", "quota")
}
