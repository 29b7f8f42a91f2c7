package testenv

import (
	"crypto/rand"
	"crypto/rsa"
	"crypto/x509"
	"encoding/hex"
	"encoding/pem"
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// The identity behind the cluster's bearer token. system:masters bypasses
// RBAC, so tests can do anything; tests of authorization create their own
// users.
const (
	adminUser  = "kcm-testenv-admin"
	adminGroup = "system:masters"
)

// UncachedResource is the resource whose watch cache kube-apiserver runs
// without (see the package documentation): its watches are served by etcd,
// so watching from a compacted resourceVersion fails with 410 Gone.
const UncachedResource = "configmaps"

// apiServer is the kube-apiserver of a cluster: the files it is started
// with, and the running process.
type apiServer struct {
	bin     string
	args    []string
	logPath string
	host    string // https://127.0.0.1:<port>
	certDir string

	proc *process // nil while stopped
}

// serviceAccountKeyFile is the name, in the cluster's directory, of the
// RSA key kube-apiserver signs and verifies ServiceAccount tokens with.
const serviceAccountKeyFile = "service-account.key"

// ServiceAccountKeyFile returns the path of the private key kube-apiserver
// signs ServiceAccount tokens with: kube-controller-manager's
// --service-account-private-key-file, which its serviceaccount-token
// controller needs to run. It is removed by Stop.
func (c *Cluster) ServiceAccountKeyFile() string { return filepath.Join(c.dir, serviceAccountKeyFile) }

// clientCAFileName is the name, in the cluster's directory, of
// kube-apiserver's --client-ca-file.
const clientCAFileName = "client-ca.crt"

// ClientCA returns the CA whose client certificates kube-apiserver
// accepts (--client-ca-file); ClientCertificate issues them.
func (c *Cluster) ClientCA() *CA { return c.clientCA }

// serviceCIDR is the Service IP range. Nothing routes it; it only has to be
// valid and must contain the address of the "kubernetes" Service.
const serviceCIDR = "10.96.0.0/24"

// newAPIServer writes the files kube-apiserver needs into dir (a service
// account key, a token file) and returns the server, not yet started, with
// the bearer token that authenticates as a member of system:masters.
func newAPIServer(bin, dir, etcdURL string, port int, clientCAFile string) (*apiServer, string, error) {
	token, err := randomHex(32)
	if err != nil {
		return nil, "", err
	}
	tokenFile := filepath.Join(dir, "tokens.csv")
	line := fmt.Sprintf("%s,%s,%s,%s\n", token, adminUser, adminUser, adminGroup)
	if err := os.WriteFile(tokenFile, []byte(line), 0o600); err != nil {
		return nil, "", fmt.Errorf("write token file: %w", err)
	}
	keyFile := filepath.Join(dir, serviceAccountKeyFile)
	if err := writeRSAKey(keyFile); err != nil {
		return nil, "", err
	}
	certDir := filepath.Join(dir, "apiserver-certs")
	if err := os.MkdirAll(certDir, 0o700); err != nil {
		return nil, "", err
	}
	a := &apiServer{
		bin:     bin,
		logPath: filepath.Join(dir, "kube-apiserver.log"),
		host:    fmt.Sprintf("https://127.0.0.1:%d", port),
		certDir: certDir,
	}
	a.args = []string{
		"--etcd-servers=" + etcdURL,
		fmt.Sprintf("--secure-port=%d", port),
		"--bind-address=127.0.0.1",
		"--advertise-address=127.0.0.1",
		// Since 1.37 the endpoint reconcilers (lease, master-count) refuse a
		// loopback advertise address ("cannot use public IP 127.0.0.1 with
		// endpoint reconciler"); nothing here needs the default/kubernetes
		// Service's endpoints, so none are written.
		"--endpoint-reconciler-type=none",
		// No --tls-cert-file: kube-apiserver generates a self-signed serving
		// certificate (127.0.0.1 among its SANs) into --cert-dir on its first
		// start and reuses it on restarts, so the CA a client was given stays
		// valid.
		"--cert-dir=" + certDir,
		"--service-account-issuer=https://kubernetes.default.svc.cluster.local",
		"--service-account-key-file=" + keyFile,
		"--service-account-signing-key-file=" + keyFile,
		"--token-auth-file=" + tokenFile,
		// Client certificates signed by Cluster.ClientCA authenticate;
		// kube-apiserver also publishes the CA in
		// kube-system/extension-apiserver-authentication, where delegating
		// servers (kcm's secure port) look it up.
		"--client-ca-file=" + clientCAFile,
		"--authorization-mode=RBAC",
		"--service-cluster-ip-range=" + serviceCIDR,
		"--watch-cache-sizes=" + UncachedResource + "#0",
		"--profiling=false",
	}
	return a, token, nil
}

// certFile is where kube-apiserver writes its self-signed serving
// certificate (followed by the CA that signed it).
func (a *apiServer) certFile() string { return filepath.Join(a.certDir, "apiserver.crt") }

// readCA returns the serving certificate file once kube-apiserver has
// written it.
func (a *apiServer) readCA() ([]byte, error) {
	b, err := os.ReadFile(a.certFile())
	if err != nil {
		return nil, fmt.Errorf("waiting for the serving certificate: %w", err)
	}
	if !strings.Contains(string(b), "-----END CERTIFICATE-----") {
		return nil, fmt.Errorf("serving certificate %s is incomplete", a.certFile())
	}
	return b, nil
}

// start launches the process; the caller waits for readiness.
func (a *apiServer) start() error {
	p, err := startProcess("kube-apiserver", a.bin, a.args, a.logPath)
	if err != nil {
		return err
	}
	a.proc = p
	return nil
}

// stop ends the process, if running.
func (a *apiServer) stop() {
	if a.proc != nil {
		a.proc.stop(stopGrace)
		a.proc = nil
	}
}

// writeRSAKey writes a fresh 2048-bit RSA private key in PKCS#8 PEM. The
// one key both signs service account tokens and (through its public half)
// verifies them.
func writeRSAKey(path string) error {
	key, err := rsa.GenerateKey(rand.Reader, 2048)
	if err != nil {
		return fmt.Errorf("generate service account key: %w", err)
	}
	der, err := x509.MarshalPKCS8PrivateKey(key)
	if err != nil {
		return fmt.Errorf("encode service account key: %w", err)
	}
	pemBytes := pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: der})
	if err := os.WriteFile(path, pemBytes, 0o600); err != nil {
		return fmt.Errorf("write service account key: %w", err)
	}
	return nil
}

// randomHex returns n random bytes, hex encoded.
func randomHex(n int) (string, error) {
	b := make([]byte, n)
	if _, err := rand.Read(b); err != nil {
		return "", fmt.Errorf("random: %w", err)
	}
	return hex.EncodeToString(b), nil
}
