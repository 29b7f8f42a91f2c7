package main

import (
	"encoding/json"
	"fmt"
	"testing"
)

// TestDemoScriptCycles: the script only touches objects that exist at that
// point of the cycle, and deletes all it created, so the cycle can repeat
// forever without AlreadyExists or NotFound.
func TestDemoScriptCycles(t *testing.T) {
	live := map[string]bool{}
	for i := range 2 * len(demoScript) {
		s := demoStepAt(i)
		id := s.Kind + "/" + s.Name
		switch s.Verb {
		case demoCreate:
			if live[id] {
				t.Errorf("step %d: create %s, which exists", i, id)
			}
			live[id] = true
		case demoDelete:
			if !live[id] {
				t.Errorf("step %d: delete %s, which does not exist", i, id)
			}
			delete(live, id)
		default:
			if !live[id] {
				t.Errorf("step %d: %s %s, which does not exist", i, s.Verb, id)
			}
			if s.Verb == demoAdopt && !live["configmap/"+s.Owner] {
				t.Errorf("step %d: adopt by configmap %s, which does not exist", i, s.Owner)
			}
		}
	}
	if len(live) != 0 {
		t.Errorf("objects left at the end of a cycle: %v", live)
	}
}

func TestDemoStepDescribe(t *testing.T) {
	tests := []struct {
		step demoStep
		want string
	}{
		{demoScript[0], "configmap kcm-demo/web-config app=web data color=blue"},
		{demoScript[3], "pod kcm-demo/web-0 tier=backend"},
		{demoScript[5], "pod kcm-demo/web-1 by configmap web-config"},
		{demoScript[7], "pod kcm-demo/web-2 canary=true tier-"},
		{demoScript[11], "configmap kcm-demo/web-config"},
	}
	for _, tt := range tests {
		if got := tt.step.describe("kcm-demo"); got != tt.want {
			t.Errorf("describe = %q, want %q", got, tt.want)
		}
	}
}

// TestDemoPatches checks the JSON merge patches (RFC 7386: null removes a
// key) the demo sends.
func TestDemoPatches(t *testing.T) {
	tests := []struct {
		step demoStep
		uid  string
		want string
	}{
		{demoStep{Verb: demoLabel, Labels: map[string]string{"tier": "", "canary": "true"}}, "",
			`{"metadata":{"labels":{"canary":"true","tier":null}}}`},
		{demoStep{Verb: demoUpdate, Data: map[string]string{"color": "green"}}, "", `{"data":{"color":"green"}}`},
		{demoStep{Verb: demoAdopt, Owner: "cfg"}, "u1",
			`{"metadata":{"ownerReferences":[{"apiVersion":"v1","kind":"ConfigMap","name":"cfg","uid":"u1"}]}}`},
	}
	for _, tt := range tests {
		got, err := tt.step.patch(tt.uid)
		if err != nil || string(got) != tt.want {
			t.Errorf("%s patch = %s, %v; want %s", tt.step.Verb, got, err, tt.want)
		}
	}
	if _, err := (demoStep{Verb: demoCreate}).patch(""); err == nil {
		t.Error("a create step has no patch, want an error")
	}
}

func TestDemoManifest(t *testing.T) {
	for _, s := range demoScript {
		if s.Verb != demoCreate {
			continue
		}
		m := s.manifest("ns1")
		b, err := json.Marshal(m)
		if err != nil {
			t.Fatal(err)
		}
		meta := m["metadata"].(map[string]any)
		if meta["name"] != s.Name || meta["namespace"] != "ns1" || fmt.Sprint(meta["labels"]) != fmt.Sprint(s.Labels) {
			t.Errorf("manifest of %s: metadata %s", s.Name, b)
		}
		if wantKind := map[string]string{"pod": "Pod", "configmap": "ConfigMap"}[s.Kind]; m["kind"] != wantKind {
			t.Errorf("manifest of %s: kind %v, want %s", s.Name, m["kind"], wantKind)
		}
	}
}
