package decode

import (
	"errors"
	"reflect"
	"testing"

	"github.com/kcmlab/kcm/internal/testing/podgen"
	"github.com/kcmlab/kcm/kube/api"
	"github.com/kcmlab/kcm/kube/internal/jsonx"
)

// decodeRawReference is what decodeRaw must agree with: strip with
// StripManagedFields, then let json-iterator decode the whole object.
func decodeRawReference(data []byte, strip bool) (*api.RawObject, error) {
	if strip {
		cut, err := StripManagedFields(data)
		if err != nil {
			return nil, err
		}
		data = cut
	}
	return api.DecodeRawObject(data)
}

func sameRaw(t *testing.T, name string, got, want *api.RawObject) {
	t.Helper()
	if string(got.Raw()) != string(want.Raw()) {
		t.Errorf("%s: raw\n got %s\nwant %s", name, got.Raw(), want.Raw())
	}
	g, w := *got, *want
	g.SetRaw(nil)
	w.SetRaw(nil)
	if !reflect.DeepEqual(g, w) {
		t.Errorf("%s: decoded\n got %+v\nwant %+v", name, g, w)
	}
}

// TestDecodeRawMatchesFullDecode: the scanner-driven decoder yields the
// same object as decoding everything, with and without stripping.
func TestDecodeRawMatchesFullDecode(t *testing.T) {
	inputs := map[string]string{
		"no metadata":           `{"apiVersion":"v1","kind":"ConfigMap","data":{"a":"b"}}`,
		"null metadata":         `{"kind":"ConfigMap","metadata":null}`,
		"managedFields only":    `{"metadata":{"managedFields":[{"manager":"m"}]},"spec":{}}`,
		"managedFields first":   `{"metadata":{"managedFields":[{"manager":"m","fieldsV1":{"f:a":{}}}],"name":"a"}}`,
		"managedFields last":    `{"metadata":{"name":"a","managedFields":[]}}`,
		"managedFields between": `{"metadata":{"name":"a", "managedFields" : [ ] ,"namespace":"b"}}`,
		"escaped kind":          `{"apiVersion":"v1","kind":"Con\u0066igMap","metadata":{"name":"a\"b"}}`,
		"null kind":             `{"kind":null,"metadata":{"name":"a"}}`,
		"whitespace":            " {\n \"metadata\" : { \"name\" : \"a\" , \"labels\" : {\"x\":\"y\"} } } \n",
		"empty":                 `{}`,
		"everything":            `{"apiVersion":"apps/v1","kind":"ReplicaSet","metadata":{"name":"r","namespace":"n","uid":"u","resourceVersion":"7","generation":2,"creationTimestamp":"2025-01-02T03:04:05Z","deletionTimestamp":"2025-01-02T03:04:06Z","labels":{"a":"b"},"annotations":{"c":"d"},"ownerReferences":[{"apiVersion":"apps/v1","kind":"Deployment","name":"d","uid":"x","controller":true}],"finalizers":["f"]},"spec":{"replicas":1},"status":{"replicas":1}}`,
	}
	for i := 0; i < 8; i++ {
		inputs["podgen pod"+string(rune('0'+i))] = string(podgen.Pod(i * 7))
	}
	inputs["podgen replicaset"] = string(podgen.ReplicaSet(3))
	for name, in := range inputs {
		for _, strip := range []bool{false, true} {
			want, err := decodeRawReference([]byte(in), strip)
			if err != nil {
				t.Fatalf("%s: reference: %v", name, err)
			}
			got, err := decodeRaw([]byte(in), strip)
			if err != nil {
				t.Errorf("%s (strip %v): %v", name, strip, err)
				continue
			}
			sameRaw(t, name, got, want)
		}
	}
}

// TestDecodeRawErrors: malformed objects fail with ErrDecode.
func TestDecodeRawErrors(t *testing.T) {
	for _, in := range []string{
		``, `null`, `[]`, `"x"`, `{`, `{"a":1,}`, `{,"a":1}`, `{"a" 1}`, `{"a":}`, `{"a":1 "b":2}`,
		`{"metadata":{"name":"a"}} x`, `{"metadata":{"generation":"x"}}`, `{"metadata":{"name":1}}`,
		`{"metadata":{"managedFields":[],}}`, `{"kind":1}`, `{"metadata":{"name":"a}}`,
	} {
		for _, strip := range []bool{false, true} {
			if o, err := decodeRaw([]byte(in), strip); !errors.Is(err, api.ErrDecode) {
				t.Errorf("decodeRaw(%q, %v) = %+v, %v; want ErrDecode", in, strip, o, err)
			}
		}
	}
}

// TestStrippingRawCodecUsesFastPath: the codecs informers use go through
// decodeRaw and keep the input untouched.
func TestStrippingRawCodecUsesFastPath(t *testing.T) {
	in := podgen.Pod(1)
	orig := string(in)
	o, err := StrippingManagedFields(Raw()).Decode(in)
	if err != nil {
		t.Fatal(err)
	}
	want, _ := decodeRawReference([]byte(orig), true)
	sameRaw(t, "strip", o, want)
	if string(in) != orig {
		t.Fatal("input modified")
	}
}

