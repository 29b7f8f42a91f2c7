package decode

import (
	"bytes"
	"encoding/json"
	"errors"
	"reflect"
	"testing"
	"unsafe"

	"github.com/kcmlab/kcm/kube/api"
	"github.com/kcmlab/kcm/kube/internal/jsonx"
)

func FuzzStripManagedFields(f *testing.F) {
	for _, s := range []string{
		`{"metadata":{"managedFields":` + rcMF + `,"name":"a"},"data":{}}`,
		`{"metadata":{"name":"a","managedFields":[],"uid":"u"}}`,
		`{"metadata":{"name":"a","managedFields":null}}`,
		`{"spec":{"managedFields":1},"metadata":{"annotations":{"managedFields":"x"}}}`,
		"{ \"metadata\" : { \"managedFields\" : [ { } ] } }",
		`{"metadata":{"managedFields":[}`,
		`{"metadata":"x","metadata":{"managedFields":[]}}`,
		`[]`,
		``,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		in := bytes.Clone(data)
		out, err := StripManagedFields(data)
		if !bytes.Equal(in, data) {
			t.Fatal("input modified")
		}
		first := jsonx.SkipWS(data, 0)
		validObject := json.Valid(data) && first < len(data) && data[first] == '{'
		if err != nil {
			if !errors.Is(err, api.ErrDecode) {
				t.Fatalf("error %v does not wrap ErrDecode", err)
			}
			if validObject {
				t.Fatalf("valid object %s refused: %v", data, err)
			}
			return
		}
		if !validObject || bytes.Contains(data, []byte(`\u`)) || hasDuplicateKeys(data) {
			return // the oracle below needs keys that mean what they spell, once
		}
		if !json.Valid(out) {
			t.Fatalf("output is not valid JSON: %s", out)
		}
		var want, got map[string]any
		if err := json.Unmarshal(data, &want); err != nil {
			t.Fatal(err)
		}
		if meta, ok := want["metadata"].(map[string]any); ok {
			delete(meta, "managedFields")
		}
		if err := json.Unmarshal(out, &got); err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(got, want) {
			t.Fatalf("stripped %s\nto       %s", data, out)
		}
	})
}

// hasDuplicateKeys reports an object anywhere in a valid JSON document
// with a key twice (encoding/json keeps the last, StripManagedFields looks
// at the first).
func hasDuplicateKeys(data []byte) bool {
	dec := json.NewDecoder(bytes.NewReader(data))
	type frame struct {
		keys    map[string]bool
		wantKey bool
	}
	var stack []*frame
	for {
		tok, err := dec.Token()
		if err != nil {
			return false
		}
		var top *frame
		if len(stack) > 0 {
			top = stack[len(stack)-1]
		}
		isKey := top != nil && top.keys != nil && top.wantKey
		if top != nil && top.keys != nil {
			top.wantKey = !top.wantKey
		}
		switch v := tok.(type) {
		case json.Delim:
			switch v {
			case '{':
				stack = append(stack, &frame{keys: map[string]bool{}, wantKey: true})
			case '[':
				stack = append(stack, &frame{})
			default:
				stack = stack[:len(stack)-1]
				if len(stack) > 0 && stack[len(stack)-1].keys != nil {
					stack[len(stack)-1].wantKey = true
				}
			}
			continue
		case string:
			if isKey {
				if top.keys[v] {
					return true
				}
				top.keys[v] = true
			}
		}
	}
}

func FuzzDecodeRawObject(f *testing.F) {
	for _, s := range []string{
		`{"apiVersion":"v1","kind":"Pod","metadata":{"name":"p","namespace":"ns","labels":{"a":"b"},"ownerReferences":[{"uid":"u","controller":true}]}}`,
		`{"metadata":{"creationTimestamp":"2024-01-02T03:04:05Z","deletionTimestamp":null,"generation":3}}`,
		`{"metadata":{"creationTimestamp":"yesterday"}}`,
		`{"metadata":{"generation":1e400}}`,
		`{"metadata":{"finalizers":["a",1]}}`,
		`{}`,
		`null`,
		`{`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		o, err := api.DecodeRawObject(data)
		if err != nil {
			if !errors.Is(err, api.ErrDecode) {
				t.Fatalf("error %v does not wrap ErrDecode", err)
			}
			return
		}
		if b, err := o.MarshalJSON(); err != nil || !bytes.Equal(b, data) {
			t.Fatalf("MarshalJSON = %q, %v; want the input", b, err)
		}
		_ = o.Key()
		_ = o.ControllerRef()
		c, err := api.DeepCopy(o)
		if err != nil || c.Key() != o.Key() || c.ResourceVersion != o.ResourceVersion {
			t.Fatalf("DeepCopy of a decoded object: %+v, %v", c, err)
		}
	})
}

