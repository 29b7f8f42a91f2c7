package protowire_test

import (
	"bytes"
	"errors"
	"fmt"
	"reflect"
	"testing"
	"time"

	"github.com/kcmlab/kcm/internal/testing/podgen"
	"github.com/kcmlab/kcm/kube/api"
	"github.com/kcmlab/kcm/kube/api/protowire"
)

// pw builds protobuf messages for the tables below.
type pw []byte

func (b pw) str(num int32, s string) pw  { return pw(protowire.AppendString(b, num, s)) }
func (b pw) msg(num int32, m pw) pw      { return pw(protowire.AppendBytes(b, num, m)) }
func (b pw) uint(num int32, v uint64) pw { return pw(protowire.AppendUint(b, num, v)) }

// object is an object message whose metadata (field 1) is meta.
func object(meta pw) []byte { return pw(nil).msg(1, meta).msg(2, pw("spec")).msg(3, pw("status")) }

func ptr[T any](v T) *T { return &v }

// TestScanObjectMeta checks each ObjectMeta field against its number in
// k8s.io/apimachinery/pkg/apis/meta/v1/generated.proto (message
// ObjectMeta, OwnerReference, Time) and the protobuf rules for fields
// seen twice.
func TestScanObjectMeta(t *testing.T) {
	owner := pw(nil).str(1, "ReplicaSet").str(3, "web-1").str(4, "uid-rs").str(5, "apps/v1").uint(6, 1).uint(7, 1)
	created := time.Date(2025, 3, 4, 5, 6, 7, 0, time.UTC)
	for _, c := range []struct {
		name string
		meta pw
		want api.ObjectMeta
	}{
		{"name 1, generateName 2, namespace 3, uid 5, resourceVersion 6",
			pw(nil).str(1, "web-1-x").str(2, "web-1-").str(3, "prod").str(5, "u-1").str(6, "42"),
			api.ObjectMeta{Name: "web-1-x", GenerateName: "web-1-", Namespace: "prod", UID: "u-1", ResourceVersion: "42"}},
		{"selfLink 4 is not modelled", pw(nil).str(4, "/api/v1/x").str(1, "a"), api.ObjectMeta{Name: "a"}},
		{"generation 7 (int64)", pw(nil).uint(7, 3), api.ObjectMeta{Generation: 3}},
		{"creationTimestamp 8: Time{seconds 1}, nanos 2 dropped as apimachinery does",
			pw(nil).msg(8, pw(nil).uint(1, uint64(created.Unix())).uint(2, 500)),
			api.ObjectMeta{CreationTimestamp: api.Time{Time: created}}},
		{"creationTimestamp 8 empty: the zero time", pw(nil).msg(8, nil), api.ObjectMeta{}},
		{"deletionTimestamp 9, deletionGracePeriodSeconds 10",
			pw(nil).msg(9, pw(nil).uint(1, uint64(created.Unix()))).uint(10, 30),
			api.ObjectMeta{DeletionTimestamp: &api.Time{Time: created}, DeletionGracePeriodSeconds: ptr[int64](30)}},
		{"labels 11, annotations 12: map entries {key 1, value 2}",
			pw(nil).msg(11, pw(nil).str(1, "app").str(2, "web")).msg(11, pw(nil).str(1, "tier").str(2, "")).msg(12, pw(nil).str(1, "a").str(2, "b")),
			api.ObjectMeta{Labels: map[string]string{"app": "web", "tier": ""}, Annotations: map[string]string{"a": "b"}}},
		{"a map entry without a value is the empty string; a repeated key, the last wins",
			pw(nil).msg(11, pw(nil).str(1, "k")).msg(12, pw(nil).str(1, "k").str(2, "1")).msg(12, pw(nil).str(1, "k").str(2, "2")),
			api.ObjectMeta{Labels: map[string]string{"k": ""}, Annotations: map[string]string{"k": "2"}}},
		{"ownerReferences 13: kind 1, name 3, uid 4, apiVersion 5, controller 6, blockOwnerDeletion 7",
			pw(nil).msg(13, owner).msg(13, pw(nil).str(1, "Node").str(3, "n").uint(6, 0)),
			api.ObjectMeta{OwnerReferences: []api.OwnerReference{
				{APIVersion: "apps/v1", Kind: "ReplicaSet", Name: "web-1", UID: "uid-rs", Controller: ptr(true), BlockOwnerDeletion: ptr(true)},
				{Kind: "Node", Name: "n", Controller: ptr(false)}}}},
		{"finalizers 14 (repeated)", pw(nil).str(14, "a").str(14, "b"), api.ObjectMeta{Finalizers: []string{"a", "b"}}},
		{"managedFields 17 and unknown fields are stepped over",
			pw(nil).msg(17, pw(nil).str(1, "kcm")).uint(99, 7).str(1, "n").uint(1000, 1),
			api.ObjectMeta{Name: "n"}},
		{"a scalar seen twice: the last wins", pw(nil).str(1, "first").str(1, "second"), api.ObjectMeta{Name: "second"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			for _, drop := range []bool{false, true} {
				o, err := protowire.DecodeMessage(api.TypeMeta{}, object(c.meta), protowire.Options{DropManagedFields: drop})
				if err != nil {
					t.Fatal(err)
				}
				if got, want := exported(o.ObjectMeta), exported(c.want); !reflect.DeepEqual(got, want) {
					t.Errorf("drop=%v:\n got %+v\nwant %+v", drop, got, want)
				}
			}
			var m api.ObjectMeta
			if err := protowire.ScanMeta(object(c.meta), &m); err != nil {
				t.Fatal(err)
			}
			if got, want := exported(m), exported(c.want); !reflect.DeepEqual(got, want) {
				t.Errorf("ScanMeta:\n got %+v\nwant %+v", got, want)
			}
		})
	}
}

