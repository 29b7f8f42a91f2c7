package main

import (
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"strings"
)

// The demo workload: a short script of writes, played in a loop, that gives
// `kcm dev` something to trace. Pods stay Pending (no scheduler or kubelet
// runs), which is all an informer needs to see them come and go.

// demoVerb is what one demo step does.
type demoVerb string

const (
	demoCreate demoVerb = "create" // create with Labels (and Data for a ConfigMap)
	demoLabel  demoVerb = "label"  // merge Labels into the object's labels; "" removes a label
	demoUpdate demoVerb = "update" // replace a ConfigMap's Data
	demoAdopt  demoVerb = "adopt"  // make the ConfigMap Owner the object's owner
	demoDelete demoVerb = "delete"
)

// demoStep is one write of the demo.
type demoStep struct {
	Verb   demoVerb
	Kind   string // "pod" or "configmap"
	Name   string
	Labels map[string]string
	Data   map[string]string
	Owner  string // for demoAdopt: the ConfigMap that becomes the owner
}

// demoScript is one cycle of the demo; it repeats forever. Every object it
// creates is deleted by the end of the cycle, so the next cycle starts over.
var demoScript = []demoStep{
	{Verb: demoCreate, Kind: "configmap", Name: "web-config", Labels: map[string]string{"app": "web"}, Data: map[string]string{"color": "blue"}},
	{Verb: demoCreate, Kind: "pod", Name: "web-0", Labels: map[string]string{"app": "web", "tier": "frontend"}},
	{Verb: demoCreate, Kind: "pod", Name: "web-1", Labels: map[string]string{"app": "web", "tier": "frontend"}},
	{Verb: demoLabel, Kind: "pod", Name: "web-0", Labels: map[string]string{"tier": "backend"}},
	{Verb: demoUpdate, Kind: "configmap", Name: "web-config", Data: map[string]string{"color": "green"}},
	{Verb: demoAdopt, Kind: "pod", Name: "web-1", Owner: "web-config"},
	{Verb: demoCreate, Kind: "pod", Name: "web-2", Labels: map[string]string{"app": "web", "tier": "frontend"}},
	{Verb: demoLabel, Kind: "pod", Name: "web-2", Labels: map[string]string{"tier": "", "canary": "true"}},
	{Verb: demoDelete, Kind: "pod", Name: "web-0"},
	{Verb: demoDelete, Kind: "pod", Name: "web-1"},
	{Verb: demoDelete, Kind: "pod", Name: "web-2"},
	{Verb: demoDelete, Kind: "configmap", Name: "web-config"},
}

// demoStepAt returns the step to play at tick i (0, 1, 2, ...).
func demoStepAt(i int) demoStep { return demoScript[i%len(demoScript)] }

// describe says what the step changes, for the demo's narration, e.g.
// "pod kcm-demo/web-0 tier=backend" (the verb goes in its own column).
func (s demoStep) describe(namespace string) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s %s/%s", s.Kind, namespace, s.Name)
	if len(s.Labels) > 0 {
		b.WriteString(" " + formatLabels(s.Labels))
	}
	if len(s.Data) > 0 {
		b.WriteString(" data " + formatLabels(s.Data))
	}
	if s.Owner != "" {
		b.WriteString(" by configmap " + s.Owner)
	}
	return b.String()
}

// formatLabels writes k=v pairs sorted by key; an empty value is a removal
// and shows as "k-" (kubectl's syntax).
func formatLabels(m map[string]string) string {
	parts := make([]string, 0, len(m))
	for _, k := range slices.Sorted(maps.Keys(m)) {
		if m[k] == "" {
			parts = append(parts, k+"-")
		} else {
			parts = append(parts, k+"="+m[k])
		}
	}
	return strings.Join(parts, " ")
}

// manifest returns the JSON object a create step sends.
func (s demoStep) manifest(namespace string) map[string]any {
	meta := map[string]any{"name": s.Name, "namespace": namespace, "labels": s.Labels}
	if s.Kind == "configmap" {
		return map[string]any{"apiVersion": "v1", "kind": "ConfigMap", "metadata": meta, "data": s.Data}
	}
	return map[string]any{"apiVersion": "v1", "kind": "Pod", "metadata": meta, "spec": map[string]any{
		"containers":                    []any{map[string]any{"name": "app", "image": "registry.k8s.io/pause:3.10"}},
		"terminationGracePeriodSeconds": 0,
	}}
}

// patch returns the JSON merge patch (RFC 7386) a label, update or adopt
// step sends; ownerUID is the owner's UID for an adopt.
func (s demoStep) patch(ownerUID string) ([]byte, error) {
	var p map[string]any
	switch s.Verb {
	case demoLabel:
		labels := map[string]any{}
		for k, v := range s.Labels {
			labels[k] = v
			if v == "" {
				labels[k] = nil // null deletes the key in a merge patch
			}
		}
		p = map[string]any{"metadata": map[string]any{"labels": labels}}
	case demoUpdate:
		p = map[string]any{"data": s.Data}
	case demoAdopt:
		ref := map[string]any{"apiVersion": "v1", "kind": "ConfigMap", "name": s.Owner, "uid": ownerUID}
		p = map[string]any{"metadata": map[string]any{"ownerReferences": []any{ref}}}
	default:
		return nil, fmt.Errorf("demo: %s has no patch", s.Verb)
	}
	return json.Marshal(p)
}
