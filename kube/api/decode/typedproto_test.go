package decode_test

import (
	"bytes"
	"errors"
	"os"
	"reflect"
	"testing"

	"github.com/kcmlab/kcm/kube/api"
	"github.com/kcmlab/kcm/kube/api/decode"
	"github.com/kcmlab/kcm/kube/api/protowire"
	"github.com/kcmlab/kcm/kube/internal/jsonx"
)

// The vectors of package protocodec: objects of every kind marshalled by
// k8s.io/api's generated code to protobuf (name.pb, the message without
// envelope, managedFields included) and to JSON (name.json).
const vectorDir = "../protocodec/testdata/vectors/"

func readVector(t *testing.T, name string) (pb, js []byte) {
	t.Helper()
	pb, err := os.ReadFile(vectorDir + name + ".pb")
	if err != nil {
		t.Fatal(err)
	}
	js, err = os.ReadFile(vectorDir + name + ".json")
	if err != nil {
		t.Fatal(err)
	}
	return pb, js
}

// typedProtoCase checks the typed codecs of S on one vector: whether
// they read protobuf (AsProto: readsProto), and that DecodeProto gives
// what Decode gives for the JSON, with the message as the source.
func typedProtoCase[S any, P api.TypedPtr[S]](readsProto bool) func(t *testing.T, pb, js []byte) {
	return func(t *testing.T, pb, js []byte) {
		stripped, err := protowire.StripManagedFields(pb)
		if err != nil {
			t.Fatal(err)
		}
		none := func(string, string) (P, bool) { return nil, false }
		for _, c := range []struct {
			name  string
			codec decode.Codec[P]
			strip bool
		}{
			{"Typed", decode.Typed[S, P](), false},
			{"Compact", decode.Compact[S, P](), false},
			{"CompactCached", decode.CompactCached[S, P](none), false},
			{"Stripping(Typed)", decode.StrippingManagedFields(decode.Typed[S, P]()), true},
			{"Stripping(CompactCached)", decode.StrippingManagedFields(decode.CompactCached[S, P](none)), true},
		} {
			t.Run(c.name, func(t *testing.T) {
				pd, ok := decode.AsProto(c.codec)
				if ok != readsProto {
					t.Fatalf("AsProto %v, want %v", ok, readsProto)
				}
				if !ok {
					// The kinds kept on JSON still decode protobuf when
					// asked directly, but a stripping codec refuses for
					// them; kube/rest never asks.
					pd = c.codec.(decode.ProtoDecoder[P])
					if c.strip {
						if _, err := pd.DecodeProto(api.TypeMeta{}, pb); !errors.Is(err, api.ErrDecode) {
							t.Fatalf("DecodeProto of a JSON-only stripping codec: %v, want an ErrDecode", err)
						}
						return
					}
				}
				want, err := c.codec.Decode(append([]byte(nil), js...))
				if err != nil {
					t.Fatal(err)
				}
				msg := append([]byte(nil), pb...)
				got, err := pd.DecodeProto(*want.GetTypeMeta(), msg)
				if err != nil {
					t.Fatal(err)
				}
				m := got.GetObjectMeta()
				if !m.IsProto() || m.Raw() != nil {
					t.Fatalf("IsProto %v, Raw %q: want the protobuf form", m.IsProto(), m.Raw())
				}
				src, err := m.OriginalProto()
				if err != nil {
					t.Fatal(err)
				}
				wantSrc := pb
				if c.strip {
					wantSrc = stripped
				}
				// Typed keeps the message; a cache's codec keeps its
				// remainder and rebuilds it, byte for byte for a message
				// as upstream writes it.
				if !bytes.Equal(src, wantSrc) {
					t.Fatalf("OriginalProto: %d bytes, want the %d of the message (stripped %v)", len(src), len(wantSrc), c.strip)
				}
				cp, err := api.DeepCopy(got)
				if err != nil {
					t.Fatal(err)
				}
				if cs, _ := cp.GetObjectMeta().OriginalProto(); !cp.GetObjectMeta().IsProto() || !bytes.Equal(cs, src) {
					t.Fatal("DeepCopy lost the message")
				}
				if c.name != "Typed" && c.name != "Stripping(Typed)" {
					// A cache's objects own their strings and their
					// remainder: nothing of them points into the message.
					clear(msg)
					if again, err := got.GetObjectMeta().OriginalProto(); err != nil || !bytes.Equal(again, wantSrc) {
						t.Fatalf("OriginalProto changed with the input (%v)", err)
					}
				}
				got.GetObjectMeta().SetRaw(nil)
				want.GetObjectMeta().SetRaw(nil)
				normalizeProto(any(want))
				if !reflect.DeepEqual(got, want) {
					gj, _ := jsonx.Marshal(got)
					wj, _ := jsonx.Marshal(want)
					t.Fatalf("protobuf decode differs from JSON decode:\n got %s\nwant %s", gj, wj)
				}
			})
		}
	}
}

