package clientcmd

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/base64"
	"encoding/pem"
	"errors"
	"fmt"
	"math/big"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/kcmlab/kcm/kube/rest"
)

// kcPKI is a throw-away CA and two client certificates with their keys,
// generated once per test binary.
type kcPKI struct {
	CA               []byte
	Cert, Key        []byte
	OtherCert, Other []byte // a second pair, to test mismatches
}

var (
	kcPKIOnce sync.Once
	kcPKIVal  kcPKI
)

func kcNewPKI(t *testing.T) kcPKI {
	t.Helper()
	kcPKIOnce.Do(func() {
		caKey, _ := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
		caT := &x509.Certificate{SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: "test-ca"},
			NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(time.Hour), IsCA: true,
			BasicConstraintsValid: true, KeyUsage: x509.KeyUsageCertSign}
		caDER, err := x509.CreateCertificate(rand.Reader, caT, caT, &caKey.PublicKey, caKey)
		if err != nil {
			panic(err)
		}
		caCert, _ := x509.ParseCertificate(caDER)
		pair := func(n int64) (cert, key []byte) {
			k, _ := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
			tmpl := &x509.Certificate{SerialNumber: big.NewInt(n), Subject: pkix.Name{CommonName: fmt.Sprint("user", n)},
				NotBefore: caT.NotBefore, NotAfter: caT.NotAfter, ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageClientAuth}}
			der, err := x509.CreateCertificate(rand.Reader, tmpl, caCert, &k.PublicKey, caKey)
			if err != nil {
				panic(err)
			}
			kder, _ := x509.MarshalECPrivateKey(k)
			return pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der}),
				pem.EncodeToMemory(&pem.Block{Type: "EC PRIVATE KEY", Bytes: kder})
		}
		kcPKIVal.CA = pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: caDER})
		kcPKIVal.Cert, kcPKIVal.Key = pair(2)
		kcPKIVal.OtherCert, kcPKIVal.Other = pair(3)
	})
	return kcPKIVal
}

func kcB64(b []byte) string { return base64.StdEncoding.EncodeToString(b) }

func kcWriteFile(t *testing.T, dir, name string, data []byte) string {
	t.Helper()
	p := filepath.Join(dir, name)
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, data, 0o600); err != nil {
		t.Fatal(err)
	}
	return p
}

// kcEnv is an injected environment: tests never read the real one.
func kcEnv(kv map[string]string) func(string) string {
	return func(k string) string { return kv[k] }
}

// kcDoc builds a one-context kubeconfig around a cluster and a
// user body (YAML lines indented by four spaces).
func kcDoc(cluster, user string) string {
	return "apiVersion: v1\nkind: Config\ncurrent-context: ctx\n" +
		"clusters:\n- name: cl\n  cluster:\n" + cluster +
		"contexts:\n- name: ctx\n  context:\n    cluster: cl\n    user: u\n" +
		"users:\n- name: u\n  user:\n" + user
}

// kcLoadDoc writes doc as dir/config and resolves its current context.
func kcLoadDoc(t *testing.T, dir, doc string) (*rest.Config, string, error) {
	t.Helper()
	p := kcWriteFile(t, dir, "config", []byte(doc))
	cfg, err := LoadKubeconfig(LoadOptions{ExplicitPath: p, Getenv: kcEnv(nil)})
	return cfg, p, err
}

