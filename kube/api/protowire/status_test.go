package protowire_test

import (
	"bytes"
	"errors"
	"reflect"
	"testing"

	"github.com/kcmlab/kcm/kube/api/protowire"
)

// goldenStatus is the Status in testdata/status.pb, which apimachinery
// v0.37.2's protobuf serializer wrote (a throw-away module outside kcm):
// every field of Status, StatusDetails and StatusCause set.
var goldenStatus = protowire.Status{
	Status: "Failure", Message: "too old resource version: 5 (9)", Reason: "Expired", Code: 410,
	Details: &protowire.StatusDetails{Name: "web-0", Group: "apps", Kind: "pods", UID: "u-1", RetryAfterSeconds: 7,
		Causes: []protowire.StatusCause{
			{Reason: "ResourceVersionTooLarge", Message: "m1", Field: "f1"},
			{Reason: "FieldValueInvalid", Message: "m2", Field: "spec.x"},
		}},
}

// TestDecodeRealStatus reads the Status upstream wrote, field by field
// (meta/v1 generated.proto: status 2, message 3, reason 4, details 5,
// code 6; details: name 1, group 2, kind 3, causes 4, retryAfterSeconds
// 5, uid 6; cause: reason 1, message 2, field 3).
func TestDecodeRealStatus(t *testing.T) {
	u, err := protowire.Unwrap(golden(t, "status.pb"))
	if err != nil {
		t.Fatal(err)
	}
	if string(u.Kind) != protowire.StatusKind || string(u.APIVersion) != "v1" {
		t.Fatalf("envelope %s %s", u.APIVersion, u.Kind)
	}
	s, err := protowire.DecodeStatus(u.Raw)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(s, goldenStatus) {
		t.Fatalf("status\n got %+v %+v\nwant %+v %+v", s, s.Details, goldenStatus, goldenStatus.Details)
	}
}

// TestAppendStatusRoundTrips: what AppendStatus writes (fakes use it)
// reads back the same, and is the bytes upstream writes.
func TestAppendStatusRoundTrips(t *testing.T) {
	msg := protowire.AppendStatus(nil, goldenStatus)
	s, err := protowire.DecodeStatus(msg)
	if err != nil || !reflect.DeepEqual(s, goldenStatus) {
		t.Fatalf("round trip: %+v, %v", s, err)
	}
	u, _ := protowire.Unwrap(golden(t, "status.pb"))
	// Upstream also writes an empty ListMeta (field 1, its strings
	// empty) first; the rest is the same bytes.
	if !bytes.HasSuffix(u.Raw, msg) || u.Raw[0] != 0x0a || int(u.Raw[1])+2 != len(u.Raw)-len(msg) {
		t.Errorf("AppendStatus differs from upstream:\n got %x\nwant %x", msg, u.Raw)
	}
}

// TestDecodeStatusRejects: broken Status messages are errors wrapping
// ErrMalformed.
func TestDecodeStatusRejects(t *testing.T) {
	for name, msg := range map[string][]byte{
		"truncated":          protowire.AppendStatus(nil, goldenStatus)[:20],
		"code as bytes":      pw(nil).str(6, "410"),
		"message as varint":  pw(nil).uint(3, 1),
		"code over int32":    pw(nil).uint(6, 1<<40),
		"broken details":     pw(nil).msg(5, pw{0x0a, 0x05, 'a'}),
		"cause not a string": pw(nil).msg(5, pw(nil).msg(4, pw(nil).uint(1, 3))),
	} {
		if _, err := protowire.DecodeStatus(msg); !errors.Is(err, protowire.ErrMalformed) {
			t.Errorf("%s: %v, want ErrMalformed", name, err)
		}
	}
}
