package protowire_test

import (
	"errors"
	"reflect"
	"testing"

	"github.com/kcmlab/kcm/internal/testing/podgen"
	"github.com/kcmlab/kcm/kube/api"
	"github.com/kcmlab/kcm/kube/api/protowire"
)

// TestSplitRealList splits the PodList apimachinery wrote for podgen's
// pods 0..2 (core/v1 PodList: metadata 1, items 2; meta/v1 ListMeta:
// resourceVersion 2, continue 3, remainingItemCount 4), and each item's
// metadata reads as kcm's RawObject reads the same pod's JSON.
func TestSplitRealList(t *testing.T) {
	u, err := protowire.Unwrap(golden(t, "podlist.pb"))
	if err != nil {
		t.Fatal(err)
	}
	if string(u.Kind) != "PodList" || protowire.ItemKind(string(u.Kind)) != "Pod" {
		t.Fatalf("kind %q", u.Kind)
	}
	l, err := protowire.SplitList(u.Raw)
	if err != nil {
		t.Fatal(err)
	}
	if l.ResourceVersion != "4242" || l.Continue != "c2VjcmV0LWNvbnRpbnVl" || l.RemainingItemCount == nil || *l.RemainingItemCount != 997 {
		t.Errorf("ListMeta %+v", l.ListMeta)
	}
	if len(l.Items) != 3 {
		t.Fatalf("%d items, want 3", len(l.Items))
	}
	for i, item := range l.Items {
		if cap(item) != len(item) {
			t.Errorf("item %d: capacity %d beyond its length %d (an append would write into the next item)", i, cap(item), len(item))
		}
		o, err := protowire.DecodeMessage(api.TypeMeta{APIVersion: "v1", Kind: "Pod"}, item, protowire.Options{})
		if err != nil {
			t.Fatalf("item %d: %v", i, err)
		}
		want := rawMeta(t, podgen.Pod(i))
		if got, w := exported(o.ObjectMeta), exported(want.ObjectMeta); !reflect.DeepEqual(got, w) {
			t.Errorf("item %d metadata:\n got %+v\nwant %+v", i, got, w)
		}
	}
}

// TestSplitListRejects: broken lists are errors, whatever part breaks.
func TestSplitListRejects(t *testing.T) {
	for _, c := range []struct {
		name string
		in   string
		want error
	}{
		{"item cut short", "\x12\x05ab", protowire.ErrTruncated},
		{"metadata as a varint", "\x08\x01", protowire.ErrFieldType},
		{"remainingItemCount as a string", "\x0a\x03\x22\x01x", protowire.ErrFieldType},
		{"item as a varint", "\x10\x01", protowire.ErrFieldType},
	} {
		t.Run(c.name, func(t *testing.T) {
			if _, err := protowire.SplitList([]byte(c.in)); !errors.Is(err, c.want) {
				t.Errorf("got %v, want %v", err, c.want)
			}
		})
	}
}

// TestItemKind: list kinds end in "List" (PodList → Pod).
func TestItemKind(t *testing.T) {
	for in, want := range map[string]string{"PodList": "Pod", "ReplicaSetList": "ReplicaSet", "List": "List", "Pod": "Pod"} {
		if got := protowire.ItemKind(in); got != want {
			t.Errorf("ItemKind(%q) = %q, want %q", in, got, want)
		}
	}
}

// TestDecodeRealList: DecodeList gives each item of the real PodList as
// an Object of kind Pod, with the list's metadata.
func TestDecodeRealList(t *testing.T) {
	var names []string
	lm, err := protowire.DecodeList(golden(t, "podlist.pb"), protowire.Options{DropManagedFields: true}, func(o *protowire.Object) error {
		if o.Kind != "Pod" || o.APIVersion != "v1" {
			t.Errorf("item of type %s %s", o.APIVersion, o.Kind)
		}
		names = append(names, o.Name)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if lm.ResourceVersion != "4242" || len(names) != 3 || names[2] != rawMeta(t, podgen.Pod(2)).Name {
		t.Errorf("list at %q with items %v", lm.ResourceVersion, names)
	}
	stop := errors.New("stop")
	if _, err := protowire.DecodeList(golden(t, "podlist.pb"), protowire.Options{}, func(*protowire.Object) error { return stop }); err != stop {
		t.Errorf("fn's error: got %v", err)
	}
	if _, err := protowire.DecodeList([]byte(`{"kind":"PodList"}`), protowire.Options{}, nil); !errors.Is(err, protowire.ErrMagic) {
		t.Errorf("JSON body: %v, want ErrMagic", err)
	}
}
