package decode_test

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"testing"

	"github.com/kcmlab/kcm/internal/testing/podgen"
	"github.com/kcmlab/kcm/kube/api"
	"github.com/kcmlab/kcm/kube/api/decode"
	"github.com/kcmlab/kcm/kube/api/protowire"
)

// realPodProto is the message of the pod apimachinery wrote for podgen's
// pod 0 (kube/api/protowire/testdata/pod.pb: managedFields and all).
func realPodProto(t *testing.T) (api.TypeMeta, []byte) {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("..", "protowire", "testdata", "pod.pb"))
	if err != nil {
		t.Fatal(err)
	}
	u, err := protowire.Unwrap(b)
	if err != nil {
		t.Fatal(err)
	}
	return protowire.TypeMetaOf(u), u.Raw
}

// TestAsProto: which codecs read protobuf. kube/rest asks for protobuf
// only for these.
func TestAsProto(t *testing.T) {
	for name, c := range map[string]struct {
		ok   bool
		read func() bool
	}{
		"Wire":            {true, func() bool { _, ok := decode.AsProto(decode.Wire()); return ok }},
		"Stripping(Wire)": {true, func() bool { _, ok := decode.AsProto(decode.StrippingManagedFields(decode.Wire())); return ok }},
		"Raw":             {false, func() bool { _, ok := decode.AsProto(decode.Raw()); return ok }},
		"Stripping(Raw)":  {false, func() bool { _, ok := decode.AsProto(decode.StrippingManagedFields(decode.Raw())); return ok }},
		"Typed[Pod]":      {true, func() bool { _, ok := decode.AsProto(decode.Typed[api.Pod]()); return ok }},
		"Stripping(Compact[Pod])": {true, func() bool {
			_, ok := decode.AsProto(decode.StrippingManagedFields(decode.Compact[api.Pod]()))
			return ok
		}},
		"Typed[Deployment]": {true, func() bool { _, ok := decode.AsProto(decode.Typed[api.Deployment]()); return ok }},
		"Stripping(Compact[ReplicaSet])": {true, func() bool {
			_, ok := decode.AsProto(decode.StrippingManagedFields(decode.Compact[api.ReplicaSet]()))
			return ok
		}},
		"Typed[StatefulSet]": {false, func() bool { _, ok := decode.AsProto(decode.Typed[api.StatefulSet]()); return ok }},
	} {
		if got := c.read(); got != c.ok {
			t.Errorf("%s: AsProto %v, want %v", name, got, c.ok)
		}
	}
}

// TestWireJSONIsRaw: on JSON, Wire decodes exactly as Raw.
func TestWireJSONIsRaw(t *testing.T) {
	in := podgen.Pod(3)
	for name, pair := range map[string][2]decode.Codec[*api.RawObject]{
		"plain":     {decode.Wire(), decode.Raw()},
		"stripping": {decode.StrippingManagedFields(decode.Wire()), decode.StrippingManagedFields(decode.Raw())},
	} {
		w, err := pair[0].Decode(bytes.Clone(in))
		if err != nil {
			t.Fatal(err)
		}
		r, err := pair[1].Decode(bytes.Clone(in))
		if err != nil {
			t.Fatal(err)
		}
		if w.IsProto() || !bytes.Equal(w.Raw(), r.Raw()) || !reflect.DeepEqual(w.TypeMeta, r.TypeMeta) || w.Name != r.Name {
			t.Errorf("%s: Wire %+v, Raw %+v", name, w, r)
		}
		if !decode.ChecksWholeObject(pair[0]) {
			t.Errorf("%s: Wire does not check whole objects as Raw does", name)
		}
	}
}

// TestWireProto: Wire reads a pod's protobuf message into a RawObject
// holding the message, with the metadata kcm's JSON RawObject reads from
// the same pod's JSON; StrippingManagedFields cuts managedFields from the
// message it keeps. Its JSON is nowhere: Raw is nil, MarshalJSON, Map
// and Edit fail with ErrProtobuf.
func TestWireProto(t *testing.T) {
	tm, msg := realPodProto(t)
	js, err := decode.Raw().Decode(podgen.Pod(0))
	if err != nil {
		t.Fatal(err)
	}
	pd, _ := decode.AsProto(decode.Wire())
	o, err := pd.DecodeProto(tm, bytes.Clone(msg))
	if err != nil {
		t.Fatal(err)
	}
	if !o.IsProto() || !bytes.Equal(o.Proto(), msg) || o.Raw() != nil || o.TypeMeta != (api.TypeMeta{APIVersion: "v1", Kind: "Pod"}) {
		t.Fatalf("decoded %+v proto=%v", o.TypeMeta, o.IsProto())
	}
	if o.Name != js.Name || o.UID != js.UID || o.ResourceVersion != js.ResourceVersion ||
		!reflect.DeepEqual(o.Labels, js.Labels) || !reflect.DeepEqual(o.OwnerReferences, js.OwnerReferences) {
		t.Errorf("metadata %+v, JSON's %+v", o.ObjectMeta, js.ObjectMeta)
	}
	if orig, err := o.Original(); orig != nil || err != nil {
		t.Errorf("Original %q, %v", orig, err)
	}
	if _, err := o.MarshalJSON(); !errors.Is(err, api.ErrProtobuf) {
		t.Errorf("MarshalJSON: %v", err)
	}
	if _, err := o.Map(); !errors.Is(err, api.ErrProtobuf) {
		t.Errorf("Map: %v", err)
	}
	if _, err := o.Edit(func(map[string]any) error { return nil }); !errors.Is(err, api.ErrProtobuf) {
		t.Errorf("Edit: %v", err)
	}
	spd, _ := decode.AsProto(decode.StrippingManagedFields(decode.Wire()))
	s, err := spd.DecodeProto(tm, msg)
	if err != nil {
		t.Fatal(err)
	}
	cut, _ := protowire.StripManagedFields(msg)
	if !bytes.Equal(s.Proto(), cut) || len(cut) >= len(msg) || s.Name != o.Name {
		t.Errorf("stripped: %d bytes, want %d (from %d)", len(s.Proto()), len(cut), len(msg))
	}
	if _, err := pd.DecodeProto(tm, msg[:len(msg)/2]); !errors.Is(err, api.ErrDecode) {
		t.Errorf("half a pod: %v, want ErrDecode", err)
	}
}

