package rest

import (
	"errors"
	"testing"

	"github.com/kcmlab/kcm/kube/api"
)

// TestCheckKind: a watch's event of another kind than its resource's is
// a decode error (client-go's reflector compares the event's type with
// the one it expects too: watchHandler's "expected type" check); a
// metadata-only watch takes PartialObjectMetadata and whole objects;
// ERROR events, objects without a kind and resources without one pass.
func TestCheckKind(t *testing.T) {
	obj := func(kind string) *api.RawObject {
		o := &api.RawObject{}
		o.Kind, o.Name, o.Namespace = kind, "x", "ns"
		return o
	}
	pods := expectedKinds{kind: "Pod"}
	for _, tc := range []struct {
		name  string
		k     expectedKinds
		ev    WatchEvent[*api.RawObject]
		wrong bool
	}{
		{"same kind", pods, WatchEvent[*api.RawObject]{Type: Added, Object: obj("Pod")}, false},
		{"bookmark", pods, WatchEvent[*api.RawObject]{Type: Bookmark, Object: obj("Pod")}, false},
		{"another kind", pods, WatchEvent[*api.RawObject]{Type: Added, Object: obj("ConfigMap")}, true},
		{"another kind deleted", pods, WatchEvent[*api.RawObject]{Type: Deleted, Object: obj("Secret")}, true},
		{"a Status as an object", pods, WatchEvent[*api.RawObject]{Type: Modified, Object: obj("Status")}, true},
		{"no kind on the object", pods, WatchEvent[*api.RawObject]{Type: Added, Object: obj("")}, false},
		{"no object", pods, WatchEvent[*api.RawObject]{Type: Added}, false},
		{"error event", pods, WatchEvent[*api.RawObject]{Type: Error, Object: obj("Status")}, false},
		{"resource without a kind", expectedKinds{}, WatchEvent[*api.RawObject]{Type: Added, Object: obj("Anything")}, false},
		{"metadata-only: partial", expectedKinds{kind: "Pod", metaOnly: true}, WatchEvent[*api.RawObject]{Type: Added, Object: obj("PartialObjectMetadata")}, false},
		{"metadata-only: whole", expectedKinds{kind: "Pod", metaOnly: true}, WatchEvent[*api.RawObject]{Type: Added, Object: obj("Pod")}, false},
		{"metadata-only: another kind", expectedKinds{kind: "Pod", metaOnly: true}, WatchEvent[*api.RawObject]{Type: Added, Object: obj("ConfigMap")}, true},
		{"partial on a whole watch", pods, WatchEvent[*api.RawObject]{Type: Added, Object: obj("PartialObjectMetadata")}, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := checkKind(tc.k, tc.ev)
			if tc.wrong != (err != nil) || err != nil && !errors.Is(err, api.ErrDecode) {
				t.Errorf("checkKind = %v; want an ErrDecode: %v", err, tc.wrong)
			}
		})
	}
}
