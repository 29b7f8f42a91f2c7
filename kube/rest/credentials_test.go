package rest

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"math/big"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"
	"time"
)

// rcSelfSigned returns a PEM client certificate and key for CN name.
func rcSelfSigned(t *testing.T, name string) (certPEM, keyPEM []byte) {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &x509.Certificate{SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: name},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(time.Hour),
		ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageClientAuth}}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		t.Fatal(err)
	}
	kder, err := x509.MarshalECPrivateKey(key)
	if err != nil {
		t.Fatal(err)
	}
	return pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der}), pem.EncodeToMemory(&pem.Block{Type: "EC PRIVATE KEY", Bytes: kder})
}

// rcWho is what the TLS server saw of one request: the client
// certificate's CN ("" for none), the Authorization header, the User-Agent.
type rcWho struct{ cert, authz, agent string }

// TestAnonymousAndWithCredentials: Anonymous drops both the client
// certificate and the Authorization header of the client it comes from;
// WithCredentials puts a bearer header on it (refreshed once after a 401),
// and neither changes the client it was made from (client-go's
// AnonymousClientConfig, then a token source wrapped around it, which is
// what kube-controller-manager does for --use-service-account-credentials).
func TestAnonymousAndWithCredentials(t *testing.T) {
	rcNoLeaks(t)
	var mu sync.Mutex
	var seen []rcWho
	s := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		who := rcWho{authz: r.Header.Get("Authorization"), agent: r.Header.Get("User-Agent")}
		if len(r.TLS.PeerCertificates) > 0 {
			who.cert = r.TLS.PeerCertificates[0].Subject.CommonName
		}
		mu.Lock()
		seen = append(seen, who)
		mu.Unlock()
		w.Header().Set("Content-Type", "application/json")
		if who.authz == "Bearer sa0" { // the first token is stale
			w.WriteHeader(http.StatusUnauthorized)
			_, _ = w.Write([]byte(rcStatus(401, "Unauthorized", "Unauthorized")))
			return
		}
		_, _ = w.Write([]byte(rcCM))
	}))
	s.TLS = &tls.Config{ClientAuth: tls.RequestClientCert}
	s.StartTLS()
	t.Cleanup(s.Close)
	certPEM, keyPEM := rcSelfSigned(t, "kcm-manager")
	caPEM := pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: s.Certificate().Raw})
	base := rcClient(t, s.URL, func(c *Config) {
		c.TLS = TLSConfig{CAData: caPEM, CertData: certPEM, KeyData: keyPEM}
		c.Credentials = StaticToken("manager-token")
		c.UserAgent = "kcm/v0 (kcm)"
	})
	anon := base.Anonymous()
	t.Cleanup(rcTransport(anon).CloseIdleConnections)
	creds := &rcCreds{prefix: "sa"}
	sa := anon.WithOptions("kcm/v0 (replicaset-controller)", -1, 0).WithCredentials(creds)

	ctx := context.Background()
	for _, c := range []*Client{base, anon, sa, base} {
		if _, err := rcConfigMaps(c).Get(ctx, "cm1"); err != nil {
			t.Fatalf("%s: %v", c.UserAgent(), err)
		}
	}
	want := []rcWho{
		{cert: "kcm-manager", authz: "Bearer manager-token", agent: "kcm/v0 (kcm)"},
		{agent: "kcm/v0 (kcm)"},
		{authz: "Bearer sa0", agent: "kcm/v0 (replicaset-controller)"},
		{authz: "Bearer sa1", agent: "kcm/v0 (replicaset-controller)"},
		{cert: "kcm-manager", authz: "Bearer manager-token", agent: "kcm/v0 (kcm)"},
	}
	mu.Lock()
	defer mu.Unlock()
	if len(seen) != len(want) {
		t.Fatalf("the server saw %+v, want %+v", seen, want)
	}
	for i := range want {
		if seen[i] != want[i] {
			t.Errorf("request %d: the server saw %+v, want %+v", i, seen[i], want[i])
		}
	}
	if n := creds.invalidations(); n != 1 {
		t.Errorf("the credentials were invalidated %d times after one 401, want 1", n)
	}
	if anon.auth.anonymous() != true || sa.auth.anonymous() {
		t.Errorf("anonymous(): Anonymous %t, WithCredentials %t", anon.auth.anonymous(), sa.auth.anonymous())
	}
}
