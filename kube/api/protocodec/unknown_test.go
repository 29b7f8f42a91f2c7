package protocodec

import (
	"bytes"
	"reflect"
	"testing"

	"github.com/kcmlab/kcm/kube/api"
)

// step picks the index-th occurrence of field num, a message.
type step struct {
	num   int32
	index int
}

// inject returns message b with extra appended to the nested message that
// path leads to (b itself for an empty path), lengths fixed on the way up.
func inject(t testing.TB, b []byte, path []step, extra []byte) []byte {
	t.Helper()
	if len(path) == 0 {
		return append(append([]byte(nil), b...), extra...)
	}
	spans, err := scan(b)
	if err != nil {
		t.Fatal(err)
	}
	var out []byte
	seen, found := 0, false
	for _, s := range spans {
		if s.num == path[0].num {
			if seen == path[0].index {
				p, err := payload(b, s)
				if err != nil {
					t.Fatal(err)
				}
				out = appendString(out, s.num, string(inject(t, p, path[1:], extra)))
				seen++
				found = true
				continue
			}
			seen++
		}
		out = append(out, b[s.start:s.end]...)
	}
	if !found {
		t.Fatalf("no field %d #%d", path[0].num, path[0].index)
	}
	return out
}

// unknownFields are fields no kcm struct models, of every wire type: a
// varint, a string, a fixed64, a fixed32 and a group holding a varint.
func unknownFields() []byte {
	var b []byte
	b = appendVarint(appendKey(b, 900, wireVarint), 42)
	b = appendString(b, 901, "kept by kcm")
	b = append(appendKey(b, 902, wireFixed64), 1, 2, 3, 4, 5, 6, 7, 8)
	b = append(appendKey(b, 903, wireFixed32), 9, 10, 11, 12)
	b = appendKey(b, 904, wireStart)
	b = appendVarint(appendKey(b, 1, wireVarint), 7)
	return appendKey(b, 904, wireEnd)
}

// podDepths are places in the pod vector: the pod, its metadata and an
// owner reference, the spec, a container (of two), its resources, an env
// var's source, a probe's handler (a message kcm flattens into Probe), a
// volume's source and a configMap source's LocalObjectReference (both
// flattened too), the status, a condition, a container status's running
// state and a Time (startTime).
var podDepths = map[string][]step{
	"pod":                              nil,
	"metadata":                         {{1, 0}},
	"ownerReference":                   {{1, 0}, {13, 0}},
	"spec":                             {{2, 0}},
	"container[1]":                     {{2, 0}, {2, 1}},
	"container[0].resources":           {{2, 0}, {2, 0}, {8, 0}},
	"env[2].valueFrom":                 {{2, 0}, {2, 0}, {7, 2}, {3, 0}},
	"livenessProbe.handler":            {{2, 0}, {2, 0}, {10, 0}, {1, 0}},
	"volume[5].source":                 {{2, 0}, {1, 5}, {2, 0}},
	"configMap.localObjectReference":   {{2, 0}, {1, 5}, {2, 0}, {19, 0}, {1, 0}},
	"status":                           {{3, 0}},
	"condition[1]":                     {{3, 0}, {2, 1}},
	"containerStatus[0].state.running": {{3, 0}, {8, 0}, {2, 0}, {2, 0}},
	"startTime":                        {{3, 0}, {7, 0}},
}

// injectAll injects unknownFields at every place of depths.
func injectAll(t testing.TB, b []byte, depths map[string][]step) []byte {
	for _, path := range depths {
		b = inject(t, b, path, unknownFields())
	}
	return b
}