func TestParseKubeconfigFields(t *testing.T) {
	doc := `
apiVersion: v1
kind: Config
preferences: {colors: true}
current-context: a
extensions: [{name: x, extension: {y: 1}}]
clusters:
- name: c
  cluster:
    server: https://h:6443
    tls-server-name: api.internal
    insecure-skip-tls-verify: true
    certificate-authority: certs/ca.pem
    certificate-authority-data: QUJD
    proxy-url: http://proxy:3128
    extensions:
    - name: client.authentication.k8s.io/exec
      extension: {audience: kcm, nested: {n: 1}}
contexts:
- name: a
  context: {cluster: c, user: u, namespace: ns, unknownField: 1}
users:
- name: u
  user:
    token: tok
    tokenFile: tok.txt
    client-certificate: /abs/c.crt
    client-certificate-data: Q0VSVA==
    client-key: k.key
    client-key-data: S0VZ
    username: alice
    password: pw
    exec:
      apiVersion: client.authentication.k8s.io/v1
      command: ./bin/plugin
      args: [get-token, --x]
      env: [{name: A, value: B}]
      installHint: install it
      provideClusterInfo: true
      interactiveMode: Never
- name: u2
  user:
    exec: {command: plugin}
`
	kc, err := ParseKubeconfig([]byte(doc), "/etc/kube/config")
	if err != nil {
		t.Fatal(err)
	}
	if kc.CurrentContext != "a" || kc.CurrentContextFile != "/etc/kube/config" || len(kc.Files) != 1 {
		t.Fatalf("current-context = %q from %q, files %q", kc.CurrentContext, kc.CurrentContextFile, kc.Files)
	}
	c := kc.Clusters["c"]
	wantCluster := KubeconfigCluster{File: "/etc/kube/config", Server: "https://h:6443", TLSServerName: "api.internal",
		InsecureSkipTLSVerify: true, CertificateAuthority: "/etc/kube/certs/ca.pem", CertificateAuthorityData: "QUJD"}
	ext := c.ExecExtension
	c.ExecExtension = nil
	if *c != wantCluster {
		t.Errorf("cluster = %#v\nwant %#v", *c, wantCluster)
	}
	if m, ok := ext.(map[string]any); !ok || m["audience"] != "kcm" {
		t.Errorf("exec extension = %v", ext)
	}
	if got := *kc.Contexts["a"]; got != (KubeconfigContext{File: "/etc/kube/config", Cluster: "c", User: "u", Namespace: "ns"}) {
		t.Errorf("context = %+v", got)
	}
	u := kc.Users["u"]
	checks := []struct{ field, got, want string }{
		{"token", u.Token, "tok"},
		{"tokenFile (relative → file's dir)", u.TokenFile, "/etc/kube/tok.txt"},
		{"client-certificate (absolute kept)", u.ClientCertificate, "/abs/c.crt"},
		{"client-certificate-data", u.ClientCertificateData, "Q0VSVA=="},
		{"client-key", u.ClientKey, "/etc/kube/k.key"},
		{"client-key-data", u.ClientKeyData, "S0VZ"},
		{"username", u.Username, "alice"},
		{"password", u.Password, "pw"},
		{"exec.command with separator (resolved)", u.Exec.Command, "/etc/kube/bin/plugin"},
		{"exec.apiVersion", u.Exec.APIVersion, ExecAPIVersionV1},
		{"exec.args", strings.Join(u.Exec.Args, " "), "get-token --x"},
		{"exec.env", u.Exec.Env[0].Name + "=" + u.Exec.Env[0].Value, "A=B"},
		{"exec.installHint", u.Exec.InstallHint, "install it"},
		{"exec.interactiveMode", u.Exec.InteractiveMode, "Never"},
		{"exec.command without separator (PATH lookup, kept)", kc.Users["u2"].Exec.Command, "plugin"},
	}
	for _, c := range checks {
		if c.got != c.want {
			t.Errorf("%s = %q, want %q", c.field, c.got, c.want)
		}
	}
	if !u.Exec.ProvideClusterInfo {
		t.Error("provideClusterInfo not parsed")
	}
}

func TestParseKubeconfigEmptyAndJSON(t *testing.T) {
	kc, err := ParseKubeconfig([]byte("  \n"), "empty")
	if err != nil || len(kc.Contexts) != 0 {
		t.Fatalf("empty file: %v, %v", kc, err)
	}
	// kubectl accepts JSON kubeconfigs; JSON is YAML.
	kc, err = ParseKubeconfig([]byte(`{"current-context":"x","contexts":[{"name":"x","context":{"cluster":"c"}}]}`), "")
	if err != nil || kc.Contexts["x"].Cluster != "c" {
		t.Fatalf("json: %v, %v", kc, err)
	}
}

