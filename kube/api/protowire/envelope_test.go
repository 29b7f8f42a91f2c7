package protowire_test

import (
	"errors"
	"testing"

	"github.com/kcmlab/kcm/kube/api/protowire"
)

// TestUnwrapRealPod reads the envelope apimachinery's protobuf serializer
// wrote around a pod (runtime/generated.proto Unknown: typeMeta 1, raw 2,
// contentEncoding 3, contentType 4).
func TestUnwrapRealPod(t *testing.T) {
	u, err := protowire.Unwrap(golden(t, "pod.pb"))
	if err != nil {
		t.Fatal(err)
	}
	if string(u.APIVersion) != "v1" || string(u.Kind) != "Pod" || len(u.Raw) == 0 {
		t.Errorf("got apiVersion %q kind %q and %d raw bytes, want v1 Pod", u.APIVersion, u.Kind, len(u.Raw))
	}
	if err := u.Protobuf(); err != nil {
		t.Errorf("Protobuf: %v (the apiserver writes no content type or encoding)", err)
	}
}

// TestWrapUnwrap: Wrap writes what Unwrap reads.
func TestWrapUnwrap(t *testing.T) {
	b := protowire.Wrap(nil, "apps/v1", "ReplicaSet", []byte{0x0a, 0x00})
	u, err := protowire.Unwrap(b)
	if err != nil || string(u.APIVersion) != "apps/v1" || string(u.Kind) != "ReplicaSet" || string(u.Raw) != "\x0a\x00" {
		t.Errorf("got %q %q %x, %v", u.APIVersion, u.Kind, u.Raw, err)
	}
}

// TestUnwrapRejects: no magic, a broken Unknown, or raw in another
// encoding.
func TestUnwrapRejects(t *testing.T) {
	magic := string(protowire.Magic[:])
	for _, c := range []struct {
		name string
		in   string
		want error
	}{
		{"empty", "", protowire.ErrMagic},
		{"JSON", `{"kind":"Pod"}`, protowire.ErrMagic},
		{"encoding byte 1 (undefined)", "k8s\x01\x12\x00", protowire.ErrMagic},
		{"raw cut short", magic + "\x12\x05ab", protowire.ErrTruncated},
		{"typeMeta as a varint", magic + "\x08\x01", protowire.ErrFieldType},
		{"kind cut short inside typeMeta", magic + "\x0a\x02\x12\x05", protowire.ErrTruncated},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, err := protowire.Unwrap([]byte(c.in))
			if !errors.Is(err, c.want) {
				t.Errorf("got %v, want %v", err, c.want)
			}
		})
	}
	for _, c := range []struct{ name, in string }{
		{"gzip content encoding", magic + "\x1a\x04gzip"},
		{"JSON content type", magic + "\x22\x10application/json"},
	} {
		t.Run(c.name, func(t *testing.T) {
			if _, err := protowire.Decode([]byte(c.in), protowire.Options{}); !errors.Is(err, protowire.ErrContent) {
				t.Errorf("Decode: %v, want ErrContent", err)
			}
		})
	}
}
