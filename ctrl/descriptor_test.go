package ctrl

import (
	"context"
	"errors"
	"slices"
	"strings"
	"testing"
)

func nopConstructor(context.Context, ControllerContext, string) (Controller, error) { return nil, nil }

// testRegistry mirrors three of kube-controller-manager's descriptors and
// one that is off by default.
func testRegistry(t *testing.T) *Descriptors {
	t.Helper()
	r, err := NewDescriptors(
		&ControllerDescriptor{Name: "serviceaccount-controller", Aliases: []string{"serviceaccount"}, Constructor: nopConstructor},
		&ControllerDescriptor{Name: "replicaset-controller", Aliases: []string{"replicaset"}, Constructor: nopConstructor,
			Concurrency: &ConcurrencyFlag{Name: "concurrent-replicaset-syncs", Default: 5, Usage: "replica sets synced at once"}},
		&ControllerDescriptor{Name: "deployment-controller", Aliases: []string{"deployment"}, Constructor: nopConstructor,
			Concurrency: &ConcurrencyFlag{Name: "concurrent-deployment-syncs", Default: 5, Usage: "deployments synced at once"}},
		&ControllerDescriptor{Name: "bootstrap-signer-controller", Aliases: []string{"bootstrapsigner"}, DisabledByDefault: true, Constructor: nopConstructor},
	)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// TestIsControllerEnabled checks the rule of
// k8s.io/controller-manager/app.IsControllerEnabled, with its own test
// table's cases first.
func TestIsControllerEnabled(t *testing.T) {
	off := map[string]bool{"delta": true, "echo": true}
	for _, tc := range []struct {
		name, controller string
		list             []string
		want             bool
	}{
		// helper_test.go's cases.
		{"on by name", "bravo", []string{"alpha", "bravo", "-charlie"}, true},
		{"off by name", "charlie", []string{"alpha", "bravo", "-charlie"}, false},
		{"on by default", "alpha", []string{"*"}, true},
		{"off by default", "delta", []string{"*"}, false},
		{"on by star, not off by name", "alpha", []string{"*", "-charlie"}, true},
		{"off by name with star", "charlie", []string{"*", "-charlie"}, false},
		{"off by default implicit, no star", "foxtrot", []string{"alpha", "bravo", "-charlie"}, false},
		// The first entry naming a controller wins; "*" decides nothing
		// by itself, wherever it stands.
		{"off before star", "alpha", []string{"-alpha", "*"}, false},
		{"off then on", "alpha", []string{"-alpha", "alpha"}, false},
		{"on then off", "alpha", []string{"alpha", "-alpha"}, true},
		{"disabled by default on by name after star", "delta", []string{"*", "delta"}, true},
		{"disabled by default on by name", "delta", []string{"delta"}, true},
		{"empty list", "alpha", nil, false},
		{"a prefix of the name is not the name", "alpha", []string{"alph", "-alph"}, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := IsControllerEnabled(tc.controller, off, tc.list); got != tc.want {
				t.Fatalf("IsControllerEnabled(%q, %q) = %v, want %v", tc.controller, tc.list, got, tc.want)
			}
		})
	}
}

// TestEnabled resolves --controllers lists against the registry, aliases
// included (kube-controller-manager's ApplyTo canonicalises them).
func TestEnabled(t *testing.T) {
	r := testRegistry(t)
	for _, tc := range []struct {
		list []string
		want []string
	}{
		{[]string{"*"}, []string{"serviceaccount-controller", "replicaset-controller", "deployment-controller"}},
		{[]string{"*", "-replicaset"}, []string{"serviceaccount-controller", "deployment-controller"}},
		{[]string{"-replicaset-controller", "*"}, []string{"serviceaccount-controller", "deployment-controller"}},
		{[]string{"*", "bootstrapsigner"}, []string{"serviceaccount-controller", "replicaset-controller", "deployment-controller", "bootstrap-signer-controller"}},
		{[]string{"deployment"}, []string{"deployment-controller"}},
		{[]string{"deployment", "-deployment-controller"}, []string{"deployment-controller"}},
		{[]string{}, nil},
	} {
		ds, err := r.Enabled(tc.list)
		if err != nil {
			t.Fatalf("Enabled(%q): %v", tc.list, err)
		}
		var got []string
		for _, d := range ds {
			got = append(got, d.Name)
		}
		if !slices.Equal(got, tc.want) {
			t.Errorf("Enabled(%q) = %q, want %q", tc.list, got, tc.want)
		}
	}
}

