package clientcmd

import (
	"context"
	"encoding/json"
	"encoding/pem"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/kcmlab/kcm/clock"
)

// kcPlugin is an exec credential plugin script in a temp dir. It records its
// runs, args, KUBERNETES_EXEC_INFO and $PLUGIN_FOO next to itself, copies
// the file "stderr" to stderr and "stdout" to stdout, and exits with the
// code in the file "exit".
type kcPlugin struct{ dir, path string }

func kcWritePlugin(t *testing.T, stdout, stderr string, exit int) kcPlugin {
	t.Helper()
	dir := t.TempDir()
	p := kcPlugin{dir: dir, path: filepath.Join(dir, "plugin.sh")}
	p.set(t, stdout, stderr, exit)
	script := fmt.Sprintf(`#!/bin/sh
d='%s'
echo run >> "$d/runs"
for a in "$@"; do printf '%%s\n' "$a"; done > "$d/args"
printf '%%s' "$KUBERNETES_EXEC_INFO" > "$d/info"
printf '%%s' "$PLUGIN_FOO" > "$d/foo"
cat "$d/stderr" >&2
cat "$d/stdout"
exit $(cat "$d/exit")
`, dir)
	if err := os.WriteFile(p.path, []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	return p
}

// set changes what the next run prints.
func (p kcPlugin) set(t *testing.T, stdout, stderr string, exit int) {
	t.Helper()
	kcWriteFile(t, p.dir, "stdout", []byte(stdout))
	kcWriteFile(t, p.dir, "stderr", []byte(stderr))
	kcWriteFile(t, p.dir, "exit", []byte(fmt.Sprint(exit)))
}

func (p kcPlugin) read(t *testing.T, name string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(p.dir, name))
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func (p kcPlugin) runs(t *testing.T) int {
	b, err := os.ReadFile(filepath.Join(p.dir, "runs"))
	if errors.Is(err, fs.ErrNotExist) {
		return 0
	}
	if err != nil {
		t.Fatal(err)
	}
	return strings.Count(string(b), "\n")
}

// kcExecCredential renders what a plugin prints.
func kcExecCredential(apiVersion string, status map[string]string) string {
	doc := map[string]any{"apiVersion": apiVersion, "kind": "ExecCredential"}
	if status != nil {
		doc["status"] = status
	}
	b, _ := json.Marshal(doc)
	return string(b)
}

// kcPluginEnv is the environment plugins inherit in tests: PATH only (the
// script needs cat), plus a value the kubeconfig's env must override.
func kcPluginEnv() []string {
	return []string{"PATH=" + os.Getenv("PATH"), "PLUGIN_FOO=from-parent"}
}

func kcNewExec(t *testing.T, p kcPlugin, apiVersion string, opts ExecOptions) *ExecCredentials {
	t.Helper()
	if opts.Environ == nil {
		opts.Environ = kcPluginEnv
	}
	opts.Origin = "kubeconfig /test: context \"c\": user \"u\""
	e, err := NewExecCredentials(ExecConfig{APIVersion: apiVersion, Command: p.path}, opts)
	if err != nil {
		t.Fatal(err)
	}
	return e
}

// TestExecPluginOutput covers the ExecCredential a plugin prints
// (client.authentication.k8s.io v1 and v1beta1) and every way it can be
// wrong.
func TestExecPluginOutput(t *testing.T) {
	pki := kcNewPKI(t)
	const secret = "PLUGINSECRET"
	v1, v1b := ExecAPIVersionV1, ExecAPIVersionV1beta1
	certBlock, _ := pem.Decode(pki.Cert)
	tests := []struct {
		name      string
		api       string // the kubeconfig's exec apiVersion
		stdout    string
		stderr    string
		exit      int
		wantAuth  string
		wantCert  bool
		wantErr   []string
		wantCause error
	}{
		{name: "v1 token", api: v1, stdout: kcExecCredential(v1, map[string]string{"token": "tok1"}), wantAuth: "Bearer tok1"},
		{name: "v1beta1 token", api: v1b, stdout: kcExecCredential(v1b, map[string]string{"token": "tok2"}), wantAuth: "Bearer tok2"},
		{name: "client certificate", api: v1, wantCert: true, stdout: kcExecCredential(v1, map[string]string{
			"clientCertificateData": string(pki.Cert), "clientKeyData": string(pki.Key)})},
		{name: "token and certificate", api: v1, wantAuth: "Bearer both", wantCert: true, stdout: kcExecCredential(v1,
			map[string]string{"token": "both", "clientCertificateData": string(pki.Cert), "clientKeyData": string(pki.Key)})},
		{name: "stderr ignored on success", api: v1, stderr: "warning: something",
			stdout: kcExecCredential(v1, map[string]string{"token": "t"}), wantAuth: "Bearer t"},
		{name: "non-zero exit quotes stderr, not stdout", api: v1, exit: 3, stderr: "\n  login required: run `tool login`  \n\n",
			stdout:  kcExecCredential(v1, map[string]string{"token": secret}),
			wantErr: []string{"failed (stderr: login required: run `tool login`): exit status 3"}},
		{name: "bad JSON", api: v1, stdout: `{"token": "` + secret + `"`,
			wantErr: []string{"printed something that is not an ExecCredential JSON object"}},
		{name: "apiVersion mismatch", api: v1, stdout: kcExecCredential(v1b, map[string]string{"token": secret}),
			wantErr: []string{`printed apiVersion "client.authentication.k8s.io/v1beta1", but the kubeconfig asks for "client.authentication.k8s.io/v1"`}},
		{name: "wrong kind", api: v1, stdout: `{"apiVersion":"` + v1 + `","kind":"Secret","status":{"token":"x"}}`,
			wantErr: []string{`printed kind "Secret", want ExecCredential`}},
		{name: "no status", api: v1, stdout: kcExecCredential(v1, nil), wantErr: []string{"without status"}},
		{name: "empty status", api: v1, stdout: kcExecCredential(v1, map[string]string{}),
			wantErr: []string{"printed neither status.token nor status.clientCertificateData"}},
		{name: "certificate without key", api: v1, stdout: kcExecCredential(v1, map[string]string{"clientCertificateData": string(pki.Cert)}),
			wantErr: []string{"only one of status.clientCertificateData and status.clientKeyData"}},
		{name: "mismatched pair", api: v1, stdout: kcExecCredential(v1, map[string]string{
			"clientCertificateData": string(pki.Cert), "clientKeyData": string(pki.Other)}),
			wantErr: []string{"status.clientCertificateData and status.clientKeyData do not form a key pair"}},
		{name: "bad expiry", api: v1, stdout: kcExecCredential(v1, map[string]string{"token": "x", "expirationTimestamp": "tomorrow"}),
			wantErr: []string{"expirationTimestamp that is not RFC 3339"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := kcWritePlugin(t, tt.stdout, tt.stderr, tt.exit)
			e := kcNewExec(t, p, tt.api, ExecOptions{})
			auth, err := e.Authorization(t.Context())
			if tt.wantErr != nil {
				if err == nil {
					t.Fatalf("no error; auth %q", auth)
				}
				msg := err.Error()
				for _, w := range append(tt.wantErr, `kubeconfig /test: context "c": user "u": exec plugin "`+p.path+`" `) {
					if !strings.Contains(msg, w) {
						t.Errorf("error %q does not contain %q", msg, w)
					}
				}
				if strings.Contains(msg, secret) {
					t.Errorf("error quotes the plugin's stdout: %q", msg)
				}
				if !errors.Is(err, ErrExecPlugin) {
					t.Errorf("error does not wrap ErrExecPlugin: %v", err)
				}
				return
			}
			if err != nil || auth != tt.wantAuth {
				t.Fatalf("Authorization = %q, %v; want %q", auth, err, tt.wantAuth)
			}
			cert, err := e.ClientCertificate(t.Context())
			if err != nil || (cert != nil) != tt.wantCert {
				t.Fatalf("ClientCertificate = %v, %v; want present %t", cert, err, tt.wantCert)
			}
			if cert != nil && string(cert.Certificate[0]) != string(certBlock.Bytes) {
				t.Error("certificate differs from the one printed")
			}
			if n := p.runs(t); n != 1 {
				t.Errorf("plugin ran %d times for one credential, want 1", n)
			}
		})
	}
}

// TestExecPluginExpiry: a credential is cached until its
// expirationTimestamp, then the plugin runs again; Invalidate forces a run.
func TestExecPluginExpiry(t *testing.T) {
	clk := clock.NewFake(kcT0)
	t0 := clk.Now()
	stamp := func(d time.Duration) string { return t0.Add(d).Format(time.RFC3339) }
	p := kcWritePlugin(t, kcExecCredential(ExecAPIVersionV1, map[string]string{"token": "a", "expirationTimestamp": stamp(10 * time.Minute)}), "", 0)
	e := kcNewExec(t, p, ExecAPIVersionV1, ExecOptions{Clock: clk})
	steps := []struct {
		name     string
		action   func()
		wantAuth string
		wantRuns int
	}{
		{"first use runs the plugin", func() {}, "Bearer a", 1},
		{"before expiry: cached", func() {
			p.set(t, kcExecCredential(ExecAPIVersionV1, map[string]string{"token": "b", "expirationTimestamp": stamp(20 * time.Minute)}), "", 0)
			clk.Step(9*time.Minute + 59*time.Second)
		}, "Bearer a", 1},
		{"at expiry: runs again", func() { clk.Step(time.Second) }, "Bearer b", 2},
		{"cached again", func() { clk.Step(5 * time.Minute) }, "Bearer b", 2},
		{"Invalidate: runs again", func() {
			p.set(t, kcExecCredential(ExecAPIVersionV1, map[string]string{"token": "c"}), "", 0)
			e.Invalidate()
		}, "Bearer c", 3},
		{"no expiry: cached for good", func() { clk.Step(1000 * time.Hour) }, "Bearer c", 3},
		{"failure after Invalidate is reported", func() { p.set(t, "", "down", 1); e.Invalidate() }, "", 4},
	}
	for _, s := range steps {
		s.action()
		auth, err := e.Authorization(t.Context())
		if s.wantAuth == "" && err == nil || s.wantAuth != "" && (err != nil || auth != s.wantAuth) {
			t.Fatalf("%s: got %q, %v; want %q", s.name, auth, err, s.wantAuth)
		}
		if n := p.runs(t); n != s.wantRuns {
			t.Fatalf("%s: %d runs, want %d", s.name, n, s.wantRuns)
		}
	}
}

// TestExecPluginInputs checks what the plugin gets: args, env (the
// kubeconfig's entries over the inherited environment) and
// KUBERNETES_EXEC_INFO with spec.interactive=false and, only with
// provideClusterInfo, spec.cluster.
func TestExecPluginInputs(t *testing.T) {
	pki := kcNewPKI(t)
	p := kcWritePlugin(t, kcExecCredential(ExecAPIVersionV1, map[string]string{"token": "t"}), "", 0)
	cfg := ExecConfig{APIVersion: ExecAPIVersionV1, Command: p.path, Args: []string{"get-token", "--name", "a b"},
		Env: []ExecEnvVar{{Name: "PLUGIN_FOO", Value: "from-kubeconfig"}}}
	cluster := &ExecCluster{Server: "https://h:6443", TLSServerName: "kubernetes", CertificateAuthorityData: pki.CA,
		Config: map[string]any{"audience": "kcm"}}
	for _, provide := range []bool{false, true} {
		cfg.ProvideClusterInfo = provide
		e, err := NewExecCredentials(cfg, ExecOptions{Cluster: cluster, Environ: kcPluginEnv})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := e.Authorization(t.Context()); err != nil {
			t.Fatal(err)
		}
		if got := p.read(t, "args"); got != "get-token\n--name\na b\n" {
			t.Errorf("args = %q", got)
		}
		if got := p.read(t, "foo"); got != "from-kubeconfig" {
			t.Errorf("PLUGIN_FOO = %q, want the kubeconfig's value", got)
		}
		var info struct {
			APIVersion string `json:"apiVersion"`
			Kind       string `json:"kind"`
			Spec       struct {
				Interactive *bool `json:"interactive"`
				Cluster     *struct {
					Server string `json:"server"`
					Name   string `json:"tls-server-name"`
					CA     []byte `json:"certificate-authority-data"`
					Config struct {
						Audience string `json:"audience"`
					} `json:"config"`
				} `json:"cluster"`
			} `json:"spec"`
		}
		if err := json.Unmarshal([]byte(p.read(t, "info")), &info); err != nil {
			t.Fatal(err)
		}
		if info.APIVersion != ExecAPIVersionV1 || info.Kind != "ExecCredential" || info.Spec.Interactive == nil || *info.Spec.Interactive {
			t.Errorf("KUBERNETES_EXEC_INFO = %s", p.read(t, "info"))
		}
		c := info.Spec.Cluster
		if !provide && c != nil {
			t.Errorf("spec.cluster sent without provideClusterInfo: %s", p.read(t, "info"))
		}
		if provide && (c == nil || c.Server != "https://h:6443" || c.Name != "kubernetes" ||
			string(c.CA) != string(pki.CA) || c.Config.Audience != "kcm") {
			t.Errorf("spec.cluster = %s", p.read(t, "info"))
		}
	}
}

// TestExecPluginFromKubeconfig runs a plugin named by a path relative to the
// kubeconfig, with provideClusterInfo and the cluster's exec extension.
func TestExecPluginFromKubeconfig(t *testing.T) {
	p := kcWritePlugin(t, kcExecCredential(ExecAPIVersionV1beta1, map[string]string{"token": "kc"}), "", 0)
	doc := kcDoc("    server: https://from-kubeconfig\n    extensions:\n    - name: client.authentication.k8s.io/exec\n"+
		"      extension: {audience: aud}\n",
		"    exec:\n      apiVersion: client.authentication.k8s.io/v1beta1\n      command: ./plugin.sh\n"+
			"      provideClusterInfo: true\n      args: [x]\n")
	path := kcWriteFile(t, p.dir, "config", []byte(doc))
	cfg, err := LoadKubeconfig(LoadOptions{ExplicitPath: path, Environ: kcPluginEnv})
	if err != nil {
		t.Fatal(err)
	}
	if auth, err := cfg.Credentials.Authorization(t.Context()); err != nil || auth != "Bearer kc" {
		t.Fatalf("got %q, %v", auth, err)
	}
	info := p.read(t, "info")
	if !strings.Contains(info, `"server":"https://from-kubeconfig"`) || !strings.Contains(info, `"config":{"audience":"aud"}`) {
		t.Errorf("KUBERNETES_EXEC_INFO = %s", info)
	}
}

func TestExecPluginNotFound(t *testing.T) {
	tests := []struct {
		command string
		cause   error
	}{
		{"kcm-test-absent-plugin", exec.ErrNotFound},
		{filepath.Join(t.TempDir(), "absent"), fs.ErrNotExist},
	}
	for _, tt := range tests {
		e, err := NewExecCredentials(ExecConfig{APIVersion: ExecAPIVersionV1, Command: tt.command,
			InstallHint: "  Install it with: brew install absent-plugin\n"}, ExecOptions{Environ: kcPluginEnv})
		if err != nil {
			t.Fatal(err)
		}
		_, err = e.Authorization(t.Context())
		if !errors.Is(err, ErrExecPlugin) || !errors.Is(err, tt.cause) ||
			!strings.Contains(err.Error(), " not found: ") ||
			!strings.HasSuffix(err.Error(), "\nInstall it with: brew install absent-plugin") {
			t.Errorf("%s: %v", tt.command, err)
		}
	}
}

func TestExecPluginTimeoutAndCancel(t *testing.T) {
	p := kcWritePlugin(t, "", "", 0)
	if err := os.WriteFile(p.path, []byte("#!/bin/sh\nexec sleep 30\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	e := kcNewExec(t, p, ExecAPIVersionV1, ExecOptions{Timeout: 100 * time.Millisecond})
	// A plugin left to finish its sleep would exit 0 and print nothing:
	// the deadline's error is what shows it was stopped at the timeout
	// (TestExecPluginTimeoutKillsProcessGroup checks the kill itself).
	_, err := e.Authorization(t.Context())
	if !errors.Is(err, context.DeadlineExceeded) || !errors.Is(err, ErrExecPlugin) || !strings.Contains(err.Error(), "did not finish") {
		t.Errorf("timeout: %v", err)
	}
	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	if _, err := e.ClientCertificate(ctx); !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled: %v", err)
	}
}

func TestExecPluginOutputTooLarge(t *testing.T) {
	p := kcWritePlugin(t, strings.Repeat("x", execMaxStdout+1), "", 0)
	_, err := kcNewExec(t, p, ExecAPIVersionV1, ExecOptions{}).Authorization(t.Context())
	if !errors.Is(err, ErrExecPlugin) || !strings.Contains(err.Error(), "printed more than") {
		t.Errorf("got %v", err)
	}
}

// TestExecPluginConcurrentCallersShareOneRun: many requests needing
// credentials at once start the plugin once.
func TestExecPluginConcurrentCallersShareOneRun(t *testing.T) {
	p := kcWritePlugin(t, kcExecCredential(ExecAPIVersionV1, map[string]string{"token": "shared"}), "", 0)
	e := kcNewExec(t, p, ExecAPIVersionV1, ExecOptions{})
	var wg sync.WaitGroup
	for range 8 {
		wg.Go(func() {
			if auth, err := e.Authorization(t.Context()); err != nil || auth != "Bearer shared" {
				t.Errorf("got %q, %v", auth, err)
			}
		})
	}
	wg.Wait()
	if n := p.runs(t); n != 1 {
		t.Errorf("plugin ran %d times, want 1", n)
	}
}

func TestExecCredentialsString(t *testing.T) {
	e, err := NewExecCredentials(ExecConfig{APIVersion: ExecAPIVersionV1, Command: "aws",
		Args: []string{"--secret=hunter2"}, Env: []ExecEnvVar{{Name: "TOKEN", Value: "hunter2"}}}, ExecOptions{})
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range []string{fmt.Sprint(e), fmt.Sprintf("%#v", e), fmt.Sprintf("%+v", e.cfg.Env)} {
		if strings.Contains(s, "hunter2") || !strings.Contains(s, "TOKEN") && !strings.Contains(s, "aws") {
			t.Errorf("printed %q", s)
		}
	}
}
