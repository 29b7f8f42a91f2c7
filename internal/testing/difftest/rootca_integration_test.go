//go:build !nocluster

package difftest

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"math/big"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/kcmlab/kcm/ctrl"
	"github.com/kcmlab/kcm/ctrl/rootcacertpublisher"
)

// kcmRootCAPublisher is kube-controller-manager v1.37's name of
// root-ca-cert-publisher.
const kcmRootCAPublisher = "root-ca-certificate-publisher-controller"

// TestRootCAPublisherMatchesKCM runs RootCAScenario under kcm's
// root-ca-cert-publisher and under kube-controller-manager's, each on a
// fresh cluster, both given the same --root-ca-file, and requires the same
// states: every namespace's kube-root-ca.crt as published, after each
// edit and after its deletion, with the same number of writes.
func TestRootCAPublisherMatchesKCM(t *testing.T) {
	path, pemCA := writeTestCA(t)
	args := []string{"--root-ca-file=" + path}
	checkRootCA(t, RootCAScenario(pemCA), args, "<root-ca-file>")
}

// TestRootCAPublisherWithoutFileMatchesKCM is the same without
// --root-ca-file: each manager publishes the CA its kubeconfig trusts.
func TestRootCAPublisherWithoutFileMatchesKCM(t *testing.T) {
	checkRootCA(t, RootCAScenario(nil), nil, "<cluster CA>")
}

func checkRootCA(t *testing.T, sc Scenario, args []string, ca string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 4*time.Minute)
	defer cancel()
	kcm := &InProcess{Descriptors: func() []*ctrl.ControllerDescriptor {
		return []*ctrl.ControllerDescriptor{rootcacertpublisher.Descriptor()}
	}, Args: args}
	ref := &KubeControllerManager{Controllers: []string{kcmRootCAPublisher}, Args: args}
	ra, rb := record(ctx, t, kcm, sc), record(ctx, t, ref, sc)
	for side, r := range map[string]*Recording{"kcm": ra[sc.Name], "kube-controller-manager": rb[sc.Name]} {
		all := loggedStates(t, side, r)
		// The comparison must have something to compare: every namespace
		// published with the expected CA, the edits undone by one write
		// each, the deleted ConfigMap made again.
		for _, want := range []string{
			"[present] kube-system: data { ca.crt=" + ca + " } annotations { " + rootCADescription + "=<description> }",
			"[namespace created] difftest-rootca-3: data { ca.crt=" + ca + " }",
			"[ca.crt edited, a key, a label and an annotation added] difftest-rootca-1: data { ca.crt=" + ca +
				" } annotations { kubernetes.io/description=<description> note=\"kept\" } labels map[team:a] binaryData [] immutable false; events: 2",
			"[description changed] difftest-rootca-2: data { ca.crt=" + ca + " } annotations { kubernetes.io/description=\"mine\" } " +
				"labels map[] binaryData [] immutable false; written after the edit: false",
			"[a label and an annotation added] difftest-rootca-2: data { ca.crt=" + ca + " } annotations { kubernetes.io/description=\"mine\" " +
				"note=\"kept\" } labels map[team:b] binaryData [] immutable false; written after the edit: false",
			"[deleted] difftest-rootca-3: data { ca.crt=" + ca + " }",
		} {
			if !strings.Contains(all, want) {
				t.Errorf("%s: no state with %s", side, want)
			}
		}
	}
	compare(t, kcm, ref, ra, rb, nil, sc)
}

// writeTestCA writes a fresh self-signed CA certificate to a file and
// returns its path and contents.
func writeTestCA(t *testing.T) (string, []byte) {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &x509.Certificate{SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: "difftest-root-ca"},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(24 * time.Hour), IsCA: true, BasicConstraintsValid: true,
		KeyUsage: x509.KeyUsageCertSign}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		t.Fatal(err)
	}
	data := pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der})
	path := filepath.Join(t.TempDir(), "root-ca.crt")
	if err := os.WriteFile(path, data, 0o600); err != nil {
		t.Fatal(err)
	}
	return path, data
}