// FuzzCompactRebuildsTheJSON: whatever JSON Typed decodes into a Pod,
// Compact decodes too, into the same typed fields, and its Raw is the
// input as parsed JSON (kcm's rule: a read-modify-write keeps every
// field, modelled or not).
func FuzzCompactRebuildsTheJSON(f *testing.F) {
	for _, s := range []string{
		`{"apiVersion":"v1","kind":"Pod","metadata":{"name":"p","labels":{"a":"b"},"x":1},"spec":{"containers":[{"name":"c","y":[1,{"z":null}]}]}}`,
		`{"metadata":{"generation":0,"labels":{}},"spec":{"hostNetwork":false,"priority":0,"containers":[null]},"status":{"containerStatuses":[{"name":"c"}]}}`,
		`{"metadata":{"creationTimestamp":"2024-01-02T03:04:05.5Z","name":null},"status":{"startTime":"0001-01-01T00:00:00Z","conditions":[{"type":"Ready","lastProbeTime":null}]}}`,
		`{"spec":{"containers":[{"name":"c","livenessProbe":{"httpGet":{"port":"8080"},"tcpSocket":{"port":-0}},"resources":{"limits":{"cpu":null}}}]}}`,
		`{"metadata":{"name":"a","name":"b","labels":{"k":"1","k":null}}}`,
		"{ \"spec\" : { \"volumes\" : [ { \"name\" : \"v\" , \"projected\" : { \"sources\" : [ { } ] } } ] } }",
		`{"metadata":{"n\u0061me":"x"},"spec":{"nodeName":"caf\u00e9"}}`,
		`{}`,
		`{"kind":"Pod","metadata":{"name":"p","managedFields":[{"manager":"m","fieldsV1":{"f:spec":{}}}],"uid":"u"},"spec":{}}`,
		`{"metadata":{"managedFields":[]}}`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		in := bytes.Clone(data)
		want, err := Typed[api.Pod]().Decode(bytes.Clone(data))
		got, cerr := Compact[api.Pod]().Decode(data)
		if !bytes.Equal(in, data) {
			t.Fatal("input modified")
		}
		if err != nil {
			if cerr == nil || !errors.Is(cerr, api.ErrDecode) {
				t.Fatalf("Typed refused %s (%v); Compact: %v", data, err, cerr)
			}
			return
		}
		if cerr != nil {
			t.Fatalf("Typed decodes %s, Compact refuses it: %v", data, cerr)
		}
		// Cutting managedFields: Compact cuts into a scratch buffer,
		// reading only up to metadata; the result must be Typed's.
		sw, serr := StrippingManagedFields(Typed[api.Pod]()).Decode(bytes.Clone(data))
		sg, sgerr := Borrowed(StrippingManagedFields(Compact[api.Pod]()), data)
		if (serr == nil) != (sgerr == nil) {
			t.Fatalf("stripping %s: Typed %v, Compact %v", data, serr, sgerr)
		}
		if serr == nil {
			a, _ := jsonx.Marshal(sg)
			b, _ := jsonx.Marshal(sw)
			if !bytes.Equal(a, b) {
				t.Fatalf("stripping %s, typed fields differ:\n%s\n%s", data, a, b)
			}
		}
		a, _ := jsonx.Marshal(got)
		b, _ := jsonx.Marshal(want)
		if !bytes.Equal(a, b) {
			t.Fatalf("typed fields of %s differ:\n%s\n%s", data, a, b)
		}
		var orig any
		if !json.Valid(data) || jsonx.UnmarshalNumbers(data, &orig) != nil {
			return // the oracle needs the input as parsed JSON
		}
		raw, err := got.Original()
		if err != nil {
			t.Fatalf("Original of %s: %v", data, err)
		}
		var rebuilt any
		if err := jsonx.UnmarshalNumbers(raw, &rebuilt); err != nil {
			t.Fatalf("rebuilt JSON %s: %v", raw, err)
		}
		if !reflect.DeepEqual(orig, rebuilt) {
			t.Fatalf("input   %s\nrebuilt %s", data, raw)
		}
	})
}