// TestWireDeepCopyKeepsProto: DeepCopy of a protobuf RawObject is one
// still holding the message, with metadata maps of its own.
func TestWireDeepCopyKeepsProto(t *testing.T) {
	tm, msg := realPodProto(t)
	pd, _ := decode.AsProto(decode.Wire())
	o, err := pd.DecodeProto(tm, msg)
	if err != nil {
		t.Fatal(err)
	}
	c, err := api.DeepCopy(o)
	if err != nil {
		t.Fatal(err)
	}
	if !c.IsProto() || !bytes.Equal(c.Proto(), o.Proto()) || !reflect.DeepEqual(c.ObjectMeta.Labels, o.Labels) || c.Name != o.Name {
		t.Fatalf("copy %+v", c)
	}
	c.Labels["new"] = "x"
	c.OwnerReferences[0].Name = "changed"
	if _, ok := o.Labels["new"]; ok || o.OwnerReferences[0].Name == "changed" {
		t.Fatal("the copy shares its metadata with the original")
	}
}

// TestWireProtoFamilies: for a cache (StrippingManagedFields(WireFamilies())),
// the pods of one ReplicaSet are kept in their family as the JSON cache
// keeps them: all but the family's base as a delta against its message,
// which Proto rebuilds — equal to the message without managedFields —
// with the metadata a plain decode reads.
func TestWireProtoFamilies(t *testing.T) {
	b, err := os.ReadFile(filepath.Join("..", "protowire", "testdata", "podlist.pb"))
	if err != nil {
		t.Fatal(err)
	}
	u, err := protowire.Unwrap(b)
	if err != nil {
		t.Fatal(err)
	}
	l, err := protowire.SplitList(u.Raw)
	if err != nil {
		t.Fatal(err)
	}
	cache, _ := decode.AsProto(decode.StrippingManagedFields(decode.WireFamilies()))
	plain, _ := decode.AsProto(decode.Wire())
	tm := api.TypeMeta{APIVersion: "v1", Kind: "Pod"}
	var objs []*api.RawObject
	deltas := 0
	// Wire alone keeps each message whole.
	whole, _ := decode.AsProto(decode.StrippingManagedFields(decode.Wire()))
	for i, item := range l.Items {
		o, err := whole.DecodeProto(tm, item)
		if err != nil {
			t.Fatal(err)
		}
		if a, b := o.Proto(), o.Proto(); &a[0] != &b[0] {
			t.Errorf("Wire: pod %d kept as a delta", i)
		}
	}
	for i, item := range l.Items {
		o, err := cache.DecodeProto(tm, bytes.Clone(item))
		if err != nil {
			t.Fatal(err)
		}
		objs = append(objs, o)
		want, _ := protowire.StripManagedFields(item)
		p1, err := o.ProtoErr()
		if err != nil || !bytes.Equal(p1, want) || !o.IsProto() || o.Raw() != nil {
			t.Fatalf("pod %d: message differs from the stripped one (%v)", i, err)
		}
		if p2 := o.Proto(); &p1[0] != &p2[0] {
			deltas++ // rebuilt on each call: kept as a delta
		}
		p, err := plain.DecodeProto(tm, item)
		if err != nil {
			t.Fatal(err)
		}
		if o.Name != p.Name || o.UID != p.UID || o.ResourceVersion != p.ResourceVersion || o.Namespace != p.Namespace ||
			!reflect.DeepEqual(o.Labels, p.Labels) || !reflect.DeepEqual(o.OwnerReferences, p.OwnerReferences) {
			t.Errorf("pod %d: metadata %+v, plain decode %+v", i, o.ObjectMeta, p.ObjectMeta)
		}
		c, err := api.DeepCopy(o)
		if err != nil || !bytes.Equal(c.Proto(), want) {
			t.Errorf("pod %d: DeepCopy lost the message (%v)", i, err)
		}
	}
	if deltas < len(objs)-1 {
		t.Errorf("%d of %d siblings kept as deltas, want at least %d", deltas, len(objs), len(objs)-1)
	}
}