func TestMergeKubeconfigsFirstWins(t *testing.T) {
	a, _ := ParseKubeconfig([]byte("clusters: [{name: c, cluster: {server: 'https://a'}}]\n"), "/a")
	b, _ := ParseKubeconfig([]byte("current-context: fromB\nclusters: [{name: c, cluster: {server: 'https://b', tls-server-name: b}}, {name: d, cluster: {server: 'https://d'}}]\n"), "/b")
	c, _ := ParseKubeconfig([]byte("current-context: fromC\n"), "/c")
	m := MergeKubeconfigs(a, b, c)
	if got := m.Clusters["c"]; got.Server != "https://a" || got.TLSServerName != "" || got.File != "/a" {
		t.Errorf("cluster c = %+v, want a's entry taken whole", got)
	}
	if m.Clusters["d"].File != "/b" || m.CurrentContext != "fromB" || m.CurrentContextFile != "/b" {
		t.Errorf("merged = %v, d from %q", m, m.Clusters["d"].File)
	}
	if strings.Join(m.Files, ",") != "/a,/b,/c" {
		t.Errorf("files = %q", m.Files)
	}
}

// TestKubeconfigErrors checks that every malformed or incomplete kubeconfig
// is refused with a message naming the file, the context and the field.
func TestKubeconfigErrors(t *testing.T) {
	pki := kcNewPKI(t)
	ok := "    server: https://h\n"
	tests := []struct {
		name string
		doc  string
		// want are substrings of the message after "kubeconfig <file>".
		want    []string
		wantCtx bool // message names context "ctx"
		is      error
	}{
		{"yaml syntax error has line", "clusters:\n- name: a\n  cluster: [\n", []string{"yaml: line"}, false, ErrInvalidKubeconfig},
		{"yaml type error", "clusters: 5\n", []string{"line 1: clusters: unexpected !!int value, want a list"}, false, ErrInvalidKubeconfig},
		{"yaml type error on a scalar", kcDoc("    server: https://h\n    insecure-skip-tls-verify: maybe-not\n", ""),
			[]string{"line 8: insecure-skip-tls-verify: unexpected !!str value, want a bool"}, false, ErrInvalidKubeconfig},
		{"duplicate cluster", "clusters: [{name: a}, {name: a}]\n", []string{`cluster "a" is defined twice`}, false, ErrInvalidKubeconfig},
		{"unnamed user", "users: [{user: {token: x}}]\n", []string{"users[0]: name is not set"}, false, ErrInvalidKubeconfig},
		{"no current context", "clusters: []\n", []string{"current-context is not set"}, false, ErrNoContext},
		{"unknown context", "current-context: nope\n", []string{`context "nope" is not defined`}, false, ErrContextNotFound},
		{"context without cluster", "current-context: ctx\ncontexts: [{name: ctx, context: {user: u}}]\n",
			[]string{"cluster is not set"}, true, ErrInvalidKubeconfig},
		{"unknown cluster", "current-context: ctx\ncontexts: [{name: ctx, context: {cluster: c}}]\n",
			[]string{`cluster "c" is not defined`}, true, ErrInvalidKubeconfig},
		{"unknown user", strings.Replace(kcDoc(ok, "    token: t\n"), "- name: u\n", "- name: v\n", 1),
			[]string{`user "u" is not defined`}, true, ErrInvalidKubeconfig},
		{"missing server", kcDoc("    tls-server-name: x\n", "    token: t\n"),
			[]string{`cluster "cl": server is not set`}, true, ErrInvalidKubeconfig},
		{"server without scheme", kcDoc("    server: h:6443\n", ""),
			[]string{`server "h:6443" is not an https:// or http:// URL`}, true, ErrInvalidKubeconfig},
		{"server with user info", kcDoc("    server: https://me:pw@h\n", ""),
			[]string{"server must not carry user info"}, true, ErrInvalidKubeconfig},
		{"bad CA base64", kcDoc(ok+"    certificate-authority-data: '%%%'\n", ""),
			[]string{`cluster "cl": certificate-authority-data is not valid base64`}, true, ErrInvalidKubeconfig},
		{"CA not PEM", kcDoc(ok+"    certificate-authority-data: "+kcB64([]byte("nope"))+"\n", ""),
			[]string{"certificate-authority-data holds no PEM certificate"}, true, ErrInvalidKubeconfig},
		{"CA file missing", kcDoc(ok+"    certificate-authority: nope.crt\n", ""),
			[]string{"certificate-authority cannot be read", "nope.crt"}, true, os.ErrNotExist},
		{"insecure with CA data", kcDoc(ok+"    insecure-skip-tls-verify: true\n    certificate-authority-data: "+kcB64(pki.CA)+"\n", ""),
			[]string{"insecure-skip-tls-verify cannot be combined with certificate-authority-data"}, true, ErrInvalidKubeconfig},
		{"bad key base64", kcDoc(ok, "    client-certificate-data: "+kcB64(pki.Cert)+"\n    client-key-data: 'not*base64'\n"),
			[]string{`user "u": client-key-data is not valid base64`}, true, ErrInvalidKubeconfig},
		{"cert without key", kcDoc(ok, "    client-certificate-data: "+kcB64(pki.Cert)+"\n"),
			[]string{"client-certificate-data is set but client-key and client-key-data are not"}, true, ErrInvalidKubeconfig},
		{"key without cert", kcDoc(ok, "    client-key-data: "+kcB64(pki.Key)+"\n"),
			[]string{"client-key-data is set but client-certificate and client-certificate-data are not"}, true, ErrInvalidKubeconfig},
		{"cert not PEM", kcDoc(ok, "    client-certificate-data: "+kcB64(pki.Key)+"\n    client-key-data: "+kcB64(pki.Key)+"\n"),
			[]string{"client-certificate-data holds no PEM certificate"}, true, ErrInvalidKubeconfig},
		{"key not PEM", kcDoc(ok, "    client-certificate-data: "+kcB64(pki.Cert)+"\n    client-key-data: "+kcB64(pki.Cert)+"\n"),
			[]string{"client-key-data holds no PEM private key"}, true, ErrInvalidKubeconfig},
		{"key garbage", kcDoc(ok, "    client-certificate-data: "+kcB64(pki.Cert)+"\n    client-key-data: "+
			kcB64(pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: []byte("junk")}))+"\n"),
			[]string{"client-key-data holds a private key that cannot be parsed"}, true, ErrInvalidKubeconfig},
		{"mismatched pair", kcDoc(ok, "    client-certificate-data: "+kcB64(pki.Cert)+"\n    client-key-data: "+kcB64(pki.Other)+"\n"),
			[]string{"client-certificate-data and client-key-data do not form a key pair"}, true, ErrInvalidKubeconfig},
		{"client key file missing", kcDoc(ok, "    client-certificate-data: "+kcB64(pki.Cert)+"\n    client-key: k.pem\n"),
			[]string{"client-key cannot be read"}, true, os.ErrNotExist},
		{"token file missing", kcDoc(ok, "    tokenFile: tok\n"),
			[]string{`user "u": tokenFile`, "no such file"}, true, os.ErrNotExist},
		{"exec without command", kcDoc(ok, "    exec: {apiVersion: client.authentication.k8s.io/v1}\n"),
			[]string{`user "u": exec: command is not set`}, true, ErrInvalidKubeconfig},
		{"exec old apiVersion", kcDoc(ok, "    exec: {apiVersion: client.authentication.k8s.io/v1alpha1, command: x}\n"),
			[]string{`exec: apiVersion "client.authentication.k8s.io/v1alpha1" is not supported`}, true, ErrInvalidKubeconfig},
		{"exec interactive always", kcDoc(ok, "    exec: {apiVersion: client.authentication.k8s.io/v1, command: x, interactiveMode: Always}\n"),
			[]string{"interactiveMode Always is not supported"}, true, ErrInvalidKubeconfig},
		{"auth-provider", kcDoc(ok, "    auth-provider: {name: oidc, config: {id-token: x}}\n"),
			[]string{`auth-provider "oidc" is not supported`}, true, ErrInvalidKubeconfig},
		{"impersonation", kcDoc(ok, "    token: t\n    as: admin\n"),
			[]string{"impersonation (as) is not supported"}, true, ErrInvalidKubeconfig},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, path, err := kcLoadDoc(t, t.TempDir(), tt.doc)
			if err == nil {
				t.Fatal("no error")
			}
			msg := err.Error()
			if !strings.HasPrefix(msg, "kubeconfig "+path+": ") {
				t.Errorf("error does not start by naming the file %s: %q", path, msg)
			}
			if tt.wantCtx && !strings.Contains(msg, `context "ctx": `) {
				t.Errorf("error does not name the context: %q", msg)
			}
			for _, w := range tt.want {
				if !strings.Contains(msg, w) {
					t.Errorf("error %q does not contain %q", msg, w)
				}
			}
			if !errors.Is(err, tt.is) || !errors.Is(err, ErrInvalidKubeconfig) {
				t.Errorf("errors.Is(%v, %v) and ErrInvalidKubeconfig: want both", err, tt.is)
			}
		})
	}
}

