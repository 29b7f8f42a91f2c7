package difftest

import (
	"encoding/json"
	"strings"
	"testing"
)

func mustObjects(t *testing.T, docs ...string) []Object {
	t.Helper()
	var out []Object
	for _, d := range docs {
		var o Object
		if err := json.Unmarshal([]byte(d), &o); err != nil {
			t.Fatal(err)
		}
		out = append(out, o)
	}
	return out
}

const (
	rsA = `{"kind":"ReplicaSet","metadata":{"name":"web-5d8f7c9b4","namespace":"ns","uid":"u1","resourceVersion":"17",
		"generation":2,"creationTimestamp":"2025-01-01T00:00:00Z","managedFields":[{"manager":"x"}],
		"labels":{"app":"web","pod-template-hash":"5d8f7c9b4"},
		"annotations":{"deployment.kubernetes.io/revision":"1"},
		"ownerReferences":[{"kind":"Deployment","name":"web","uid":"d1","controller":true}]},
		"spec":{"selector":{"matchLabels":{"pod-template-hash":"5d8f7c9b4"}}},
		"status":{"conditions":[{"type":"X","lastTransitionTime":"2025-01-01T00:00:01Z"}]}}`
	podA = `{"kind":"Pod","metadata":{"name":"web-5d8f7c9b4-x7k2p","generateName":"web-5d8f7c9b4-","namespace":"ns","uid":"p1",
		"labels":{"pod-template-hash":"5d8f7c9b4"}},
		"spec":{"volumes":[{"name":"kube-api-access-ab12c"}]}}`
)

// The normaliser removes what the server assigns and what generated names
// and hashes randomise, and nothing else.
func TestNormalizeRules(t *testing.T) {
	snap, err := Normalize(mustObjects(t, rsA, podA))
	if err != nil {
		t.Fatal(err)
	}
	rs, ok := snap["ReplicaSet ns/web-<hash:rev 1>"]
	if !ok {
		t.Fatalf("keys %v: the ReplicaSet's hash is not replaced by its revision", snap.Keys())
	}
	pod, ok := snap["Pod ns/web-<hash:rev 1>-<rand>"]
	if !ok {
		t.Fatalf("keys %v: the pod's generated name is not normalised", snap.Keys())
	}
	for _, tc := range []struct {
		rule, text, absent, present string
	}{
		{"uid is server-assigned", rs, "u1", ""},
		{"resourceVersion is server-assigned", rs, "resourceVersion", ""},
		{"managedFields are server-kept", rs, "managedFields", ""},
		{"creationTimestamp is wall clock", rs, "2025-01-01T00:00:00Z", "creationTimestamp: <time>"},
		{"condition times are wall clock", rs, "00:00:01Z", "lastTransitionTime: <time>"},
		{"owner uids are server-assigned", rs, "d1", "name: web"},
		{"the template hash becomes the revision", rs, "5d8f7c9b4", "pod-template-hash: <hash:rev 1>"},
		{"generation counts spec writes and stays", rs, "", "generation: 2"},
		{"the revision annotation stays", rs, "", "deployment.kubernetes.io/revision: \"1\""},
		{"the pod's hash label follows its ReplicaSet", pod, "5d8f7c9b4", "pod-template-hash: <hash:rev 1>"},
		{"the admission volume suffix is random", pod, "ab12c", "kube-api-access-<rand>"},
	} {
		if tc.absent != "" && strings.Contains(tc.text, tc.absent) {
			t.Errorf("%s: %q still present in\n%s", tc.rule, tc.absent, tc.text)
		}
		if tc.present != "" && !strings.Contains(tc.text, tc.present) {
			t.Errorf("%s: %q missing from\n%s", tc.rule, tc.present, tc.text)
		}
	}
}

// Objects whose normalised keys collide are numbered in the order of their
// rendering, so equal multisets give equal snapshots whatever the list
// order, and the input is not modified.
func TestNormalizeCollidingKeysAndInput(t *testing.T) {
	p1 := `{"kind":"Pod","metadata":{"name":"web-aaaaa","generateName":"web-","namespace":"ns"},"status":{"phase":"Running"}}`
	p2 := `{"kind":"Pod","metadata":{"name":"web-bbbbb","generateName":"web-","namespace":"ns"},"status":{"phase":"Pending"}}`
	objs := mustObjects(t, p1, p2)
	s1, err := Normalize(objs)
	if err != nil {
		t.Fatal(err)
	}
	s2, err := Normalize(mustObjects(t, p2, p1))
	if err != nil {
		t.Fatal(err)
	}
	if len(s1) != 2 || s1["Pod ns/web-<rand> #1"] == "" || s1["Pod ns/web-<rand> #2"] == "" {
		t.Fatalf("keys %v, want #1 and #2", s1.Keys())
	}
	if !strings.Contains(s1["Pod ns/web-<rand> #1"], "Pending") {
		t.Errorf("#1 is not the rendering that sorts first:\n%s", s1["Pod ns/web-<rand> #1"])
	}
	if d := DiffSnapshots(s1, s2, nil); len(d) != 0 {
		t.Errorf("list order changed the snapshot: %v", d)
	}
	if objs[0]["metadata"].(Object)["name"] != "web-aaaaa" {
		t.Error("Normalize modified its input")
	}
	if objectKey(Object{"kind": "Namespace", "metadata": Object{"name": "n"}}) != "Namespace n" {
		t.Error("a cluster-scoped key has a namespace part")
	}
}

// A ReplicaSet without a revision still gets a stable placeholder.
func TestTemplateHashesWithoutRevision(t *testing.T) {
	objs := mustObjects(t,
		`{"kind":"ReplicaSet","metadata":{"name":"a-h1","labels":{"pod-template-hash":"h1"}}}`,
		`{"kind":"ReplicaSet","metadata":{"name":"a-h1b","labels":{"pod-template-hash":"h1"}}}`,
		`{"kind":"Pod","metadata":{"name":"p","labels":{"pod-template-hash":"h9"}}}`)
	got := templateHashes(objs)
	if len(got) != 1 || got["h1"] != "<hash:1>" {
		t.Errorf("templateHashes = %v, want only h1 → <hash:1>", got)
	}
}

// Grouping by key does not depend on how the renderings sort: an object
// of another key whose text sorts between two colliding ones does not
// split them.
func TestNormalizeGroupsByKeyFirst(t *testing.T) {
	// Renderings start with apiVersion, so q-11111's (v2) sorts between p-11111's
	// (v1) and p-22222's (v3).
	snap, err := Normalize(mustObjects(t,
		`{"apiVersion":"v1","kind":"Pod","metadata":{"name":"p-11111","generateName":"p-","namespace":"ns"}}`,
		`{"apiVersion":"v3","kind":"Pod","metadata":{"name":"p-22222","generateName":"p-","namespace":"ns"}}`,
		`{"apiVersion":"v2","kind":"Pod","metadata":{"name":"q-11111","generateName":"q-","namespace":"ns"}}`))
	if err != nil {
		t.Fatal(err)
	}
	want := "Pod ns/p-<rand> #1,Pod ns/p-<rand> #2,Pod ns/q-<rand>"
	if got := strings.Join(snap.Keys(), ","); got != want {
		t.Errorf("keys %s, want %s", got, want)
	}
}