// normalizeProto removes from a JSON decode what no protobuf message
// has: a StatefulSet's volumeClaimTemplates' apiVersion and kind.
func normalizeProto(obj any) {
	if s, ok := obj.(*api.StatefulSet); ok {
		for i := range s.Spec.VolumeClaimTemplates {
			s.Spec.VolumeClaimTemplates[i].TypeMeta = api.TypeMeta{}
		}
	}
}

// TestTypedDecodeProto: Typed and Compact read every vector's protobuf
// as their JSON decode reads its JSON; the kind kept on JSON
// (StatefulSet) is not offered to kube/rest as a protobuf reader
// (AsProto false); the others are.
func TestTypedDecodeProto(t *testing.T) {
	for name, run := range map[string]func(*testing.T, []byte, []byte){
		"pod":                typedProtoCase[api.Pod](true),
		"smallpod":           typedProtoCase[api.Pod](true),
		"namespace":          typedProtoCase[api.Namespace](true),
		"serviceaccount":     typedProtoCase[api.ServiceAccount](true),
		"configmap":          typedProtoCase[api.ConfigMap](true),
		"secret":             typedProtoCase[api.Secret](true),
		"node":               typedProtoCase[api.Node](true),
		"service":            typedProtoCase[api.Service](true),
		"endpoints":          typedProtoCase[api.Endpoints](true),
		"endpointslice":      typedProtoCase[api.EndpointSlice](true),
		"event":              typedProtoCase[api.CoreEvent](true),
		"pvc":                typedProtoCase[api.PersistentVolumeClaim](true),
		"resourcequota":      typedProtoCase[api.ResourceQuota](true),
		"lease":              typedProtoCase[api.Lease](true),
		"resourceclaim":      typedProtoCase[api.ResourceClaim](true),
		"deviceclass":        typedProtoCase[api.DeviceClass](true),
		"replicaset":         typedProtoCase[api.ReplicaSet](true),
		"deployment":         typedProtoCase[api.Deployment](true),
		"statefulset":        typedProtoCase[api.StatefulSet](false),
		"controllerrevision": typedProtoCase[api.ControllerRevision](true),
	} {
		t.Run(name, func(t *testing.T) {
			pb, js := readVector(t, name)
			run(t, pb, js)
		})
	}
}

// customResource is a typed struct of a custom resource: no pb tags, so
// no protobuf form.
type customResource struct {
	api.TypeMeta
	api.ObjectMeta `json:"metadata"`
	Spec           struct {
		Replicas int32 `json:"replicas"`
	} `json:"spec"`
}

// TestTypedProtoCustomResource: a custom resource's typed codecs read
// JSON only.
func TestTypedProtoCustomResource(t *testing.T) {
	if _, ok := decode.AsProto(decode.Typed[customResource]()); ok {
		t.Error("Typed[customResource]: AsProto true")
	}
	if _, ok := decode.AsProto(decode.StrippingManagedFields(decode.Compact[customResource]())); ok {
		t.Error("Compact[customResource]: AsProto true")
	}
}

// TestTypedDecodeProtoErrors: bytes that are not a message are an error
// wrapping api.ErrDecode, from every typed codec.
func TestTypedDecodeProtoErrors(t *testing.T) {
	tm := api.TypeMeta{APIVersion: "v1", Kind: "Pod"}
	for name, c := range map[string]decode.Codec[*api.Pod]{
		"Typed":              decode.Typed[api.Pod](),
		"Compact":            decode.Compact[api.Pod](),
		"Stripping(Typed)":   decode.StrippingManagedFields(decode.Typed[api.Pod]()),
		"Stripping(Compact)": decode.StrippingManagedFields(decode.Compact[api.Pod]()),
	} {
		pd, _ := decode.AsProto(c)
		for _, bad := range [][]byte{{0x0a, 0x05, 0x0a}, {0xff}, {0x0a, 0x80}} {
			if _, err := pd.DecodeProto(tm, bad); !errors.Is(err, api.ErrDecode) {
				t.Errorf("%s %x: %v, want an ErrDecode", name, bad, err)
			}
		}
	}
}
