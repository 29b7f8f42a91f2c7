package testenv

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/rs/zerolog"
	"go.yaml.in/yaml/v3"
)

// testContext bounds one integration test's requests.
func testContext(t *testing.T) context.Context {
	ctx, cancel := context.WithTimeout(t.Context(), 2*time.Minute)
	t.Cleanup(cancel)
	return ctx
}

// clientFromConfig builds an HTTP client the way a consumer of Config
// would: trusting only Config's CA and authenticating with its credentials.
// It is what proves that Config describes the cluster correctly.
func clientFromConfig(t *testing.T, c *Cluster) *apiClient {
	t.Helper()
	cfg := c.Config()
	if cfg.Source != "testenv" {
		t.Errorf("Config().Source = %q, want testenv", cfg.Source)
	}
	auth, err := cfg.Credentials.Authorization(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	token, ok := strings.CutPrefix(auth, "Bearer ")
	if !ok {
		t.Fatalf("Authorization is not a bearer token")
	}
	cl, err := newAPIClient(cfg.Host, cfg.TLS.CAData, token)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(cl.close)
	return cl
}

func TestSharedClusterServesVersion(t *testing.T) {
	c := Shared(t)
	ctx := testContext(t)
	cl := clientFromConfig(t, c)

	var readyz string
	if err := cl.do(ctx, http.MethodGet, "/readyz", nil, &readyz); err != nil || readyz != "ok" {
		t.Fatalf("/readyz = %q, %v; want ok", readyz, err)
	}
	var version struct {
		GitVersion string `json:"gitVersion"`
	}
	if err := cl.do(ctx, http.MethodGet, "/version", nil, &version); err != nil {
		t.Fatal(err)
	}
	// The cluster runs the release KCM_KUBE_VERSION selects (the reference
	// release by default), and the etcd of that release.
	rel, err := SelectedRelease()
	if err != nil {
		t.Fatal(err)
	}
	if c.Release() != rel {
		t.Errorf("Release() = %v, want %v", c.Release(), rel)
	}
	if version.GitVersion != rel.Kubernetes {
		t.Errorf("gitVersion = %q, want %q", version.GitVersion, rel.Kubernetes)
	}
	var etcdVersion struct {
		Server string `json:"etcdserver"`
	}
	if err := c.etcd.call(ctx, http.MethodGet, "/version", nil, &etcdVersion); err != nil {
		t.Fatal(err)
	}
	if "v"+etcdVersion.Server != rel.Etcd {
		t.Errorf("etcd /version etcdserver = %q, want %q", etcdVersion.Server, rel.Etcd)
	}

	// The token is a member of system:masters: cluster-wide reads work.
	if err := cl.do(ctx, http.MethodGet, "/api/v1/namespaces/kube-system", nil, nil); err != nil {
		t.Errorf("get kube-system: %v", err)
	}
	// Without the token the server answers 403 (anonymous is authenticated
	// as system:anonymous but not authorized), proving auth is on.
	anon := *cl
	anon.token = ""
	var se *StatusError
	if err := anon.do(ctx, http.MethodGet, "/api/v1/namespaces", nil, nil); !errors.As(err, &se) || se.Code != http.StatusForbidden {
		t.Errorf("anonymous list namespaces: %v, want HTTP 403", err)
	}
}

func TestKubeconfigFileReachesCluster(t *testing.T) {
	c := Shared(t)
	data, err := os.ReadFile(c.KubeconfigPath())
	if err != nil {
		t.Fatal(err)
	}
	var kc kubeconfig
	if err := yaml.Unmarshal(data, &kc); err != nil {
		t.Fatal(err)
	}
	if len(kc.Clusters) != 1 || kc.Clusters[0].Cluster.Server != c.Config().Host || kc.CurrentContext != KubeconfigContext {
		t.Fatalf("kubeconfig does not point at the cluster: %+v", kc.Clusters)
	}
	// A TLS handshake that trusts only the kubeconfig's CA succeeds against
	// 127.0.0.1, so the generated certificate names that address.
	pool := x509.NewCertPool()
	if !pool.AppendCertsFromPEM(c.Config().TLS.CAData) {
		t.Fatal("no certificate in CAData")
	}
	conn, err := tls.Dial("tcp", strings.TrimPrefix(c.Config().Host, "https://"), &tls.Config{RootCAs: pool})
	if err != nil {
		t.Fatalf("TLS handshake trusting the generated CA: %v", err)
	}
	_ = conn.Close()
}

func TestNamespaceHasDefaultServiceAccount(t *testing.T) {
	c := Shared(t)
	ctx := testContext(t)
	var ns string
	t.Run("inner", func(t *testing.T) {
		ns = c.Namespace(t)
		if !strings.HasPrefix(ns, "testnamespacehasdefaultserviceaccount-inner-") {
			t.Errorf("namespace %q is not named after the test", ns)
		}
		if err := c.client.do(ctx, http.MethodGet, "/api/v1/namespaces/"+ns+"/serviceaccounts/default", nil, nil); err != nil {
			t.Fatalf("default ServiceAccount: %v", err)
		}
		// The reason it exists: ServiceAccount admission accepts a pod now.
		pod := map[string]any{
			"apiVersion": "v1", "kind": "Pod",
			"metadata": map[string]any{"name": "p"},
			"spec":     map[string]any{"containers": []any{map[string]any{"name": "c", "image": "example.invalid/none"}}},
		}
		if err := c.client.do(ctx, http.MethodPost, "/api/v1/namespaces/"+ns+"/pods", pod, nil); err != nil {
			t.Fatalf("create pod: %v", err)
		}
	})
	// The inner test's cleanup deleted the namespace. No namespace
	// controller runs, so it stays Terminating rather than vanishing.
	var got struct {
		Metadata struct {
			DeletionTimestamp string `json:"deletionTimestamp"`
		} `json:"metadata"`
		Status struct {
			Phase string `json:"phase"`
		} `json:"status"`
	}
	err := c.client.do(ctx, http.MethodGet, "/api/v1/namespaces/"+ns, nil, &got)
	var se *StatusError
	switch {
	case errors.As(err, &se) && se.Code == http.StatusNotFound:
	case err != nil:
		t.Fatal(err)
	case got.Metadata.DeletionTimestamp == "" || got.Status.Phase != "Terminating":
		t.Errorf("namespace %s after cleanup: %+v, want it deleted or Terminating", ns, got)
	}
}

func TestStartReportsEarlyExitWithLogTail(t *testing.T) {
	fake := filepath.Join(t.TempDir(), "fake-etcd")
	script := "#!/bin/sh\necho 'fake etcd: cannot start' >&2\nexit 3\n"
	if err := os.WriteFile(fake, []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	_, err := Start(testContext(t), Options{Binaries: &Binaries{Etcd: fake, APIServer: fake}})
	if err == nil {
		t.Fatal("Start succeeded with an etcd that exits")
	}
	for _, want := range []string{"etcd exited", "exit status 3", "fake etcd: cannot start"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error lacks %q:\n%v", want, err)
		}
	}
}

func TestStartTimesOutWithErrNotReady(t *testing.T) {
	fake := filepath.Join(t.TempDir(), "hanging-etcd")
	if err := os.WriteFile(fake, []byte("#!/bin/sh\necho 'fake etcd: hanging'\nexec sleep 600\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	_, err := Start(testContext(t), Options{
		Binaries:     &Binaries{Etcd: fake, APIServer: fake},
		ReadyTimeout: 500 * time.Millisecond,
	})
	if !errors.Is(err, ErrNotReady) || !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("err = %v, want ErrNotReady and DeadlineExceeded", err)
	}
	if !strings.Contains(err.Error(), "fake etcd: hanging") {
		t.Errorf("error lacks the log tail:\n%v", err)
	}
}

