package managerbench

import "testing"

// TestGCSyncedLine: the sync benchmark waits for the garbage collector's
// monitors only where it runs (in the --controllers list, or the default
// "*"), by each kind's own log line.
func TestGCSyncedLine(t *testing.T) {
	for _, tc := range []struct {
		m    Manager
		want string
	}{
		{Manager{Kind: KCM, Controllers: SameControllers}, kcmGCSyncedLine},
		{Manager{Kind: Kube, Controllers: SameControllers}, kubeGCSyncedLine},
		{Manager{Kind: Kube}, kubeGCSyncedLine},
		{Manager{Kind: KCM, Controllers: []string{"deployment-controller"}}, ""},
		{Manager{Kind: Kube, Controllers: []string{"replicaset-controller", "namespace-controller"}}, ""},
	} {
		if got := tc.m.GCSyncedLine(); got != tc.want {
			t.Errorf("%v %v: GCSyncedLine %q, want %q", tc.m.Kind, tc.m.Controllers, got, tc.want)
		}
	}
}
