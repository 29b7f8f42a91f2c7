//go:build !nocluster

package bench_test

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	"k8s.io/client-go/kubernetes"

	"github.com/kcmlab/kcm/bench"
	"github.com/kcmlab/kcm/testenv"
)

// The real-apiserver benchmark's harness on a small cluster: Populate
// makes the pods through kube-controller-manager, every variant syncs all
// of them (SyncOnce fails otherwise), the consistent variant of 500 per
// page needs two pages for 1000 pods, and APIRunner measures a sync in a
// child process (this test binary) with the apiserver's CPU read from
// /proc.
func TestAPISyncAgainstKubeAPIServer(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 15*time.Minute)
	defer cancel()
	const pods = 1000
	cluster, _ := populatedCluster(ctx, t, pods)
	for _, v := range bench.APIVariants {
		s, err := bench.SyncOnce(ctx, cluster.KubeconfigPath(), v, pods)
		if err != nil {
			t.Errorf("%s: %v", v.Name, err)
			continue
		}
		if v.Name == "kcm/consistent-500" && s.Requests < 2 {
			t.Errorf("%s: %d requests until synced, want at least the two pages of 500", v.Name, s.Requests)
		}
		if s.Wall <= 0 || s.CPU <= 0 || s.HeapLive == 0 {
			t.Errorf("%s: sample %+v has empty figures", v.Name, s)
		}
		// SyncOnce fails when these do not hold; the sample says so too.
		if s.Wire != v.Wire() || s.ManagedFields == v.StripsManagedFields() {
			t.Errorf("%s: read %q with managedFields %v; want %q, %v", v.Name, s.Wire, s.ManagedFields,
				v.Wire(), !v.StripsManagedFields())
		}
	}
	apiPID, etcdPID := cluster.PIDs()
	t.Setenv(envAPISyncChild, "1")
	r := &bench.APIRunner{Command: []string{os.Args[0]}, Kubeconfig: cluster.KubeconfigPath(), Pods: pods,
		APIServerPID: apiPID, EtcdPID: etcdPID, Stderr: os.Stderr, ProfileDir: t.TempDir()}
	vs, err := bench.LookupAPIVariants("kcm/from-cache")
	if err != nil {
		t.Fatal(err)
	}
	s, err := r.Run(ctx, vs[0], 0)
	if err != nil {
		t.Fatal(err)
	}
	if s.Variant != "kcm/from-cache" || s.Pods != pods || s.Wall <= 0 || s.ServerCPU <= 0 || s.ClientPeakRSS == 0 {
		t.Fatalf("sample from the child %+v: want its variant, %d pods, and non-zero wall, apiserver CPU and peak RSS", s, pods)
	}
	profiles, err := filepath.Glob(filepath.Join(r.ProfileDir, "kcm_from-cache-*.pprof"))
	if err != nil || len(profiles) != 1 {
		t.Fatalf("profiles of the child: %v, %v; want one", profiles, err)
	}
	if fi, err := os.Stat(profiles[0]); err != nil || fi.Size() == 0 {
		t.Fatalf("profile %s: %v, %v; want a non-empty file", profiles[0], fi, err)
	}
}

// Issue 34's small pods: pods made from smallDeployment stay at or under
// 2 KB of JSON with their managedFields, and the protobuf pair syncs them
// with the cache holding what each variant says.
func TestAPISyncSmallPodsAgainstKubeAPIServer(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
	defer cancel()
	const pods = 200
	shape, err := bench.ShapeFor(pods)
	if err != nil {
		t.Fatal(err)
	}
	shape.Small = true
	cluster, cs, _, err := bench.StartPopulated(ctx, shape, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(cluster.Stop)
	size, err := bench.MeasurePodSize(ctx, cs)
	if err != nil {
		t.Fatal(err)
	}
	if size.JSON > 2048 || size.ManagedFieldsJSON == 0 || size.Protobuf >= size.JSON {
		t.Fatalf("small pod %+v: want at most 2048 bytes of JSON, managedFields, and a smaller protobuf message", size)
	}
	vs, err := bench.LookupAPIVariants("client-go/protobuf-strip,kcm/protobuf,client-go/protobuf,kcm/protobuf-families,kcm-metadata/protobuf")
	if err != nil {
		t.Fatal(err)
	}
	for _, v := range vs {
		s, err := bench.SyncOnce(ctx, cluster.KubeconfigPath(), v, pods)
		if err != nil {
			t.Errorf("%s: %v", v.Name, err)
			continue
		}
		if s.Wire != bench.WireProtobuf || s.ManagedFields != (v.Name == "client-go/protobuf") {
			t.Errorf("%s: read %q with managedFields %v", v.Name, s.Wire, s.ManagedFields)
		}
	}
}

// populatedCluster starts a test cluster with pods pods made by
// kube-controller-manager (bench.StartPopulated); it is stopped when the
// test ends.
func populatedCluster(ctx context.Context, t *testing.T, pods int) (*testenv.Cluster, kubernetes.Interface) {
	t.Helper()
	shape, err := bench.ShapeFor(pods)
	if err != nil {
		t.Fatal(err)
	}
	cluster, cs, _, err := bench.StartPopulated(ctx, shape, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(cluster.Stop)
	return cluster, cs
}