// TestClusterFields covers each cluster field's effect on the Config.
func TestClusterFields(t *testing.T) {
	pki := kcNewPKI(t)
	dir := t.TempDir()
	kcWriteFile(t, dir, "ca/ca.crt", pki.CA)
	tests := []struct {
		name       string
		cluster    string
		host       string
		ca         []byte
		insecure   bool
		serverName string
	}{
		{"https, trailing slash trimmed", "    server: https://h:6443/\n", "https://h:6443", nil, false, ""},
		{"http with path prefix", "    server: http://h/k8s/clusters/c1\n", "http://h/k8s/clusters/c1", nil, false, ""},
		{"CA data", "    server: https://h\n    certificate-authority-data: " + kcB64(pki.CA) + "\n", "https://h", pki.CA, false, ""},
		{"CA file relative to the kubeconfig", "    server: https://h\n    certificate-authority: ca/ca.crt\n", "https://h", pki.CA, false, ""},
		// kubectl: the -data field wins; the file is not even read.
		{"CA data wins over file", "    server: https://h\n    certificate-authority: missing.crt\n    certificate-authority-data: " + kcB64(pki.CA) + "\n",
			"https://h", pki.CA, false, ""},
		{"insecure", "    server: https://h\n    insecure-skip-tls-verify: true\n", "https://h", nil, true, ""},
		{"insecure false with CA", "    server: https://h\n    insecure-skip-tls-verify: false\n    certificate-authority-data: " + kcB64(pki.CA) + "\n",
			"https://h", pki.CA, false, ""},
		{"tls-server-name", "    server: https://10.0.0.1\n    tls-server-name: kubernetes\n", "https://10.0.0.1", nil, false, "kubernetes"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cfg, path, err := kcLoadDoc(t, dir, kcDoc(tt.cluster, ""))
			if err != nil {
				t.Fatal(err)
			}
			if cfg.Host != tt.host || string(cfg.TLS.CAData) != string(tt.ca) || cfg.TLS.Insecure != tt.insecure ||
				cfg.TLS.ServerName != tt.serverName {
				t.Errorf("got %v (server name %q)", cfg, cfg.TLS.ServerName)
			}
			if cfg.Source != path+" context ctx" {
				t.Errorf("Source = %q", cfg.Source)
			}
			if cfg.Credentials != nil {
				t.Errorf("a user with no fields is anonymous; got %v", cfg.Credentials)
			}
		})
	}
}

