package rest

import (
	"bytes"
	"reflect"
	"testing"

	"github.com/kcmlab/kcm/kube/api"
	"github.com/kcmlab/kcm/kube/api/decode"
	"github.com/kcmlab/kcm/kube/internal/jsonx"
)

// rcJSON decodes a JSON document for comparisons (numbers as json.Number).
func rcJSON(t *testing.T, s string) any {
	t.Helper()
	var v any
	if err := jsonx.UnmarshalNumbers([]byte(s), &v); err != nil {
		t.Fatalf("test JSON %s: %v", s, err)
	}
	return v
}

// rcApplyMergePatch applies an RFC 7386 merge patch, the way the apiserver
// applies application/merge-patch+json.
func rcApplyMergePatch(target, patch any) any {
	p, ok := patch.(map[string]any)
	if !ok {
		return patch
	}
	t, ok := target.(map[string]any)
	if !ok {
		t = map[string]any{}
	}
	out := map[string]any{}
	for k, v := range t {
		out[k] = v
	}
	for k, v := range p {
		if v == nil {
			delete(out, k)
		} else {
			out[k] = rcApplyMergePatch(out[k], v)
		}
	}
	return out
}

// TestCreateMergePatch: the patch holds changed and new keys, null for
// removed ones, recurses into objects and replaces arrays whole (RFC 7386,
// which is what application/merge-patch+json means to the apiserver).
// Applying it to the original gives the modified document.
func TestCreateMergePatch(t *testing.T) {
	tests := []struct {
		name, orig, mod, want string
	}{
		{"equal", `{"a":1,"b":{"c":[1,2]}}`, `{"b":{"c":[1,2]},"a":1}`, `{}`},
		{"scalar changed", `{"a":1,"b":"x"}`, `{"a":2,"b":"x"}`, `{"a":2}`},
		{"key added", `{"a":1}`, `{"a":1,"b":{"c":true}}`, `{"b":{"c":true}}`},
		{"key removed", `{"a":1,"b":2}`, `{"a":1}`, `{"b":null}`},
		{"nested change", `{"spec":{"replicas":1,"paused":false}}`, `{"spec":{"replicas":3,"paused":false}}`, `{"spec":{"replicas":3}}`},
		{"nested removal", `{"metadata":{"labels":{"a":"1","b":"2"}}}`, `{"metadata":{"labels":{"a":"1"}}}`, `{"metadata":{"labels":{"b":null}}}`},
		{"array replaced whole", `{"a":[1,2,3]}`, `{"a":[1,2,4]}`, `{"a":[1,2,4]}`},
		{"object becomes scalar", `{"a":{"b":1}}`, `{"a":"s"}`, `{"a":"s"}`},
		{"scalar becomes object", `{"a":"s"}`, `{"a":{"b":1}}`, `{"a":{"b":1}}`},
		{"big integers exact", `{"n":9007199254740993}`, `{"n":9007199254740995}`, `{"n":9007199254740995}`},
		{"number spelling", `{"n":1.0}`, `{"n":1}`, `{"n":1}`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := CreateMergePatch([]byte(tc.orig), []byte(tc.mod))
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(rcJSON(t, string(got)), rcJSON(t, tc.want)) {
				t.Fatalf("patch %s, want %s", got, tc.want)
			}
			if applied := rcApplyMergePatch(rcJSON(t, tc.orig), rcJSON(t, string(got))); !reflect.DeepEqual(applied, rcJSON(t, tc.mod)) {
				t.Fatalf("original + patch = %v, want %s", applied, tc.mod)
			}
		})
	}
	for _, bad := range [][2]string{{`{`, `{}`}, {`{}`, `[1]`}, {`3`, `{}`}, {`{}`, ``}} {
		if _, err := CreateMergePatch([]byte(bad[0]), []byte(bad[1])); err == nil {
			t.Errorf("CreateMergePatch(%s, %s) succeeded", bad[0], bad[1])
		}
	}
}