// TestCanonicalRejectsUnknown: kube-controller-manager's Validate rejects
// every entry but "*" that names no controller or alias, with or without
// "-"; kcm's error also lists the known names.
func TestCanonicalRejectsUnknown(t *testing.T) {
	r := testRegistry(t)
	got, err := r.Canonical([]string{"*", "-replicaset", "deployment"})
	if err != nil || !slices.Equal(got, []string{"*", "-replicaset-controller", "deployment-controller"}) {
		t.Fatalf("Canonical = %q, %v", got, err)
	}
	for _, list := range [][]string{{"nosuch"}, {"*", "-nosuch"}, {"replicaset", "nosuch", "other"}} {
		_, err := r.Canonical(list)
		if !errors.Is(err, ErrUnknownController) {
			t.Fatalf("Canonical(%q) = %v, want ErrUnknownController", list, err)
		}
		msg := err.Error()
		if !strings.Contains(msg, `"nosuch"`) || !strings.Contains(msg, "known controllers: bootstrap-signer-controller, deployment-controller, replicaset-controller, serviceaccount-controller") {
			t.Errorf("error %q does not name the culprit and the known controllers", msg)
		}
		if _, err := r.Enabled(list); !errors.Is(err, ErrUnknownController) {
			t.Errorf("Enabled(%q) = %v, want ErrUnknownController", list, err)
		}
	}
	_, err = r.Canonical([]string{"a", "b"})
	if err == nil || !strings.Contains(err.Error(), `"a", "b"`) {
		t.Errorf("both unknown names should be reported: %v", err)
	}
}

// TestNewDescriptorsChecks: kube-controller-manager's
// NewControllerDescriptors panics on these; kcm returns errors.
func TestNewDescriptorsChecks(t *testing.T) {
	ok := func(name string, aliases ...string) *ControllerDescriptor {
		return &ControllerDescriptor{Name: name, Aliases: aliases, Constructor: nopConstructor}
	}
	for name, ds := range map[string][]*ControllerDescriptor{
		"nil":                   {nil},
		"no name":               {ok("")},
		"no constructor":        {{Name: "a"}},
		"name twice":            {ok("a"), ok("a")},
		"alias twice":           {ok("a", "x"), ok("b", "x")},
		"alias is another name": {ok("a"), ok("b", "a")},
		"name is another alias": {ok("a", "b"), ok("b")},
	} {
		if _, err := NewDescriptors(ds...); !errors.Is(err, ErrInvalidDescriptor) {
			t.Errorf("%s: err = %v, want ErrInvalidDescriptor", name, err)
		}
	}
}

func TestRegistryViews(t *testing.T) {
	r := testRegistry(t)
	if got := r.KnownControllers(); !slices.Equal(got, []string{"bootstrap-signer-controller", "deployment-controller", "replicaset-controller", "serviceaccount-controller"}) {
		t.Errorf("KnownControllers = %q", got)
	}
	if got := r.ControllersDisabledByDefault(); !slices.Equal(got, []string{"bootstrap-signer-controller"}) {
		t.Errorf("ControllersDisabledByDefault = %q", got)
	}
	if got := r.ControllerAliases(); len(got) != 4 || got["replicaset"] != "replicaset-controller" || got["bootstrapsigner"] != "bootstrap-signer-controller" {
		t.Errorf("ControllerAliases = %v", got)
	}
	if d, ok := r.Lookup("deployment"); !ok || d.Name != "deployment-controller" {
		t.Errorf("Lookup(alias) = %v, %v", d, ok)
	}
	if _, ok := r.Lookup("nosuch"); ok {
		t.Error("Lookup(nosuch) found something")
	}
	all := r.All()
	if len(all) != 4 || all[0].Name != "serviceaccount-controller" || all[3].Name != "bootstrap-signer-controller" {
		t.Errorf("All() not in registration order: %v", all)
	}
	all[0] = nil
	if r.All()[0] == nil {
		t.Error("All() exposes the registry's slice")
	}
}