// pidGone reports whether no process with this id exists any more.
func pidGone(pid int) bool { return errors.Is(syscall.Kill(pid, 0), syscall.ESRCH) }

func TestRestartAPIServerAndStop(t *testing.T) {
	ctx := testContext(t)
	began := time.Now()
	c, err := Start(ctx, Options{Logger: zerolog.New(zerolog.NewTestWriter(t))})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(c.Stop)
	t.Logf("own cluster ready in %v", time.Since(began))
	cl := clientFromConfig(t, c)
	host := c.Config().Host
	oldPID := c.api.proc.pid()

	began = time.Now()
	if err := c.RestartAPIServer(ctx); err != nil {
		t.Fatal(err)
	}
	t.Logf("kube-apiserver restarted in %v", time.Since(began))
	if c.api.proc.pid() == oldPID || !pidGone(oldPID) {
		t.Errorf("restart kept the old process %d", oldPID)
	}
	if api, etcd := c.PIDs(); api != c.api.proc.pid() || etcd != c.etcd.proc.pid() || api == 0 || etcd == 0 {
		t.Errorf("PIDs() = %d, %d after the restart; want the new kube-apiserver %d and etcd %d",
			api, etcd, c.api.proc.pid(), c.etcd.proc.pid())
	}
	if c.Config().Host != host {
		t.Errorf("host moved from %s to %s", host, c.Config().Host)
	}
	// The client made before the restart, with the old CA and token, still
	// gets answers on the same URL.
	var readyz string
	if err := cl.do(ctx, http.MethodGet, "/readyz", nil, &readyz); err != nil || readyz != "ok" {
		t.Fatalf("/readyz after restart = %q, %v", readyz, err)
	}

	pids := []int{c.api.proc.pid(), c.etcd.proc.pid()}
	dir := c.dir
	c.Stop()
	for _, pid := range pids {
		if !pidGone(pid) {
			t.Errorf("process %d survived Stop", pid)
		}
	}
	if _, err := os.Stat(dir); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("temp dir %s survived Stop: %v", dir, err)
	}
	c.Stop() // idempotent
	if err := c.RestartAPIServer(ctx); !errors.Is(err, ErrStopped) {
		t.Errorf("RestartAPIServer after Stop = %v, want ErrStopped", err)
	}
}