// TestMetadataSeenTwiceMerges: protobuf merges an embedded message that
// appears twice (maps add entries, repeated fields append, scalars are
// replaced), as gogo's generated Unmarshal does for Pod.metadata.
func TestMetadataSeenTwiceMerges(t *testing.T) {
	msg := pw(nil).msg(1, pw(nil).str(1, "a").msg(11, pw(nil).str(1, "x").str(2, "1")).str(14, "f1")).
		msg(2, pw("spec")).
		msg(1, pw(nil).str(3, "ns").msg(11, pw(nil).str(1, "y").str(2, "2")).str(14, "f2").msg(17, pw("mf")))
	want := api.ObjectMeta{Name: "a", Namespace: "ns", Labels: map[string]string{"x": "1", "y": "2"}, Finalizers: []string{"f1", "f2"}}
	o, err := protowire.DecodeMessage(api.TypeMeta{}, msg, protowire.Options{DropManagedFields: true})
	if err != nil {
		t.Fatal(err)
	}
	if got := exported(o.ObjectMeta); !reflect.DeepEqual(got, exported(want)) {
		t.Errorf("got %+v\nwant %+v", got, exported(want))
	}
}

// TestScanRejectsWrongTypes: a modelled field with the wrong wire type is
// an error wrapping ErrFieldType, never a silent zero.
func TestScanRejectsWrongTypes(t *testing.T) {
	for _, c := range []struct {
		name string
		msg  []byte
		want error
	}{
		{"metadata as a varint", pw(nil).uint(1, 1), protowire.ErrFieldType},
		{"name as a varint", object(pw(nil).uint(1, 1)), protowire.ErrFieldType},
		{"generation as a string", object(pw(nil).str(7, "1")), protowire.ErrFieldType},
		{"creationTimestamp seconds as a string", object(pw(nil).msg(8, pw(nil).str(1, "x"))), protowire.ErrFieldType},
		{"creationTimestamp nanos beyond int32", object(pw(nil).msg(8, pw(nil).uint(2, 1<<40))), protowire.ErrFieldType},
		{"label entry as a varint", object(pw(nil).uint(11, 1)), protowire.ErrFieldType},
		{"label key as a varint", object(pw(nil).msg(11, pw(nil).uint(1, 1))), protowire.ErrFieldType},
		{"owner controller as a string", object(pw(nil).msg(13, pw(nil).str(6, "true"))), protowire.ErrFieldType},
		{"metadata cut short", []byte{0x0a, 0x05, 0x0a}, protowire.ErrTruncated},
		{"a field of metadata cut short", object(pw{0x0a, 0x05}), protowire.ErrTruncated},
		{"spec cut short", pw(nil).msg(1, nil).append(0x12, 0x09), protowire.ErrTruncated},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, err := protowire.DecodeMessage(api.TypeMeta{}, c.msg, protowire.Options{DropManagedFields: true})
			if !errors.Is(err, c.want) {
				t.Errorf("DecodeMessage: %v, want %v", err, c.want)
			}
			var m api.ObjectMeta
			if err := protowire.ScanMeta(c.msg, &m); !errors.Is(err, c.want) && c.name != "spec cut short" {
				t.Errorf("ScanMeta: %v, want %v", err, c.want)
			}
		})
	}
}

