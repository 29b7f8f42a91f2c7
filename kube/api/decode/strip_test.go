package decode

import (
	"bytes"
	"encoding/json"
	"errors"
	"testing"

	"github.com/kcmlab/kcm/kube/api"
)

const rcMF = `[{"manager":"kubectl","operation":"Update","apiVersion":"v1","fieldsV1":{"f:data":{".":{},"f:k\"}]":{}}}}]`

// TestStripManagedFields: metadata.managedFields is cut from the bytes
// wherever it sits among metadata's members; nothing else is touched, not
// even a "managedFields" key elsewhere in the object.
func TestStripManagedFields(t *testing.T) {
	tests := []struct {
		name, in, want string
	}{
		{"first of several", `{"metadata":{"managedFields":` + rcMF + `,"name":"a","uid":"u"},"data":{}}`,
			`{"metadata":{"name":"a","uid":"u"},"data":{}}`},
		{"middle", `{"metadata":{"name":"a","managedFields":` + rcMF + `,"uid":"u"}}`,
			`{"metadata":{"name":"a","uid":"u"}}`},
		{"last", `{"metadata":{"name":"a","managedFields":` + rcMF + `}}`,
			`{"metadata":{"name":"a"}}`},
		{"only member", `{"metadata":{"managedFields":` + rcMF + `}}`, `{"metadata":{}}`},
		{"empty list", `{"metadata":{"name":"a","managedFields":[]}}`, `{"metadata":{"name":"a"}}`},
		{"null", `{"metadata":{"managedFields":null,"name":"a"}}`, `{"metadata":{"name":"a"}}`},
		{"metadata after spec", `{"kind":"Pod","spec":{"x":"}"},"metadata":{"name":"a","managedFields":` + rcMF + `},"status":{}}`,
			`{"kind":"Pod","spec":{"x":"}"},"metadata":{"name":"a"},"status":{}}`},
		{"pretty printed", "{\n  \"metadata\": {\n    \"name\": \"a\",\n    \"managedFields\": [\n      {}\n    ]\n  },\n  \"data\": {}\n}",
			"{\n  \"metadata\": {\n    \"name\": \"a\"\n  },\n  \"data\": {}\n}"},
		{"pretty printed, first", "{\"metadata\": { \"managedFields\" : [ ] , \"name\": \"a\" }}",
			"{\"metadata\": { \"name\": \"a\" }}"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			in := []byte(tc.in)
			got, err := StripManagedFields(in)
			if err != nil {
				t.Fatal(err)
			}
			if string(got) != tc.want {
				t.Fatalf("got  %s\nwant %s", got, tc.want)
			}
			if !json.Valid(got) {
				t.Fatalf("output is not valid JSON: %s", got)
			}
			if string(in) != tc.in {
				t.Fatal("input modified")
			}
		})
	}
	untouched := []struct{ name, in string }{
		{"absent", `{"metadata":{"name":"a"},"data":{}}`},
		{"no metadata", `{"kind":"Status","code":410}`},
		{"metadata null", `{"metadata":null}`},
		{"in spec", `{"metadata":{"name":"a"},"spec":{"managedFields":[1]}}`},
		{"an annotation's key", `{"metadata":{"annotations":{"managedFields":"keep"}}}`},
		{"deeper metadata", `{"metadata":{"name":"a"},"spec":{"template":{"metadata":{"managedFields":[1]}}}}`},
		{"top level", `{"managedFields":[1],"metadata":{}}`},
		{"in a string", `{"metadata":{"name":"\"managedFields\":[]"}}`},
		{"escaped key", `{"metadata":{"managed\u0046ields":[]}}`}, // the apiserver never escapes it
	}
	for _, tc := range untouched {
		in := []byte(tc.in)
		got, err := StripManagedFields(in)
		if err != nil || string(got) != tc.in {
			t.Errorf("%s: got %s, %v; want the input unchanged", tc.name, got, err)
		}
		if len(got) > 0 && &got[0] != &in[0] {
			t.Errorf("%s: input copied although nothing was cut", tc.name)
		}
	}
}

// TestStripManagedFieldsMalformed: malformed input is an error wrapping
// ErrDecode, never a panic or a silently wrong cut.
func TestStripManagedFieldsMalformed(t *testing.T) {
	for _, in := range []string{
		``, ` `, `nul`, `[1]`, `"s"`, `{`, `{"a"`, `{"a":`, `{"a" 1}`, `{1:2}`, `{"a":1`,
		`{"metadata":`, `{"metadata":{`, `{"metadata":{"managedFields":[}`,
		`{"metadata":{"managedFields":"unterminated}}`, `{"metadata":{"name":"a"`, `{"metadata":{"x":[{]}`,
		`{"metadata":{"managedFields":[],"name":"a\`,
	} {
		got, err := StripManagedFields([]byte(in))
		if !errors.Is(err, api.ErrDecode) {
			t.Errorf("%q: got %q, %v; want ErrDecode", in, got, err)
		}
	}
}

// TestCodecs: each codec keeps the raw JSON it decoded and reports
// malformed input as ErrDecode; the stripping codec cuts managedFields
// before decoding, so the kept JSON shrinks too.
func TestCodecs(t *testing.T) {
	in := []byte(`{"apiVersion":"v1","kind":"Pod","metadata":{"name":"p","managedFields":` + rcMF + `},"spec":{"nodeName":"n1"}}`)
	stripped := []byte(`{"apiVersion":"v1","kind":"Pod","metadata":{"name":"p"},"spec":{"nodeName":"n1"}}`)
	p, err := Typed[api.Pod]().Decode(in)
	if err != nil || p.Name != "p" || p.Spec.NodeName != "n1" || !bytes.Equal(p.Raw(), in) {
		t.Fatalf("Typed: %+v, %v", p, err)
	}
	sp, err := StrippingManagedFields(Typed[api.Pod]()).Decode(in)
	if err != nil || sp.Spec.NodeName != "n1" || !bytes.Equal(sp.Raw(), stripped) {
		t.Fatalf("stripping Typed: raw %s, %v", sp.Raw(), err)
	}
	r, err := StrippingManagedFields(Raw()).Decode(in)
	if err != nil || r.Name != "p" || !bytes.Equal(r.Raw(), stripped) {
		t.Fatalf("stripping Raw: raw %s, %v", r.Raw(), err)
	}
	for _, bad := range []string{`{`, `[]`, `{"metadata":{"name":1}}`} {
		if _, err := Typed[api.Pod]().Decode([]byte(bad)); !errors.Is(err, api.ErrDecode) {
			t.Errorf("Typed(%s): %v", bad, err)
		}
		if _, err := Raw().Decode([]byte(bad)); !errors.Is(err, api.ErrDecode) {
			t.Errorf("Raw(%s): %v", bad, err)
		}
		if _, err := StrippingManagedFields(Raw()).Decode([]byte(bad)); !errors.Is(err, api.ErrDecode) {
			t.Errorf("stripping Raw(%s): %v", bad, err)
		}
	}
}