// FuzzDecodeRaw: wherever the full decode accepts an object, decodeRaw
// accepts it and agrees; decodeRaw's errors wrap ErrDecode.
func FuzzDecodeRaw(f *testing.F) {
	f.Add([]byte(`{"apiVersion":"v1","kind":"Pod","metadata":{"name":"p","managedFields":[{}],"labels":{"a":"b"}}}`))
	f.Add([]byte(`{"metadata":{"name":"a"},"metadata":{"namespace":"b"}}`))
	f.Add([]byte(`{"Metadata":{"name":"a"}}`))
	f.Add(podgen.Pod(0))
	f.Fuzz(func(t *testing.T, data []byte) {
		for _, strip := range []bool{false, true} {
			got, err := decodeRaw(data, strip)
			if err != nil && !errors.Is(err, api.ErrDecode) {
				t.Fatalf("error %v does not wrap ErrDecode", err)
			}
			want, werr := decodeRawReference(data, strip)
			if werr != nil || (len(data) > 0 && jsonx.SkipWS(data, 0) < len(data) && data[jsonx.SkipWS(data, 0)] != '{') {
				continue // shallow checks may accept what the full decode rejects; non-objects differ
			}
			if err != nil {
				t.Fatalf("decodeRaw(%q, %v): %v; the full decode accepts it", data, strip, err)
			}
			sameRaw(t, "fuzz", got, want)
		}
	})
}

// mapID identifies a map value, so tests can tell a shared map from an
// equal copy.
func mapID(m map[string]string) uintptr { return reflect.ValueOf(m).Pointer() }

// TestRawObjectsShareEqualMaps: RawObjects decoded from the same labels
// bytes share one map (they are immutable); typed objects never do; an
// object whose metadata repeats "labels" (the decoder merges the two) gets
// its own map.
func TestRawObjectsShareEqualMaps(t *testing.T) {
	codec := StrippingManagedFields(Raw())
	decode := func(data []byte) *api.RawObject {
		t.Helper()
		o, err := codec.Decode(data)
		if err != nil {
			t.Fatal(err)
		}
		return o
	}
	// Pods 0..3 belong to one ReplicaSet: same labels and annotations.
	a, b := decode(podgen.Pod(0)), decode(podgen.Pod(1))
	if !reflect.DeepEqual(a.Labels, b.Labels) || mapID(a.Labels) != mapID(b.Labels) {
		t.Errorf("replica labels not shared: %v %v", a.Labels, b.Labels)
	}
	if mapID(a.Annotations) != mapID(b.Annotations) {
		t.Error("replica annotations not shared")
	}
	if other := decode(podgen.Pod(4)); mapID(other.Labels) == mapID(a.Labels) {
		t.Error("different labels share a map")
	}
	typed := StrippingManagedFields(Typed[api.Pod]())
	p1, _ := typed.Decode(podgen.Pod(0))
	p2, _ := typed.Decode(podgen.Pod(1))
	if mapID(p1.Labels) == mapID(p2.Labels) || mapID(p1.Labels) == mapID(a.Labels) {
		t.Error("typed objects share label maps")
	}
	dup := decode([]byte(`{"metadata":{"labels":{"app":"x","pod-template-hash":"h"},"labels":{"app":"y"}}}`))
	plain := decode([]byte(`{"metadata":{"labels":{"app":"y"}}}`))
	if dup.Labels["app"] != "y" || dup.Labels["pod-template-hash"] != "h" || mapID(dup.Labels) == mapID(plain.Labels) {
		t.Errorf("repeated labels key: %v", dup.Labels)
	}
	if c, err := api.DeepCopy(a); err != nil || mapID(c.Labels) == mapID(a.Labels) {
		t.Errorf("DeepCopy shares the labels map (%v)", err)
	}
}

// TestSharedMapsUnderConcurrentDecoding: decoders on many goroutines
// publish and pick up shared maps while readers range over them (run with
// -race).
func TestSharedMapsUnderConcurrentDecoding(t *testing.T) {
	pods := make([][]byte, 64)
	for i := range pods {
		pods[i] = podgen.Pod(i)
	}
	codec := StrippingManagedFields(Raw())
	done := make(chan int)
	for g := 0; g < 4; g++ {
		go func() {
			n := 0
			for round := 0; round < 20; round++ {
				for _, p := range pods {
					o, err := codec.Decode(p)
					if err != nil {
						t.Error(err)
						break
					}
					for k, v := range o.Labels {
						n += len(k) + len(v)
					}
				}
			}
			done <- n
		}()
	}
	first := <-done
	for g := 1; g < 4; g++ {
		if n := <-done; n != first {
			t.Errorf("goroutine saw %d label bytes, another %d", n, first)
		}
	}
}
