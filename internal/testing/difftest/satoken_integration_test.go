//go:build !nocluster

package difftest

import (
	"context"
	"crypto/rand"
	"crypto/rsa"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"math/big"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/kcmlab/kcm/ctrl"
	"github.com/kcmlab/kcm/ctrl/serviceaccounttoken"
)

// kcmSATokens is kube-controller-manager v1.37's name of the
// serviceaccount-token controller.
const kcmSATokens = "serviceaccount-token-controller"

// saTokenAllowances: each cluster gives the accounts their own UIDs, so
// the tokens (whose claims carry the UID) and the UID annotations differ
// as recorded objects; the recorded states compare them with the UIDs
// named, claim by claim, and check both signatures.
var saTokenAllowances = []Allowance{
	{Key: "Secret " + saTokenScenario + "/*", Line: "token: ", Reason: "the JWT's claims carry the account's UID, which each cluster assigns (compared in the states with the UID named)"},
	{Key: "Secret " + saTokenScenario + "/*", Line: "kubernetes.io/service-account.uid: ", Reason: "the account's UID, which each cluster assigns (compared in the states)"},
}

// TestServiceAccountTokensMatchKCM runs the service-account token
// scenario under kcm's serviceaccount-token controller and under
// kube-controller-manager's, each on a fresh cluster, both given the same
// RSA key file and CA file, and requires the same states after each phase
// and the same Secrets and ServiceAccounts at the end.
func TestServiceAccountTokensMatchKCM(t *testing.T) {
	key, keyFile := writeSAKey(t)
	caPEM := newCA(t, key)
	caFile := filepath.Join(t.TempDir(), "ca.crt")
	if err := os.WriteFile(caFile, caPEM, 0o600); err != nil {
		t.Fatal(err)
	}
	matchSATokens(t, ServiceAccountTokenScenario(&key.PublicKey, caPEM), "the --root-ca-file bundle",
		"--service-account-private-key-file="+keyFile, "--root-ca-file="+caFile)
}

// TestServiceAccountTokensWithoutCAFileMatchKCM: the same with no
// --root-ca-file on either side, where ca.crt is the CA of each manager's
// kubeconfig (its cluster's, shown as "<cluster CA>").
func TestServiceAccountTokensWithoutCAFileMatchKCM(t *testing.T) {
	key, keyFile := writeSAKey(t)
	matchSATokens(t, ServiceAccountTokenScenario(&key.PublicKey, nil), "<cluster CA>", "--service-account-private-key-file="+keyFile)
}

// writeSAKey writes a fresh RSA key, PEM PKCS #1, into a file.
func writeSAKey(t *testing.T) (*rsa.PrivateKey, string) {
	t.Helper()
	key, err := rsa.GenerateKey(rand.Reader, 2048)
	if err != nil {
		t.Fatal(err)
	}
	keyFile := filepath.Join(t.TempDir(), "sa.key")
	if err := os.WriteFile(keyFile, pem.EncodeToMemory(&pem.Block{Type: "RSA PRIVATE KEY", Bytes: x509.MarshalPKCS1PrivateKey(key)}), 0o600); err != nil {
		t.Fatal(err)
	}
	return key, keyFile
}

// newCA returns a self-signed CA certificate of key, PEM-encoded.
func newCA(t *testing.T, key *rsa.PrivateKey) []byte {
	t.Helper()
	tmpl := &x509.Certificate{SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: "difftest-root"}, IsCA: true,
		BasicConstraintsValid: true, KeyUsage: x509.KeyUsageCertSign, NotBefore: time.Unix(0, 0), NotAfter: time.Unix(1<<33, 0)}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, key.Public(), key)
	if err != nil {
		t.Fatal(err)
	}
	return pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der})
}

// matchSATokens records sc under both managers with args and compares.
func matchSATokens(t *testing.T, sc Scenario, caName string, args ...string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 4*time.Minute)
	defer cancel()
	kcm := &InProcess{Descriptors: func() []*ctrl.ControllerDescriptor {
		return []*ctrl.ControllerDescriptor{serviceaccounttoken.Descriptor()}
	}, Args: args}
	ref := &KubeControllerManager{Controllers: []string{kcmSATokens}, Args: args}
	ra, rb := record(ctx, t, kcm, sc), record(ctx, t, ref, sc)
	for side, r := range map[string]*Recording{"kcm": ra[sc.Name], "kube-controller-manager": rb[sc.Name]} {
		var states []string
		for _, s := range r.Timeline.States {
			states = append(states, "["+s.Phase+"] "+s.State)
		}
		all := strings.Join(states, "\n")
		t.Logf("%s, states:\n  %s", side, strings.Join(states, "\n  "))
		// The comparison must have something to compare: filled, verifiable
		// tokens and the three kinds of deletion.
		for _, want := range []string{
			`builder-token type=kubernetes.io/service-account-token keys=[ca.crt namespace token] namespace="serviceaccount-token" ca.crt=` + caName +
				` annotations: name="builder" uid="<uid of builder>"; token: {alg=RS256 kid=`,
			`kubernetes.io/serviceaccount/service-account.uid=<uid of builder> sub=system:serviceaccount:serviceaccount-token:builder} signature verifies with the key file's public key`,
			`prefilled type=kubernetes.io/service-account-token keys=[ca.crt namespace token] namespace="elsewhere" ca.crt=` + caName,
			"deployer's secrets: []",
		} {
			if !strings.Contains(all, want) {
				t.Errorf("%s: no state with %s", side, want)
			}
		}
		if strings.Contains(all, "builder-token-stale") || strings.Contains(all, "ghost-token") {
			t.Errorf("%s: the stale or orphaned token survived", side)
		}
	}
	allow := slices.Clone(saTokenAllowances)
	if caName == "<cluster CA>" {
		allow = append(allow, Allowance{Key: "Secret " + saTokenScenario + "/*", Line: "ca.crt: ",
			Reason: "each cluster has its own CA (compared in the states as <cluster CA>)"})
	}
	compare(t, kcm, ref, ra, rb, allow, sc)
}