func (b pw) append(bs ...byte) pw { return append(b, bs...) }

// TestDecodeRealPodMatchesRawObject: the protobuf pod apimachinery wrote
// for podgen's pod 0 reads as kcm's RawObject reads its JSON: type,
// every metadata field.
func TestDecodeRealPodMatchesRawObject(t *testing.T) {
	want := rawMeta(t, podgen.Pod(0))
	for _, drop := range []bool{false, true} {
		o, err := protowire.Decode(golden(t, "pod.pb"), protowire.Options{DropManagedFields: drop})
		if err != nil {
			t.Fatal(err)
		}
		if o.TypeMeta != want.TypeMeta {
			t.Errorf("type %+v, want %+v", o.TypeMeta, want.TypeMeta)
		}
		if got, w := exported(o.ObjectMeta), exported(want.ObjectMeta); !reflect.DeepEqual(got, w) {
			t.Errorf("drop=%v metadata:\n got %+v\nwant %+v", drop, got, w)
		}
	}
}

// TestDropManagedFields: with DropManagedFields the kept message is the
// object's message with metadata field 17 removed and metadata's length
// written again; every other byte is the same, in the same order. Without
// it the kept message is an exact copy.
func TestDropManagedFields(t *testing.T) {
	u, err := protowire.Unwrap(golden(t, "pod.pb"))
	if err != nil {
		t.Fatal(err)
	}
	whole, err := protowire.DecodeMessage(api.TypeMeta{}, u.Raw, protowire.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(whole.Message(), u.Raw) || &whole.Message()[0] == &u.Raw[0] {
		t.Errorf("without DropManagedFields the message is not an exact copy")
	}
	o, err := protowire.DecodeMessage(api.TypeMeta{}, u.Raw, protowire.Options{DropManagedFields: true})
	if err != nil {
		t.Fatal(err)
	}
	kept := o.Message()
	if cap(kept) != len(kept) {
		t.Errorf("kept message has capacity %d for %d bytes: not made to size", cap(kept), len(kept))
	}
	// Rebuild what kept must be, field by field.
	var want []byte
	var managed int
	top, _ := readAll(u.Raw)
	for _, f := range top {
		if f.Num != 1 {
			want = append(want, u.Raw[f.Start:f.End]...)
			continue
		}
		var meta []byte
		fields, _ := readAll(f.Data)
		for _, mf := range fields {
			if mf.Num == 17 {
				managed++
				continue
			}
			meta = append(meta, f.Data[mf.Start:mf.End]...)
		}
		want = protowire.AppendBytes(want, 1, meta)
	}
	if managed == 0 {
		t.Fatal("podgen's pod has no managedFields: the test checks nothing")
	}
	if !bytes.Equal(kept, want) {
		t.Errorf("kept %d bytes, want %d (the message without its %d managedFields entries)", len(kept), len(want), managed)
	}
	t.Logf("pod message %d bytes, %d without managedFields", len(u.Raw), len(kept))
}

// TestObjectStringsShareTheMessage: an Object's metadata strings point
// into its kept message, so they cost no memory of their own.
func TestObjectStringsShareTheMessage(t *testing.T) {
	o, err := protowire.Decode(golden(t, "pod.pb"), protowire.Options{DropManagedFields: true})
	if err != nil {
		t.Fatal(err)
	}
	msg := o.Message()
	for _, s := range []string{o.Name, o.Namespace, o.UID, o.ResourceVersion} {
		i := bytes.Index(msg, []byte(s))
		if i < 0 || unsafeData(s) != &msg[i] {
			t.Errorf("%q is a copy, not a view of the kept message", s)
		}
	}
}

// TestSiblingsShare: two replicas of one ReplicaSet decoded one after the
// other share their labels and annotations maps and their owner
// references; ScanMeta, whose result the caller owns, shares nothing.
func TestSiblingsShare(t *testing.T) {
	l, err := protowire.SplitList(mustUnwrap(t, golden(t, "podlist.pb")).Raw)
	if err != nil {
		t.Fatal(err)
	}
	a, err := protowire.DecodeMessage(api.TypeMeta{}, l.Items[0], protowire.Options{DropManagedFields: true})
	if err != nil {
		t.Fatal(err)
	}
	b, err := protowire.DecodeMessage(api.TypeMeta{}, l.Items[1], protowire.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if a.OwnerReferences[0].UID != b.OwnerReferences[0].UID {
		t.Fatal("podgen's pods 0 and 1 have different owners: the test checks nothing")
	}
	if mapAddr(a.Labels) != mapAddr(b.Labels) || mapAddr(a.Annotations) != mapAddr(b.Annotations) {
		t.Errorf("siblings' maps are not shared")
	}
	if &a.OwnerReferences[0] != &b.OwnerReferences[0] {
		t.Errorf("siblings' owner references are not shared")
	}
	var m api.ObjectMeta
	if err := protowire.ScanMeta(l.Items[0], &m); err != nil {
		t.Fatal(err)
	}
	if mapAddr(m.Labels) == mapAddr(a.Labels) || &m.OwnerReferences[0] == &a.OwnerReferences[0] {
		t.Errorf("ScanMeta returned shared parts")
	}
}

// TestSharedMapsAreNeverWritten: metadata that comes twice merges into a
// copy of a shared map, never into the shared map itself, and a run
// broken by another field gets a private map.
func TestSharedMapsAreNeverWritten(t *testing.T) {
	first := pw(nil).msg(11, pw(nil).str(1, "x").str(2, "1"))
	merged := pw(nil).msg(1, first).msg(1, pw(nil).msg(11, pw(nil).str(1, "y").str(2, "2")))
	if _, err := protowire.DecodeMessage(api.TypeMeta{}, merged, protowire.Options{}); err != nil {
		t.Fatal(err)
	}
	o, err := protowire.DecodeMessage(api.TypeMeta{}, object(first), protowire.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if want := map[string]string{"x": "1"}; !reflect.DeepEqual(o.Labels, want) {
		t.Errorf("labels %v, want %v: a shared map was written by a merge", o.Labels, want)
	}
	broken := pw(nil).msg(11, pw(nil).str(1, "a").str(2, "1")).str(1, "n").msg(11, pw(nil).str(1, "b").str(2, "2"))
	o, err = protowire.DecodeMessage(api.TypeMeta{}, object(broken), protowire.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if want := map[string]string{"a": "1", "b": "2"}; !reflect.DeepEqual(o.Labels, want) || o.Name != "n" {
		t.Errorf("interleaved labels read %v, name %q", o.Labels, o.Name)
	}
}

func mustUnwrap(t *testing.T, b []byte) protowire.Unknown {
	t.Helper()
	u, err := protowire.Unwrap(b)
	if err != nil {
		t.Fatal(err)
	}
	return u
}

func mapAddr(m map[string]string) uintptr { return reflect.ValueOf(m).Pointer() }

// TestFamilyDelta: with FamilyDelta the first pod of a ReplicaSet is kept
// whole as its family's base, its siblings as deltas against it, and every
// Message is the message kept without FamilyDelta, byte for byte, with
// the same metadata.
func TestFamilyDelta(t *testing.T) {
	l, err := protowire.SplitList(mustUnwrap(t, golden(t, "podlist.pb")).Raw)
	if err != nil {
		t.Fatal(err)
	}
	var objs []*protowire.Object
	for i, item := range l.Items {
		plain, err := protowire.DecodeMessage(api.TypeMeta{Kind: "Pod"}, item, protowire.Options{DropManagedFields: true})
		if err != nil {
			t.Fatal(err)
		}
		o, err := protowire.DecodeMessage(api.TypeMeta{Kind: "Pod"}, item, protowire.Options{DropManagedFields: true, FamilyDelta: true})
		if err != nil {
			t.Fatal(err)
		}
		objs = append(objs, o)
		if got := o.Message(); !bytes.Equal(got, plain.Message()) {
			t.Errorf("item %d: message rebuilt as %d bytes, want %d", i, len(got), len(plain.Message()))
		}
		if !reflect.DeepEqual(exported(o.ObjectMeta), exported(plain.ObjectMeta)) {
			t.Errorf("item %d: metadata differs", i)
		}
		if want := i > 0; o.IsDelta() != want {
			t.Errorf("item %d: IsDelta %v, want %v (pods 0-2 are one ReplicaSet's)", i, o.IsDelta(), want)
		}
	}
	// A pod without a controller is kept whole.
	o, err := protowire.DecodeMessage(api.TypeMeta{Kind: "Pod"}, object(pw(nil).str(1, "lone")), protowire.Options{FamilyDelta: true})
	if err != nil || o.IsDelta() || o.Name != "lone" {
		t.Errorf("pod without a controller: %v, IsDelta %v", err, o.IsDelta())
	}
}

// TestFamilyDeltaKeepsItsStrings: a family member kept as a delta owns
// every string it exposes, also those of maps it could not share (labels
// interleaved with other fields): decoding more objects, which reuses the
// decoder's scratch memory, changes nothing in it.
func TestFamilyDeltaKeepsItsStrings(t *testing.T) {
	owner := pw(nil).str(1, "ReplicaSet").str(3, "rs").str(4, "uid-family-test").str(5, "apps/v1").uint(6, 1)
	var interleaved bool // labels split by another field: no shared map
	pod := func(name, label string) []byte {
		meta := pw(nil).str(1, name).msg(11, pw(nil).str(1, "app").str(2, label))
		if interleaved {
			meta = meta.str(3, "ns")
		}
		meta = meta.msg(11, pw(nil).str(1, "tier").str(2, label+"-tier")).msg(13, owner).str(5, "uid-"+name)
		return pw(nil).msg(1, meta).msg(2, pw(bytes.Repeat([]byte("spec-bytes-"), 40)))
	}
	opt := protowire.Options{FamilyDelta: true}
	var objs []*protowire.Object
	for i := range 8 {
		interleaved = i >= 4
		o, err := protowire.DecodeMessage(api.TypeMeta{Kind: "Pod"}, pod(fmt.Sprintf("pod-%d", i), fmt.Sprintf("v%d", i%4)), opt)
		if err != nil {
			t.Fatal(err)
		}
		if want := i%4 > 0 && !interleaved; o.IsDelta() != want {
			t.Errorf("object %d: IsDelta %v, want %v", i, o.IsDelta(), want)
		}
		objs = append(objs, o)
	}
	for range 10 {
		if _, err := protowire.DecodeMessage(api.TypeMeta{Kind: "Pod"}, pod("zzzzz", "zz"), opt); err != nil {
			t.Fatal(err)
		}
	}
	for i, o := range objs {
		interleaved = i >= 4
		name, label := fmt.Sprintf("pod-%d", i), fmt.Sprintf("v%d", i%4)
		want := map[string]string{"app": label, "tier": label + "-tier"}
		if o.Name != name || o.UID != "uid-"+name || !reflect.DeepEqual(o.Labels, want) || o.OwnerReferences[0].UID != "uid-family-test" {
			t.Errorf("object %d now reads %s %s %v %s", i, o.Name, o.UID, o.Labels, o.OwnerReferences[0].UID)
		}
		if !bytes.Equal(o.Message(), pod(name, label)) {
			t.Errorf("object %d: message differs", i)
		}
	}
}
