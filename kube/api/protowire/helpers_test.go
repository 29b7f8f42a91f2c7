package protowire_test

import (
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/kcmlab/kcm/kube/api"
	"github.com/kcmlab/kcm/kube/api/decode"
)

// golden reads a file of testdata: bytes apimachinery v0.34's
// serializers wrote for podgen's pods (bench's TestProtoGolden keeps
// them current).
func golden(t testing.TB, name string) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// exported is m without what only a codec sets (the source it was
// decoded from), its times in UTC, so two decodings compare with ==.
func exported(m api.ObjectMeta) api.ObjectMeta {
	out := api.ObjectMeta{Name: m.Name, GenerateName: m.GenerateName, Namespace: m.Namespace, UID: m.UID,
		ResourceVersion: m.ResourceVersion, Generation: m.Generation,
		CreationTimestamp:          api.Time{Time: utc(m.CreationTimestamp.Time)},
		DeletionGracePeriodSeconds: m.DeletionGracePeriodSeconds,
		Labels:                     m.Labels, Annotations: m.Annotations, OwnerReferences: m.OwnerReferences,
		Finalizers: m.Finalizers}
	if m.DeletionTimestamp != nil {
		out.DeletionTimestamp = &api.Time{Time: utc(m.DeletionTimestamp.Time)}
	}
	return out
}

func utc(t time.Time) time.Time {
	if t.IsZero() {
		return time.Time{}
	}
	return t.UTC()
}

// rawMeta decodes JSON with kcm's RawObject codec: what the protobuf
// scanner must agree with.
func rawMeta(t testing.TB, js []byte) *api.RawObject {
	t.Helper()
	o, err := decode.Raw().Decode(js)
	if err != nil {
		t.Fatal(err)
	}
	return o
}

// protowireTypeMeta is api.TypeMeta{apiVersion, kind}.
func protowireTypeMeta(apiVersion, kind string) api.TypeMeta {
	return api.TypeMeta{APIVersion: apiVersion, Kind: kind}
}