// FuzzFastPathMatchesSlowPath: whenever Compact's fast path accepts an
// object, json-iterator accepts it too, into the same typed fields, and
// the two remainders rebuild the same JSON — with or without a hint
// (the previous object) to share from.
func FuzzFastPathMatchesSlowPath(f *testing.F) {
	for _, s := range []string{
		`{"apiVersion":"v1","kind":"Pod","metadata":{"name":"p","labels":{"a":"b"},"x":1},"spec":{"containers":[{"name":"c","y":[1,{"z":null}]}]}}`,
		`{"metadata":{"generation":0,"labels":{}},"spec":{"hostNetwork":false,"priority":0,"containers":[null],"terminationGracePeriodSeconds":30},"status":{"containerStatuses":[{"name":"c"}]}}`,
		`{"metadata":{"creationTimestamp":"2024-01-02T03:04:05.5Z","name":null,"annotations":{"a":"x\"y"}},"status":{"startTime":"2024-01-02T03:04:05Z","conditions":[{"type":"Ready","lastProbeTime":null}]}}`,
		`{"spec":{"containers":[{"name":"c","livenessProbe":{"httpGet":{"port":"8080"},"tcpSocket":{"port":-1}},"resources":{"limits":{"cpu":"1"}}}],"priority":-2147483648}}`,
		`{"metadata":{"name":"a","labels":{"k":"1","k":"2"}},"spec":{"nodeSelector":{},"volumes":[]}}`,
		"{ \"spec\" : { \"volumes\" : [ { \"name\" : \"v\" , \"projected\" : { \"sources\" : [ { } ] , \"defaultMode\" : 420 } } ] } }",
		`{"status":{"containerStatuses":[{"name":"c","state":{"running":{"startedAt":"2024-01-02T03:04:05Z"}},"ready":true,"restartCount":3,"started":true}]}}`,
		`{"metadata":{"generation":-7},"spec":{"priority":-5,"activeDeadlineSeconds":-1}}`,
		`{"metadata":{"deletionGracePeriodSeconds":9223372036854775807},"spec":{"priority":2147483648}}`,
	} {
		f.Add([]byte(s), []byte(`{"metadata":{"name":"p","labels":{"a":"b"}},"spec":{"containers":[{"name":"c"}]}}`))
	}
	t := compactTypeOf[api.Pod]()
	f.Fuzz(func(tt *testing.T, data, prev []byte) {
		var hint unsafe.Pointer
		if h, err := Compact[api.Pod]().Decode(bytes.Clone(prev)); err == nil {
			hint = unsafe.Pointer(h)
		}
		fast := new(api.Pod)
		fd := fastDec{remScan: remScan{d: data}}
		n, err := fd.object(t.schema, unsafe.Pointer(fast), hint)
		if err != nil {
			return // declined: the slow path decides
		}
		slow := new(api.Pod)
		if err := jsonx.Unmarshal(data, slow); err != nil {
			tt.Fatalf("the fast path accepts %s, json-iterator refuses it: %v", data, err)
		}
		a, _ := jsonx.Marshal(fast)
		b, _ := jsonx.Marshal(slow)
		if !bytes.Equal(a, b) {
			tt.Fatalf("typed fields of %s:\nfast %s\nslow %s", data, a, b)
		}
		r := remScan{d: data}
		sn, err := r.object(t.schema)
		if err != nil {
			tt.Fatalf("the fast path describes %s, the slow path cannot: %v", data, err)
		}
		fastJSON, err1 := t.shareRemainder(fd.out, n).rebuild(unsafe.Pointer(fast))
		slowJSON, err2 := t.shareRemainder(r.out, sn).rebuild(unsafe.Pointer(slow))
		if err1 != nil || err2 != nil {
			tt.Fatalf("rebuild: %v, %v (ops %s)", err1, err2, fd.out)
		}
		var fj, sj any
		if jsonx.UnmarshalNumbers(fastJSON, &fj) != nil || jsonx.UnmarshalNumbers(slowJSON, &sj) != nil || !reflect.DeepEqual(fj, sj) {
			tt.Fatalf("rebuilt JSON of %s:\nfast %s\nslow %s", data, fastJSON, slowJSON)
		}
	})
}
