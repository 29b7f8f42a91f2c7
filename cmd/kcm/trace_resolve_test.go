package main

import (
	"errors"
	"testing"

	"github.com/kcmlab/kcm/kube/rest"
)

func TestBuiltinNames(t *testing.T) {
	tests := []struct {
		name string
		want rest.Resource
	}{
		{"po", rest.Pods}, {"pod", rest.Pods}, {"pods", rest.Pods},
		{"rs", rest.ReplicaSets}, {"deploy", rest.Deployments}, {"deployments", rest.Deployments},
		{"ns", rest.Namespaces}, {"cm", rest.ConfigMaps}, {"sa", rest.ServiceAccounts},
		{"lease", rest.Leases}, {"leases", rest.Leases}, {"no", rest.Nodes}, {"crd", rest.CRDs},
	}
	for _, tt := range tests {
		if got, ok := builtinNames[tt.name]; !ok || got != tt.want {
			t.Errorf("builtinNames[%q] = %v, %v; want %v", tt.name, got, ok, tt.want)
		}
	}
}

func TestMatchResource(t *testing.T) {
	services := rest.Resource{Version: "v1", Resource: "services", Kind: "Service", Namespaced: true}
	netpol := rest.Resource{Group: "networking.k8s.io", Version: "v1", Resource: "networkpolicies", Kind: "NetworkPolicy", Namespaced: true}
	crontabs := rest.Resource{Group: "stable.example.com", Version: "v1", Resource: "crontabs", Kind: "CronTab", Namespaced: true}
	// A group resource with the same plural as a core one: core wins, as
	// in kubectl, and the group's is reached with plural.group.
	events2 := rest.Resource{Group: "events.k8s.io", Version: "v1", Resource: "events", Kind: "Event", Namespaced: true}
	served := []rest.Resource{services, rest.Events, netpol, events2, crontabs}
	tests := []struct {
		name string
		want rest.Resource
	}{
		{"services", services},
		{"service", services},
		{"networkpolicies", netpol},
		{"networkpolicy.networking.k8s.io", netpol},
		{"crontabs.stable.example.com", crontabs},
		{"crontab", crontabs},
		{"events", rest.Events},
		{"events.events.k8s.io", events2},
	}
	for _, tt := range tests {
		got, err := matchResource(tt.name, served)
		if err != nil || got != tt.want {
			t.Errorf("matchResource(%q) = %v, %v; want %v", tt.name, got, err, tt.want)
		}
	}
	if _, err := matchResource("nosuchthings", served); !errors.Is(err, errUnknownResource) {
		t.Errorf("matchResource(unknown) error = %v, want errUnknownResource", err)
	}
}
