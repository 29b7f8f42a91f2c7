package api

import (
	"bytes"
	"encoding/json"
	"reflect"
	"testing"

	"github.com/kcmlab/kcm/kube/internal/jsonx"
)

// apiJSON decodes a JSON document for comparisons (numbers as json.Number).
func apiJSON(t *testing.T, s string) any {
	t.Helper()
	var v any
	if err := jsonx.UnmarshalNumbers([]byte(s), &v); err != nil {
		t.Fatalf("test JSON %s: %v", s, err)
	}
	return v
}

// TestDeepCopy: a copy shares nothing mutable with the original and still
// remembers the JSON it was read from.
func TestDeepCopy(t *testing.T) {
	const stored = `{"metadata":{"name":"p","labels":{"a":"1"}},"spec":{"containers":[{"name":"c","image":"i"}]}}`
	// Decoded as decode.Typed does: the struct, and the JSON it was read
	// from.
	p := &Pod{}
	if err := jsonx.Unmarshal([]byte(stored), p); err != nil {
		t.Fatal(err)
	}
	p.SetRaw([]byte(stored))
	cp, err := DeepCopy(p)
	if err != nil {
		t.Fatal(err)
	}
	cp.Labels["a"] = "2"
	cp.Spec.Containers[0].Image = "j"
	if p.Labels["a"] != "1" || p.Spec.Containers[0].Image != "i" {
		t.Fatal("changing the copy changed the original")
	}
	if string(cp.Raw()) != stored {
		t.Fatalf("copy raw %s", cp.Raw())
	}
	o, err := DecodeRawObject([]byte(stored))
	if err != nil {
		t.Fatal(err)
	}
	oc, err := DeepCopy(o)
	if err != nil || oc == o || oc.Name != "p" || string(oc.Raw()) != stored {
		t.Fatalf("raw copy %+v, %v", oc, err)
	}
	oc.Labels["a"] = "2"
	if o.Labels["a"] != "1" {
		t.Fatal("changing the raw copy's labels changed the original")
	}
}

// TestRawObject: exact JSON kept, metadata parsed; Edit makes a new object
// and leaves the original alone.
func TestRawObject(t *testing.T) {
	const stored = `{"apiVersion":"example.com/v1","kind":"Widget","metadata":{"name":"w","namespace":"ns","labels":{"a":"1"}},` +
		`"spec":{"size":3,"big":9007199254740993,"nested":{"list":[1,"two"]}}}`
	o, err := DecodeRawObject([]byte(stored))
	if err != nil {
		t.Fatal(err)
	}
	if o.Kind != "Widget" || o.APIVersion != "example.com/v1" || o.Key() != "ns/w" || o.Labels["a"] != "1" {
		t.Fatalf("header %+v", o)
	}
	if b, err := o.MarshalJSON(); err != nil || string(b) != stored {
		t.Fatalf("MarshalJSON = %s, %v", b, err)
	}
	if b, err := jsonx.Marshal(o); err != nil || string(b) != stored {
		t.Fatalf("Marshal = %s, %v", b, err)
	}
	fields := []struct {
		path  []string
		want  any
		found bool
	}{
		{[]string{"spec", "size"}, float64(3), true},
		{[]string{"spec", "nested", "list"}, []any{float64(1), "two"}, true},
		{[]string{"spec", "missing"}, nil, false},
		{[]string{"spec", "size", "deeper"}, nil, false},
		{[]string{"metadata", "name"}, "w", true},
	}
	for _, f := range fields {
		v, found, err := o.NestedField(f.path...)
		if err != nil || found != f.found || !reflect.DeepEqual(v, f.want) {
			t.Errorf("NestedField(%v) = %v, %v, %v", f.path, v, found, err)
		}
	}
	edited, err := o.Edit(func(m map[string]any) error {
		m["spec"].(map[string]any)["color"] = "blue"
		m["metadata"].(map[string]any)["labels"] = map[string]any{"b": "2"}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if string(o.Raw()) != stored || o.Labels["a"] != "1" {
		t.Fatal("Edit changed the original")
	}
	if edited.Labels["b"] != "2" || edited.Labels["a"] != "" {
		t.Fatalf("edited labels %v", edited.Labels)
	}
	// Numbers the edit did not touch are written back exactly: an int64
	// beyond 2^53 must not go through float64.
	want := `{"apiVersion":"example.com/v1","kind":"Widget","metadata":{"labels":{"b":"2"},"name":"w","namespace":"ns"},` +
		`"spec":{"big":9007199254740993,"color":"blue","nested":{"list":[1,"two"]},"size":3}}`
	if !reflect.DeepEqual(apiJSON(t, string(edited.Raw())), apiJSON(t, want)) {
		t.Fatalf("edited %s\nwant   %s", edited.Raw(), want)
	}
	stop := json.Unmarshal([]byte(`x`), new(any))
	if _, err := o.Edit(func(map[string]any) error { return stop }); err != stop {
		t.Fatalf("Edit error %v, want fn's error as is", err)
	}
	// Built in code: no raw JSON, encoded from the header.
	built := &RawObject{TypeMeta: TypeMeta{APIVersion: "v1", Kind: "ConfigMap"}, ObjectMeta: ObjectMeta{Name: "c"}}
	if b, err := built.MarshalJSON(); err != nil || !bytes.Contains(b, []byte(`"name":"c"`)) || !bytes.Contains(b, []byte(`"kind":"ConfigMap"`)) {
		t.Fatalf("built MarshalJSON = %s, %v", b, err)
	}
	n, err := NewRawObject(map[string]any{"kind": "Widget", "metadata": map[string]any{"name": "n"}})
	if err != nil || n.Name != "n" || n.Raw() == nil {
		t.Fatalf("NewRawObject = %+v, %v", n, err)
	}
}
