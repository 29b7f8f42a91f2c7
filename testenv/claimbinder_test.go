package testenv

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/kcmlab/kcm/kube/api"
)

// TestClaimVolumeName: a volume is named after its claim's namespace and
// name, the same in every run; a name over the 253 characters an object
// name may have becomes "pv-" and a digest, still one per claim.
func TestClaimVolumeName(t *testing.T) {
	long := strings.Repeat("c", 250)
	for _, tc := range []struct {
		ns, name, want string
	}{
		{"team-a", "data-web-0", "pv-team-a-data-web-0"},
		{"sts-takeover", "data-db-07-2", "pv-sts-takeover-data-db-07-2"},
	} {
		if got := ClaimVolumeName(tc.ns, tc.name); got != tc.want {
			t.Errorf("ClaimVolumeName(%q, %q) = %q, want %q", tc.ns, tc.name, got, tc.want)
		}
	}
	a, b := ClaimVolumeName("ns", long), ClaimVolumeName("ns", long+"d")
	if len(a) > 253 || !strings.HasPrefix(a, "pv-") || a == b || a != ClaimVolumeName("ns", long) {
		t.Errorf("long names: %q and %q; want distinct, stable names of at most 253 characters", a, b)
	}
}

// TestVolumeObject: the volume made for a claim carries the claim's size,
// access modes, class and volume mode and a claimRef by uid, and the
// binder's label.
func TestVolumeObject(t *testing.T) {
	class, mode := "fast", "Block"
	pvc := &api.PersistentVolumeClaim{ObjectMeta: api.ObjectMeta{Name: "data-web-0", Namespace: "ns", UID: "u-1"},
		Spec: api.PersistentVolumeClaimSpec{StorageClassName: &class, VolumeMode: &mode}}
	got, err := json.Marshal(volumeObject(pvc, "pv-ns-data-web-0", "5Gi", []api.PersistentVolumeAccessMode{api.ReadWriteOncePod}))
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{`"name":"pv-ns-data-web-0"`, `"` + ClaimBinderLabel + `":"true"`, `"capacity":{"storage":"5Gi"}`,
		`"accessModes":["ReadWriteOncePod"]`, `"storageClassName":"fast"`, `"volumeMode":"Block"`,
		`"claimRef":{"apiVersion":"v1","kind":"PersistentVolumeClaim","name":"data-web-0","namespace":"ns","uid":"u-1"}`,
		`"hostPath":{"path":"/tmp/kcm-testenv-volumes/pv-ns-data-web-0"}`} {
		if !strings.Contains(string(got), want) {
			t.Errorf("volume %s lacks %s", got, want)
		}
	}
}