// TestUserFields covers each auth field and kubectl's precedence among them.
func TestUserFields(t *testing.T) {
	pki := kcNewPKI(t)
	dir := t.TempDir()
	kcWriteFile(t, dir, "tok", []byte("file-token\n"))
	kcWriteFile(t, dir, "pki/c.crt", pki.Cert)
	kcWriteFile(t, dir, "pki/c.key", pki.Key)
	certData := "    client-certificate-data: " + kcB64(pki.Cert) + "\n    client-key-data: " + kcB64(pki.Key) + "\n"
	exec := "    exec: {apiVersion: client.authentication.k8s.io/v1, command: /no/such/plugin}\n"
	tests := []struct {
		name     string
		user     string
		wantAuth string // Authorization header
		wantType string
		wantCert bool
	}{
		{"token", "    token: abc\n", "Bearer abc", "rest.StaticToken", false},
		{"tokenFile relative", "    tokenFile: tok\n", "Bearer file-token", "*clientcmd.TokenFile", false},
		{"tokenFile wins over token", "    token: inline\n    tokenFile: tok\n", "Bearer file-token", "*clientcmd.TokenFile", false},
		{"token used when tokenFile unreadable", "    token: inline\n    tokenFile: gone\n", "Bearer inline", "rest.StaticToken", false},
		{"basic", "    username: alice\n    password: s3cret\n", "Basic " + kcB64([]byte("alice:s3cret")), "clientcmd.BasicAuth", false},
		{"token wins over basic", "    token: abc\n    username: alice\n    password: pw\n", "Bearer abc", "rest.StaticToken", false},
		{"client cert data", certData, "", "<nil>", true},
		{"client cert files", "    client-certificate: pki/c.crt\n    client-key: pki/c.key\n", "", "<nil>", true},
		{"cert data wins over files", "    client-certificate: nope.crt\n    client-key: nope.key\n" + certData, "", "<nil>", true},
		{"cert combines with token", certData + "    token: abc\n", "Bearer abc", "rest.StaticToken", true},
		{"cert combines with basic", certData + "    username: a\n    password: b\n", "Basic " + kcB64([]byte("a:b")), "clientcmd.BasicAuth", true},
		{"exec alone", exec, "", "*clientcmd.ExecCredentials", false},
		// client-go skips the exec plugin when a token, basic auth or a
		// client certificate is configured.
		{"token wins over exec", exec + "    token: abc\n", "Bearer abc", "rest.StaticToken", false},
		{"cert wins over exec", exec + certData, "", "<nil>", true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cfg, _, err := kcLoadDoc(t, dir, kcDoc("    server: https://h\n", tt.user))
			if err != nil {
				t.Fatal(err)
			}
			if got := fmt.Sprintf("%T", cfg.Credentials); got != tt.wantType {
				t.Fatalf("credentials type %s, want %s", got, tt.wantType)
			}
			if cfg.Credentials != nil && tt.wantType != "*clientcmd.ExecCredentials" {
				h, err := cfg.Credentials.Authorization(t.Context())
				if err != nil || h != tt.wantAuth {
					t.Errorf("Authorization = %q, %v; want %q", h, err, tt.wantAuth)
				}
			}
			hasCert := len(cfg.TLS.CertData) > 0 && len(cfg.TLS.KeyData) > 0
			if hasCert != tt.wantCert {
				t.Errorf("client cert present = %t, want %t", hasCert, tt.wantCert)
			}
			if hasCert && (string(cfg.TLS.CertData) != string(pki.Cert) || string(cfg.TLS.KeyData) != string(pki.Key)) {
				t.Error("client cert/key bytes differ from the test PKI")
			}
		})
	}
}

