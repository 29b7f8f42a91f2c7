package api_test

import (
	"testing"

	"github.com/kcmlab/kcm/kube/api"
)

// TestTolerationToleratesTaint follows the rules of core/v1
// Toleration.ToleratesTaint (k8s.io/api v0.37.2 toleration.go) with the
// TaintTolerationComparisonOperators gate off.
func TestTolerationToleratesTaint(t *testing.T) {
	taint := api.Taint{Key: "dedicated", Value: "db", Effect: api.TaintEffectNoExecute}
	tests := []struct {
		name string
		tol  api.Toleration
		want bool
	}{
		{"equal key value effect", api.Toleration{Key: "dedicated", Operator: api.TolerationOpEqual, Value: "db", Effect: api.TaintEffectNoExecute}, true},
		{"empty operator means Equal", api.Toleration{Key: "dedicated", Value: "db", Effect: api.TaintEffectNoExecute}, true},
		{"Equal with another value", api.Toleration{Key: "dedicated", Operator: api.TolerationOpEqual, Value: "web", Effect: api.TaintEffectNoExecute}, false},
		{"Equal with empty value", api.Toleration{Key: "dedicated", Effect: api.TaintEffectNoExecute}, false},
		{"Exists matches any value", api.Toleration{Key: "dedicated", Operator: api.TolerationOpExists, Effect: api.TaintEffectNoExecute}, true},
		{"empty effect matches every effect", api.Toleration{Key: "dedicated", Operator: api.TolerationOpExists}, true},
		{"other effect", api.Toleration{Key: "dedicated", Operator: api.TolerationOpExists, Effect: api.TaintEffectNoSchedule}, false},
		{"other key", api.Toleration{Key: "gpu", Operator: api.TolerationOpExists, Effect: api.TaintEffectNoExecute}, false},
		{"empty key with Exists matches every key", api.Toleration{Operator: api.TolerationOpExists}, true},
		{"empty key with Exists and other effect", api.Toleration{Operator: api.TolerationOpExists, Effect: api.TaintEffectNoSchedule}, false},
		{"Lt is off by default", api.Toleration{Key: "dedicated", Operator: api.TolerationOpLt, Value: "db"}, false},
		{"Gt is off by default", api.Toleration{Key: "dedicated", Operator: api.TolerationOpGt, Value: "db"}, false},
		{"unknown operator", api.Toleration{Key: "dedicated", Operator: "Like", Value: "db"}, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := tt.tol.ToleratesTaint(&taint); got != tt.want {
				t.Errorf("ToleratesTaint(%+v, %s) = %v, want %v", tt.tol, taint.String(), got, tt.want)
			}
		})
	}
}

func TestTolerationsTolerateTaint(t *testing.T) {
	taint := api.Taint{Key: api.TaintNodeUnreachable, Effect: api.TaintEffectNoExecute}
	if api.TolerationsTolerateTaint(nil, &taint) {
		t.Error("no tolerations tolerate a taint")
	}
	tols := []api.Toleration{
		{Key: api.TaintNodeNotReady, Operator: api.TolerationOpExists},
		{Key: api.TaintNodeUnreachable, Operator: api.TolerationOpExists, Effect: api.TaintEffectNoExecute},
	}
	if !api.TolerationsTolerateTaint(tols, &taint) {
		t.Error("the second toleration tolerates the taint")
	}
	if api.TolerationsTolerateTaint(tols[:1], &taint) {
		t.Error("the not-ready toleration does not tolerate unreachable")
	}
}

// TestTaintMatchTaint: taints are unique by key and effect (core/v1
// Taint.MatchTaint); TaintExists uses the same rule.
func TestTaintMatchTaint(t *testing.T) {
	a := api.Taint{Key: "k", Value: "1", Effect: api.TaintEffectNoExecute}
	tests := []struct {
		other api.Taint
		want  bool
	}{
		{api.Taint{Key: "k", Value: "2", Effect: api.TaintEffectNoExecute}, true},
		{api.Taint{Key: "k", Value: "1", Effect: api.TaintEffectNoSchedule}, false},
		{api.Taint{Key: "j", Value: "1", Effect: api.TaintEffectNoExecute}, false},
	}
	for _, tt := range tests {
		if got := a.MatchTaint(&tt.other); got != tt.want {
			t.Errorf("MatchTaint(%s, %s) = %v, want %v", a.String(), tt.other.String(), got, tt.want)
		}
		if got := api.TaintExists([]api.Taint{{Key: "x", Effect: "NoSchedule"}, a}, &tt.other); got != tt.want {
			t.Errorf("TaintExists(.., %s) = %v, want %v", tt.other.String(), got, tt.want)
		}
	}
}

func TestTaintString(t *testing.T) {
	tests := []struct {
		taint api.Taint
		want  string
	}{
		{api.Taint{Key: "k", Value: "v", Effect: "NoExecute"}, "k=v:NoExecute"},
		{api.Taint{Key: "k", Effect: "NoExecute"}, "k:NoExecute"},
		{api.Taint{Key: "k", Value: "v"}, "k=v:"},
		{api.Taint{Key: "k"}, "k"},
	}
	for _, tt := range tests {
		if got := tt.taint.String(); got != tt.want {
			t.Errorf("String() = %q, want %q", got, tt.want)
		}
	}
}