// TestUnknownFieldsKept: fields kcm does not model, of every wire type,
// injected at every depth of a pod, are skipped by Unmarshal and survive
// MarshalMerge after a change elsewhere, in their places: the result is
// upstream's bytes for the change with the same injections.
func TestUnknownFieldsKept(t *testing.T) {
	pb, plain := decodeVector(t, "pod")
	injected := injectAll(t, pb, podDepths)
	before := &api.Pod{}
	if err := Unmarshal(injected, before); err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(before, plain) {
		t.Fatalf("unknown fields change what Unmarshal gives: %s", diff("", reflect.ValueOf(before), reflect.ValueOf(plain)))
	}
	if out, err := MarshalMerge(injected, before, before); err != nil || !bytes.Equal(out, injected) {
		t.Fatalf("unchanged merge is not the message as read (err %v)", err)
	}
	for _, name := range []string{"pod-image", "pod-env-value", "pod-volume-cm-name", "pod-probe-port",
		"pod-condition-status", "pod-label-add", "pod-label-delete", "pod-deletion", "pod-requests", "pod-running-started"} {
		t.Run(name, func(t *testing.T) {
			after, err := api.DeepCopy(api.Object(before))
			if err != nil {
				t.Fatal(err)
			}
			vectorChanges[name].change(after)
			out, err := MarshalMerge(injected, before, after)
			if err != nil {
				t.Fatal(err)
			}
			want := injectAll(t, readFile(t, "testdata/changes/"+name+".pb"), podDepths)
			if !bytes.Equal(out, want) {
				t.Fatalf("got %d bytes, want %d; first difference at %d", len(out), len(want), firstDiff(out, want))
			}
		})
	}
}

// TestUnknownFieldsDeep: the same for a Deployment's pod template, a
// container six messages deep, and for a ReplicaSet's status condition.
func TestUnknownFieldsDeep(t *testing.T) {
	for _, c := range []struct {
		vector, change string
		depths         map[string][]step
	}{
		{"deployment", "deployment-template-image", map[string][]step{
			"template.container[1]":  {{2, 0}, {3, 0}, {2, 0}, {2, 1}},
			"template.container[0]":  {{2, 0}, {3, 0}, {2, 0}, {2, 0}},
			"template.metadata":      {{2, 0}, {3, 0}, {1, 0}},
			"strategy.rollingUpdate": {{2, 0}, {4, 0}, {2, 0}},
			"status.condition[0]":    {{3, 0}, {6, 0}},
		}},
		{"replicaset", "replicaset-scale", map[string][]step{
			"spec":                {{2, 0}},
			"status":              {{3, 0}},
			"status.condition[0]": {{3, 0}, {6, 0}},
		}},
	} {
		t.Run(c.change, func(t *testing.T) {
			pb, _ := decodeVector(t, c.vector)
			injected := injectAll(t, pb, c.depths)
			before := vectorKinds[c.vector]()
			if err := Unmarshal(injected, before); err != nil {
				t.Fatal(err)
			}
			after, err := api.DeepCopy(before)
			if err != nil {
				t.Fatal(err)
			}
			vectorChanges[c.change].change(after)
			out, err := MarshalMerge(injected, before, after)
			if err != nil {
				t.Fatal(err)
			}
			want := injectAll(t, readFile(t, "testdata/changes/"+c.change+".pb"), c.depths)
			if !bytes.Equal(out, want) {
				t.Fatalf("got %d bytes, want %d; first difference at %d", len(out), len(want), firstDiff(out, want))
			}
		})
	}
}

// TestLengthChangeWritesAfter: a repeated message whose length changed is
// written from after alone, as kube/rest's JSON merge does: the unknown
// fields of its elements go, the rest of the object keeps its own.
func TestLengthChangeWritesAfter(t *testing.T) {
	pb, _ := decodeVector(t, "pod")
	depths := map[string][]step{"condition[1]": {{3, 0}, {2, 1}}, "status": {{3, 0}}}
	injected := injectAll(t, pb, depths)
	before := &api.Pod{}
	if err := Unmarshal(injected, before); err != nil {
		t.Fatal(err)
	}
	after, err := api.DeepCopy(before)
	if err != nil {
		t.Fatal(err)
	}
	vectorChanges["pod-condition-append"].change(after)
	out, err := MarshalMerge(injected, before, after)
	if err != nil {
		t.Fatal(err)
	}
	want := inject(t, readFile(t, "testdata/changes/pod-condition-append.pb"), depths["status"], unknownFields())
	if !bytes.Equal(out, want) {
		t.Fatalf("got %d bytes, want %d; first difference at %d", len(out), len(want), firstDiff(out, want))
	}
}