// TestMergeKnown: the three-way merge behind a typed Update. orig is what
// the server sent, before its typed projection, after the caller's typed
// object. Design rule: unknown fields survive a read-modify-write, and
// what the caller did not change reads as the server wrote it, empty
// objects included (issue 25).
func TestMergeKnown(t *testing.T) {
	tests := []struct {
		name, orig, before, after, want string
	}{
		{"unknown field kept", `{"a":1,"x":9}`, `{"a":1}`, `{"a":2}`, `{"a":2,"x":9}`},
		{"known field removed", `{"a":1,"b":2,"x":9}`, `{"a":1,"b":2}`, `{"a":1}`, `{"a":1,"x":9}`},
		{"known field added", `{"a":1,"x":9}`, `{"a":1}`, `{"a":1,"c":{"d":1}}`, `{"a":1,"c":{"d":1},"x":9}`},
		{"nested unknown kept", `{"spec":{"r":1,"u":true}}`, `{"spec":{"r":1}}`, `{"spec":{"r":3}}`, `{"spec":{"r":3,"u":true}}`},
		{"map entry removed", `{"labels":{"a":"1","b":"2"}}`, `{"labels":{"a":"1","b":"2"}}`, `{"labels":{"a":"1"}}`, `{"labels":{"a":"1"}}`},
		{"equal-length array merged element-wise",
			`{"containers":[{"name":"c","image":"v1","u":1},{"name":"d","image":"v1","u":2}]}`,
			`{"containers":[{"name":"c","image":"v1"},{"name":"d","image":"v1"}]}`,
			`{"containers":[{"name":"c","image":"v2"},{"name":"d","image":"v1"}]}`,
			`{"containers":[{"name":"c","image":"v2","u":1},{"name":"d","image":"v1","u":2}]}`},
		{"resized array taken as is",
			`{"containers":[{"name":"c","u":1}]}`, `{"containers":[{"name":"c"}]}`, `{"containers":[{"name":"c"},{"name":"d"}]}`,
			`{"containers":[{"name":"c"},{"name":"d"}]}`},
		{"scalar array element changed", `{"f":["a","b"]}`, `{"f":["a","b"]}`, `{"f":["a","c"]}`, `{"f":["a","c"]}`},
		{"object replaced by scalar", `{"a":{"u":1}}`, `{"a":{}}`, `{"a":"s"}`, `{"a":"s"}`},
		{"unknown under a key the caller sets anew", `{"x":{"u":1}}`, `{}`, `{"x":{"k":2}}`, `{"x":{"k":2}}`},
		{"empty object kept", `{"sc":{},"r":1}`, `{"r":1}`, `{"r":2}`, `{"sc":{},"r":2}`},
		{"projection's empty object not added", `{"r":1}`, `{"r":1,"res":{},"n":0}`, `{"r":2,"res":{},"n":0}`, `{"r":2}`},
		{"projection's member set by the caller", `{"r":1}`, `{"r":1,"res":{}}`, `{"r":1,"res":{"cpu":"1"}}`, `{"r":1,"res":{"cpu":"1"}}`},
		{"big integer untouched", `{"n":9007199254740993,"a":1}`, `{"a":1}`, `{"a":2}`, `{"a":2,"n":9007199254740993}`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			orig := rcJSON(t, tc.orig)
			got := mergeKnown(orig, rcJSON(t, tc.before), rcJSON(t, tc.after))
			if !reflect.DeepEqual(got, rcJSON(t, tc.want)) {
				b, _ := jsonx.Marshal(got)
				t.Fatalf("merge = %s, want %s", b, tc.want)
			}
			if !reflect.DeepEqual(orig, rcJSON(t, tc.orig)) {
				t.Fatal("orig modified")
			}
		})
	}
}

// TestEncodeForWrite: what Update sends for each kind of object.
func TestEncodeForWrite(t *testing.T) {
	const stored = `{"kind":"ConfigMap","metadata":{"name":"a","resourceVersion":"3","x":1},"data":{"k":"v"},"y":[true]}`
	t.Run("typed, read from the server: merged", func(t *testing.T) {
		cm, err := decode.Typed[api.ConfigMap]().Decode([]byte(stored))
		if err != nil {
			t.Fatal(err)
		}
		cm.Data = map[string]string{"k2": "v2"}
		got, err := encodeForWrite(decode.Typed[api.ConfigMap](), cm)
		if err != nil {
			t.Fatal(err)
		}
		// No "creationTimestamp": null: the typed ConfigMap writes one, the
		// stored object has none, and the caller did not set it.
		want := `{"kind":"ConfigMap","metadata":{"name":"a","resourceVersion":"3","x":1},"data":{"k2":"v2"},"y":[true]}`
		if !reflect.DeepEqual(rcJSON(t, string(got)), rcJSON(t, want)) {
			t.Fatalf("body %s, want %s", got, want)
		}
	})
	t.Run("typed, built in code: encoded", func(t *testing.T) {
		cm := &api.ConfigMap{ObjectMeta: api.ObjectMeta{Name: "a"}, Data: map[string]string{"k": "v"}}
		got, err := encodeForWrite(decode.Typed[api.ConfigMap](), cm)
		want, _ := jsonx.Marshal(cm)
		if err != nil || !bytes.Equal(got, want) {
			t.Fatalf("body %s, %v; want %s", got, err, want)
		}
	})
	t.Run("raw: as is", func(t *testing.T) {
		o, err := api.DecodeRawObject([]byte(stored))
		if err != nil {
			t.Fatal(err)
		}
		got, err := encodeForWrite(decode.Raw(), o)
		if err != nil || string(got) != stored {
			t.Fatalf("body %s, %v", got, err)
		}
	})
}