// TestSecretsNeverPrinted formats every type that may hold a secret, and
// the errors of broken configs, and checks the secret is absent.
func TestSecretsNeverPrinted(t *testing.T) {
	pki := kcNewPKI(t)
	const secret = "SUPERSECRETVALUE"
	dir := t.TempDir()
	tokPath := kcWriteFile(t, dir, "tok", []byte(secret))
	doc := "current-context: ctx\n" +
		"clusters: [{name: cl, cluster: {server: 'https://h'}}]\n" +
		"contexts: [{name: ctx, context: {cluster: cl, user: u}}, {name: c2, context: {cluster: cl, user: b}},\n" +
		"  {name: c3, context: {cluster: cl, user: e}}, {name: c4, context: {cluster: cl, user: f}}]\n" +
		"users:\n" +
		"- {name: u, user: {token: " + secret + ", client-certificate-data: " + kcB64(pki.Cert) +
		", client-key-data: " + kcB64(append([]byte("# "+secret+"\n"), pki.Key...)) + "}}\n" +
		"- {name: b, user: {username: alice, password: " + secret + "}}\n" +
		"- {name: e, user: {exec: {apiVersion: client.authentication.k8s.io/v1, command: kcm-test-absent-plugin, args: [--token=" + secret +
		"], env: [{name: KEY, value: " + secret + "}]}}}\n" +
		"- {name: f, user: {tokenFile: " + tokPath + "}}\n"
	p := kcWriteFile(t, dir, "config", []byte(doc))
	kc, err := ReadKubeconfig(LoadOptions{ExplicitPath: p})
	if err != nil {
		t.Fatal(err)
	}
	var printed []any
	printed = append(printed, kc, *kc.Users["u"], kc.Users["u"], *kc.Users["e"], kc.Users["e"].Exec, *kc.Users["e"].Exec)
	for _, ctx := range []string{"ctx", "c2", "c3", "c4"} {
		cfg, err := kc.ClientConfig(LoadOptions{Context: ctx})
		if err != nil {
			t.Fatalf("%s: %v", ctx, err)
		}
		if _, err := cfg.Credentials.Authorization(t.Context()); err != nil && ctx != "c3" {
			t.Fatal(err) // fill caches so that they hold the secret
		}
		printed = append(printed, cfg, cfg.Credentials)
	}
	for i, v := range printed {
		for _, verb := range []string{"%v", "%+v", "%#v", "%s"} {
			if s := fmt.Sprintf(verb, v); strings.Contains(s, secret) {
				t.Errorf("value %d printed with %s shows the secret: %s", i, verb, s)
			}
		}
	}

	// Errors: a broken key whose bytes contain the secret, a YAML type error
	// on a value that is the secret, and a plugin error.
	bad := []string{
		kcDoc("    server: https://h\n", "    client-certificate-data: "+kcB64(pki.Cert)+"\n    client-key-data: "+
			kcB64([]byte("-----BEGIN PRIVATE KEY-----\n"+secret+"\n-----END PRIVATE KEY-----\n"))+"\n"),
		kcDoc("    server: https://h\n    insecure-skip-tls-verify: "+secret+"\n", ""),
		kcDoc("    server: https://h\n", "    client-certificate-data: "+kcB64(pki.Cert)+"\n    client-key-data: "+secret+"!\n"),
		kcDoc("    server: https://u:"+secret+"@h\n", ""),
	}
	for i, d := range bad {
		_, _, err := kcLoadDoc(t, t.TempDir(), d)
		if err == nil || strings.Contains(err.Error(), secret) {
			t.Errorf("broken config %d: error %v", i, err)
		}
	}
	cfg, err := kc.ClientConfig(LoadOptions{Context: "c3"})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := cfg.Credentials.Authorization(t.Context()); err == nil || strings.Contains(err.Error(), secret) {
		t.Errorf("exec error %v", err)
	}
}

// ExampleLoadKubeconfig loads a kubeconfig whose CA and client certificate
// are files next to it, as --kubeconfig would.
func ExampleLoadKubeconfig() {
	cfg, err := LoadKubeconfig(LoadOptions{
		ExplicitPath: filepath.Join("testdata", "kubeconfig", "example.yaml"),
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(cfg.Host)
	fmt.Println(cfg.Source)
	fmt.Println(cfg.TLS.ServerName, len(cfg.TLS.CAData) > 0, len(cfg.TLS.CertData) > 0)

	cfg, _ = LoadKubeconfig(LoadOptions{
		ExplicitPath: filepath.Join("testdata", "kubeconfig", "example.yaml"),
		Context:      "dev-token",
	})
	fmt.Println(cfg.Source, cfg.Credentials)
	// Output:
	// https://127.0.0.1:6443
	// testdata/kubeconfig/example.yaml context dev
	// kubernetes.default true true
	// testdata/kubeconfig/example.yaml context dev-token TokenFile(testdata/kubeconfig/token, <redacted>)
}
