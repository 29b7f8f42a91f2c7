package api_test

import (
	"testing"
	"time"

	"github.com/kcmlab/kcm/kube/api"
)

func TestLeaseJSON(t *testing.T) {
	// The lease kube-controller-manager holds; timestamps are MicroTime,
	// with microseconds on the wire.
	const in = `{"kind":"Lease","apiVersion":"coordination.k8s.io/v1","metadata":{"name":"kube-controller-manager",
	"namespace":"kube-system","uid":"3c2b","resourceVersion":"777","creationTimestamp":"2025-09-01T08:00:00Z",
	"managedFields":[{"manager":"kube-controller-manager","operation":"Update","apiVersion":"coordination.k8s.io/v1","time":"2025-09-01T08:00:00Z"}]},
	"spec":{"holderIdentity":"host-1_6f1a3c2e-5b7d-4e8f-9a0b-1c2d3e4f5a6b","leaseDurationSeconds":15,
	"acquireTime":"2025-09-01T08:00:00.123456Z","renewTime":"2025-09-01T10:00:02.654321Z","leaseTransitions":4}}`
	for _, c := range apiCodecs {
		l, out := apiRoundTrip[api.Lease](t, c, in)
		s := l.Spec
		if *s.HolderIdentity != "host-1_6f1a3c2e-5b7d-4e8f-9a0b-1c2d3e4f5a6b" || *s.LeaseDurationSeconds != 15 || *s.LeaseTransitions != 4 {
			t.Errorf("%s: spec = %+v", c.name, s)
		}
		if !s.RenewTime.Equal(time.Date(2025, 9, 1, 10, 0, 2, 654321000, time.UTC)) {
			t.Errorf("%s: renewTime = %v", c.name, s.RenewTime)
		}
		if s.Strategy != nil || s.PreferredHolder != nil {
			t.Errorf("%s: absent optional fields decoded as set", c.name)
		}
		wrong, dropped := apiDiffPaths(t, in, out)
		apiMustEqualPaths(t, c.name+": wrong", wrong, nil)
		apiMustEqualPaths(t, c.name+": dropped", dropped, []string{".metadata.managedFields"})
	}
}

func TestLeaseUnsetVersusEmpty(t *testing.T) {
	// A released lease keeps holderIdentity "" (not absent) in client-go;
	// the pointer keeps the two apart on the wire.
	empty := ""
	free := api.Lease{Spec: api.LeaseSpec{HolderIdentity: &empty}}
	for _, c := range apiCodecs {
		out, err := c.marshal(&free.Spec)
		if err != nil || string(out) != `{"holderIdentity":""}` {
			t.Errorf("%s: released = %s, %v", c.name, out, err)
		}
		out, err = c.marshal(&api.LeaseSpec{})
		if err != nil || string(out) != `{}` {
			t.Errorf("%s: unset = %s, %v", c.name, out, err)
		}
		now := api.NewMicroTime(time.Date(2025, 9, 1, 10, 0, 0, 1500, time.UTC))
		out, err = c.marshal(&api.LeaseSpec{RenewTime: &now})
		if err != nil || string(out) != `{"renewTime":"2025-09-01T10:00:00.000001Z"}` {
			t.Errorf("%s: renewTime = %s, %v", c.name, out, err)
		}
	}
}
