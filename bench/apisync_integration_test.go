//go:build !nocluster

package bench_test

import (
	"context"
	"os"
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
			t.Fatalf("%s: %v", v.Name, err)
		}
		if v.Name == "kcm/consistent-500" && s.Requests < 2 {
			t.Errorf("%s: %d requests until synced, want at least the two pages of 500", v.Name, s.Requests)
		}
		if s.Wall <= 0 || s.CPU <= 0 || s.HeapLive == 0 {
			t.Errorf("%s: sample %+v has empty figures", v.Name, s)
		}
	}
	apiPID, etcdPID := cluster.PIDs()
	t.Setenv(envAPISyncChild, "1")
	r := &bench.APIRunner{Command: []string{os.Args[0]}, Kubeconfig: cluster.KubeconfigPath(), Pods: pods,
		APIServerPID: apiPID, EtcdPID: etcdPID, Stderr: os.Stderr}
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
