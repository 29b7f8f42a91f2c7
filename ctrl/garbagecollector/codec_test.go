package garbagecollector

import (
	"encoding/json"
	"errors"
	"reflect"
	"testing"

	"github.com/kcmlab/kcm/kube/api"
	"github.com/kcmlab/kcm/kube/api/decode"
	"github.com/kcmlab/kcm/kube/api/protocodec"
	"github.com/kcmlab/kcm/kube/rest"
)

// TestMetaCodec: the collector's cache keeps what the graph reads and
// drops the rest — labels, annotations, managedFields, the raw JSON — but
// for the annotation that marks the end of a WatchList's initial events,
// without which a metadata informer would never sync.
func TestMetaCodec(t *testing.T) {
	pod := []byte(`{"apiVersion":"v1","kind":"PartialObjectMetadata","metadata":{"name":"p","namespace":"ns","uid":"u1",
		"resourceVersion":"7","generateName":"p-","labels":{"app":"web"},"annotations":{"big":"x"},
		"deletionTimestamp":"2025-01-02T03:04:05Z","finalizers":["foregroundDeletion"],
		"ownerReferences":[{"apiVersion":"apps/v1","kind":"ReplicaSet","name":"rs","uid":"r1","controller":true,"blockOwnerDeletion":true}],
		"managedFields":[{"manager":"kubectl","operation":"Update"}]}}`)
	for name, decode := range map[string]func([]byte) (*api.RawObject, error){
		"Decode": metaCodec{}.Decode, "DecodeBorrowed": metaCodec{}.DecodeBorrowed,
	} {
		o, err := decode(append([]byte(nil), pod...))
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if o.Name != "p" || o.Namespace != "ns" || o.UID != "u1" || o.ResourceVersion != "7" || o.DeletionTimestamp == nil ||
			len(o.Finalizers) != 1 || len(o.OwnerReferences) != 1 || !blocks(o.OwnerReferences[0]) {
			t.Errorf("%s lost what the graph reads: %+v", name, o.ObjectMeta)
		}
		if o.Labels != nil || o.Annotations != nil || o.GenerateName != "" || o.Raw() != nil {
			t.Errorf("%s kept what the graph never reads: labels %v annotations %v generateName %q raw %d bytes",
				name, o.Labels, o.Annotations, o.GenerateName, len(o.Raw()))
		}
	}
	bookmark := []byte(`{"kind":"PartialObjectMetadata","apiVersion":"meta.k8s.io/v1","metadata":{"resourceVersion":"9",
		"annotations":{"k8s.io/initial-events-end":"true"}}}`)
	o, err := metaCodec{}.DecodeBorrowed(bookmark)
	if err != nil {
		t.Fatal(err)
	}
	ev := rest.WatchEvent[*api.RawObject]{Type: rest.Bookmark, Object: o}
	if !ev.IsInitialEventsEnd() {
		t.Error("the bookmark ending a WatchList's initial events lost its marker")
	}
}

// TestMetaCodecProtobuf: on a protobuf client the collector's monitors
// ask for protobuf (decode.AsProto) and keep, from the protobuf message,
// exactly what the JSON path keeps from the same object's JSON; the
// borrowed decode keeps nothing of the read buffer.
func TestMetaCodecProtobuf(t *testing.T) {
	if _, ok := decode.AsProto[*api.RawObject](metaCodec{}); !ok {
		t.Fatal("metaCodec reads no protobuf: a protobuf client would ask for JSON")
	}
	meta := `{"name":"p","namespace":"ns","uid":"u1","resourceVersion":"7","generateName":"p-","labels":{"app":"web"},
		"annotations":{"big":"x"},"deletionTimestamp":"2025-01-02T03:04:05Z","finalizers":["foregroundDeletion"],
		"ownerReferences":[{"apiVersion":"apps/v1","kind":"ReplicaSet","name":"rs","uid":"r1","controller":true,"blockOwnerDeletion":true}]}`
	want, err := metaCodec{}.Decode([]byte(`{"apiVersion":"v1","kind":"Pod","metadata":` + meta + `}`))
	if err != nil {
		t.Fatal(err)
	}
	var pod api.Pod
	if err := json.Unmarshal([]byte(meta), &pod.ObjectMeta); err != nil {
		t.Fatal(err)
	}
	msg, err := protocodec.Marshal(&pod)
	if err != nil {
		t.Fatal(err)
	}
	tm := api.TypeMeta{APIVersion: "v1", Kind: "Pod"}
	for name, decode := range map[string]func(api.TypeMeta, []byte) (*api.RawObject, error){
		"DecodeProto": metaCodec{}.DecodeProto, "DecodeProtoBorrowed": metaCodec{}.DecodeProtoBorrowed,
	} {
		buf := append([]byte(nil), msg...)
		o, err := decode(tm, buf)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		clear(buf) // the read buffer is reused: nothing may point into it
		if !reflect.DeepEqual(o, want) {
			t.Errorf("%s = %+v\nwant (the JSON path's) %+v", name, o, want)
		}
	}
	var end api.Pod
	end.ResourceVersion = "9"
	end.Annotations = map[string]string{rest.InitialEventsEndAnnotation: "true"}
	if msg, err = protocodec.Marshal(&end); err != nil {
		t.Fatal(err)
	}
	o, err := metaCodec{}.DecodeProtoBorrowed(api.TypeMeta{APIVersion: "meta.k8s.io/v1", Kind: "PartialObjectMetadata"}, msg)
	if err != nil {
		t.Fatal(err)
	}
	if ev := (rest.WatchEvent[*api.RawObject]{Type: rest.Bookmark, Object: o}); !ev.IsInitialEventsEnd() {
		t.Error("the protobuf bookmark ending a WatchList's initial events lost its marker")
	}
	if _, err := (metaCodec{}).DecodeProto(tm, []byte{0x0a, 0x05, 0x0a}); !errors.Is(err, api.ErrDecode) {
		t.Errorf("a truncated message: %v, want api.ErrDecode", err)
	}
}
