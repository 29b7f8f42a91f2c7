package resourcequota

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

// TestCountCodec: a monitor keeps of each object what counting and the
// informer need — namespace, name, resourceVersion — and drops labels,
// annotations, owners, finalizers and the raw JSON; the annotation that
// marks the end of a WatchList's initial events survives on its bookmark.
func TestCountCodec(t *testing.T) {
	o, err := countCodec{}.Decode([]byte(`{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"c","namespace":"ns",
		"resourceVersion":"7","labels":{"a":"b"},"annotations":{"x":"y"},"finalizers":["f"],
		"ownerReferences":[{"apiVersion":"v1","kind":"Pod","name":"p","uid":"u"}],
		"managedFields":[{"manager":"m"}]}}`))
	if err != nil {
		t.Fatal(err)
	}
	if o.Namespace != "ns" || o.Name != "c" || o.ResourceVersion != "7" {
		t.Errorf("identity lost: %s/%s rv %s", o.Namespace, o.Name, o.ResourceVersion)
	}
	if o.Labels != nil || o.Annotations != nil || o.Finalizers != nil || o.OwnerReferences != nil {
		t.Errorf("kept what counting does not need: %+v", o.ObjectMeta)
	}
	b, err := countCodec{}.Decode([]byte(`{"apiVersion":"v1","kind":"ConfigMap","metadata":{"resourceVersion":"9",
		"annotations":{"` + rest.InitialEventsEndAnnotation + `":"true"}}}`))
	if err != nil {
		t.Fatal(err)
	}
	if b.Annotations[rest.InitialEventsEndAnnotation] != "true" {
		t.Error("the WatchList end marker was dropped")
	}
}

// TestCountCodecProtobuf: on a protobuf client a monitor asks for
// protobuf (decode.AsProto) and keeps, from the message, what the JSON
// path keeps from the same object's JSON, pointing into no read buffer;
// the WatchList end marker survives.
func TestCountCodecProtobuf(t *testing.T) {
	if _, ok := decode.AsProto[*api.RawObject](countCodec{}); !ok {
		t.Fatal("countCodec reads no protobuf: a protobuf client would ask for JSON")
	}
	meta := `{"name":"c","namespace":"ns","resourceVersion":"7","labels":{"a":"b"},"annotations":{"x":"y"},
		"finalizers":["f"],"ownerReferences":[{"apiVersion":"v1","kind":"Pod","name":"p","uid":"u"}]}`
	want, err := countCodec{}.Decode([]byte(`{"apiVersion":"v1","kind":"ConfigMap","metadata":` + meta + `}`))
	if err != nil {
		t.Fatal(err)
	}
	var cm api.ConfigMap
	if err := json.Unmarshal([]byte(meta), &cm.ObjectMeta); err != nil {
		t.Fatal(err)
	}
	msg, err := protocodec.Marshal(&cm)
	if err != nil {
		t.Fatal(err)
	}
	tm := api.TypeMeta{APIVersion: "v1", Kind: "ConfigMap"}
	for name, decode := range map[string]func(api.TypeMeta, []byte) (*api.RawObject, error){
		"DecodeProto": countCodec{}.DecodeProto, "DecodeProtoBorrowed": countCodec{}.DecodeProtoBorrowed,
	} {
		buf := append([]byte(nil), msg...)
		o, err := decode(tm, buf)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		clear(buf)
		if !reflect.DeepEqual(o, want) {
			t.Errorf("%s = %+v\nwant (the JSON path's) %+v", name, o, want)
		}
	}
	var end api.ConfigMap
	end.ResourceVersion = "9"
	end.Annotations = map[string]string{rest.InitialEventsEndAnnotation: "true", "other": "x"}
	if msg, err = protocodec.Marshal(&end); err != nil {
		t.Fatal(err)
	}
	b, err := countCodec{}.DecodeProtoBorrowed(tm, msg)
	if err != nil {
		t.Fatal(err)
	}
	if b.Annotations[rest.InitialEventsEndAnnotation] != "true" {
		t.Error("the protobuf WatchList end marker was dropped")
	}
	if _, err := (countCodec{}).DecodeProto(tm, []byte{0x0a, 0x05, 0x0a}); !errors.Is(err, api.ErrDecode) {
		t.Errorf("a truncated message: %v, want api.ErrDecode", err)
	}
}
