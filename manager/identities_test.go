package manager

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"encoding/pem"
	"os"
	"path/filepath"
	"slices"
	"sync"
	"testing"

	"github.com/rs/zerolog"

	"github.com/kcmlab/kcm/ctrl"
	"github.com/kcmlab/kcm/kube/rest"
)

// accounts records the ServiceAccounts whose clients the controllers ask
// for.
type accounts struct {
	base *rest.Client
	mu   sync.Mutex
	got  map[string]bool // guarded by mu
}

func (a *accounts) Client(serviceAccount, userAgent string, qps float32, burst int) *rest.Client {
	a.mu.Lock()
	a.got[serviceAccount] = true
	a.mu.Unlock()
	return a.base.WithOptions(userAgent, qps, burst)
}

// TestServiceAccountPerController: under --use-service-account-credentials
// every controller's client is the ServiceAccount kube-controller-manager
// v1.37 gives it (the names of the bootstrap ClusterRoles
// system:controller:<name> in Kubernetes' controller_policy.go; the node
// lifecycle and taint eviction controllers share node-controller), and
// the serviceaccount-token controller, which kube-controller-manager
// builds with its root client builder, asks for none.
func TestServiceAccountPerController(t *testing.T) {
	want := []string{
		"endpoint-controller", "endpointslice-controller", "endpointslicemirroring-controller",
		"deployment-controller", "generic-garbage-collector", "legacy-service-account-token-cleaner",
		"namespace-controller", "node-controller", "pod-garbage-collector", "replicaset-controller",
		"resourcequota-controller", "root-ca-cert-publisher", "service-account-controller", "statefulset-controller",
	}
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	der, err := x509.MarshalECPrivateKey(key)
	if err != nil {
		t.Fatal(err)
	}
	keyFile := filepath.Join(t.TempDir(), "sa.key")
	if err := os.WriteFile(keyFile, pem.EncodeToMemory(&pem.Block{Type: "EC PRIVATE KEY", Bytes: der}), 0o600); err != nil {
		t.Fatal(err)
	}
	d := NewControllerDescriptors()
	o := NewOptions(d)
	// The token controller runs only with a key: give it one, so that its
	// client is built.
	if err := o.Controllers.Flags["service-account-private-key-file"].Set(keyFile); err != nil {
		t.Fatal(err)
	}
	client, err := rest.NewClient(&rest.Config{Host: "https://127.0.0.1:1"})
	if err != nil {
		t.Fatal(err)
	}
	rec := &accounts{base: client, got: map[string]bool{}}
	cc, err := ctrl.CreateControllerContext(client, ctrl.Config{Options: o.Controllers, ServiceAccounts: rec, Logger: zerolog.Nop()})
	if err != nil {
		t.Fatal(err)
	}
	built, err := BuildControllers(context.Background(), cc, d.All())
	if err != nil {
		t.Fatal(err)
	}
	stopped, stop := context.WithCancel(context.Background())
	stop()
	for _, c := range built {
		_ = c.Run(stopped, 1) // returns at once ("caches did not sync"), its queues shut down
	}
	if len(built) != len(d.All()) {
		t.Fatalf("%d controllers built of %d", len(built), len(d.All()))
	}
	rec.mu.Lock()
	defer rec.mu.Unlock()
	var got []string
	for name := range rec.got {
		got = append(got, name)
	}
	slices.Sort(got)
	slices.Sort(want)
	if !slices.Equal(got, want) {
		t.Errorf("ServiceAccounts asked for:\n%q\nwant kube-controller-manager's:\n%q", got, want)
	}
}
