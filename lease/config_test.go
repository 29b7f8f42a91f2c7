package lease_test

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/kcmlab/kcm/lease"
)

func noop(context.Context) {}

// TestConfigValidate checks client-go's rule LeaseDuration > RenewDeadline
// > 1.2 × RetryPeriod (plus kcm's own: whole-second leases need ≥ 1s) and
// that each error names the field and its value.
func TestConfigValidate(t *testing.T) {
	s := time.Second
	cases := []struct {
		name          string
		ld, rd, rp    time.Duration
		ht            time.Duration // HealthTolerance
		noCallback    bool
		field, inText string // "" field: valid
	}{
		{name: "defaults", field: ""},
		{name: "short but valid", ld: 3 * s, rd: 2 * s, rp: 500 * time.Millisecond},
		{name: "one-second lease", ld: s, rd: 500 * time.Millisecond, rp: 400 * time.Millisecond},
		{name: "renew deadline just above 1.2 × retry", ld: 15 * s, rd: 2400*time.Millisecond + 1, rp: 2 * s},
		{name: "lease equal to renew deadline", ld: 10 * s, rd: 10 * s, field: "LeaseDuration", inText: "LeaseDuration 10s must be greater than RenewDeadline (10s)"},
		{name: "lease shorter than renew deadline", ld: 5 * s, field: "LeaseDuration", inText: "LeaseDuration 5s"},
		{name: "renew deadline equal to 1.2 × retry", rd: 2400 * time.Millisecond, rp: 2 * s, field: "RenewDeadline", inText: "RenewDeadline 2.4s must be greater than 1.2 × RetryPeriod (2s)"},
		{name: "retry longer than deadline", rp: 20 * s, field: "RenewDeadline", inText: "RetryPeriod (20s)"},
		{name: "negative retry", rp: -s, field: "RetryPeriod", inText: "RetryPeriod -1s must be positive"},
		{name: "negative deadline", rd: -s, field: "RenewDeadline", inText: "-1s"},
		{name: "sub-second lease", ld: 900 * time.Millisecond, rd: 500 * time.Millisecond, rp: 100 * time.Millisecond, field: "LeaseDuration", inText: "900ms must be at least 1s"},
		{name: "negative health tolerance", ht: -s, field: "HealthTolerance", inText: "HealthTolerance -1s must not be negative"},
		{name: "no OnStartedLeading", noCallback: true, field: "Callbacks.OnStartedLeading", inText: "is required"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			cfg := lease.Config{LeaseDuration: c.ld, RenewDeadline: c.rd, RetryPeriod: c.rp, HealthTolerance: c.ht}
			if !c.noCallback {
				cfg.Callbacks.OnStartedLeading = noop
			}
			err := cfg.Validate()
			if c.field == "" {
				if err != nil {
					t.Fatalf("Validate() = %v, want nil", err)
				}
				return
			}
			var ce *lease.ConfigError
			if !errors.As(err, &ce) || !errors.Is(err, lease.ErrInvalidConfig) {
				t.Fatalf("Validate() = %v, want a *ConfigError wrapping ErrInvalidConfig", err)
			}
			if ce.Field != c.field || !strings.Contains(err.Error(), c.inText) {
				t.Errorf("Validate() = %q (field %s), want field %s and text %q", err, ce.Field, c.field, c.inText)
			}
		})
	}
}

// TestDefaults: the defaults are kube-controller-manager's flags
// --leader-elect-lease-duration=15s, --leader-elect-renew-deadline=10s,
// --leader-elect-retry-period=2s, --leader-elect-resource-namespace=
// kube-system, --leader-elect-resource-name=kube-controller-manager, and
// the 20s its leader-election healthz adaptor allows.
func TestDefaults(t *testing.T) {
	got := []any{lease.DefaultLeaseDuration, lease.DefaultRenewDeadline, lease.DefaultRetryPeriod,
		lease.DefaultNamespace, lease.DefaultName, lease.DefaultHealthTolerance}
	want := []any{15 * time.Second, 10 * time.Second, 2 * time.Second, "kube-system", "kube-controller-manager", 20 * time.Second}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("default %d = %v, want %v", i, got[i], want[i])
		}
	}
}

func TestNewRejectsInvalidConfig(t *testing.T) {
	_, err := lease.NewWithStore(&lease.MemoryStore{}, lease.Config{RenewDeadline: time.Minute, Callbacks: lease.Callbacks{OnStartedLeading: noop}})
	if !errors.Is(err, lease.ErrInvalidConfig) {
		t.Fatalf("NewWithStore with RenewDeadline > LeaseDuration: err = %v", err)
	}
}

func TestDefaultIdentity(t *testing.T) {
	a, err := lease.DefaultIdentity()
	if err != nil {
		t.Fatal(err)
	}
	b, _ := lease.DefaultIdentity()
	host, uuid, ok := strings.Cut(a, "_")
	if !ok || host == "" || len(uuid) != 36 || uuid[14] != '4' {
		t.Errorf("DefaultIdentity() = %q, want hostname_<uuid v4>", a)
	}
	if a == b {
		t.Errorf("two DefaultIdentity() calls returned the same %q", a)
	}
	e, err := lease.NewWithStore(&lease.MemoryStore{}, lease.Config{Callbacks: lease.Callbacks{OnStartedLeading: noop}})
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(e.Identity(), host+"_") {
		t.Errorf("an elector without Identity uses %q", e.Identity())
	}
}
