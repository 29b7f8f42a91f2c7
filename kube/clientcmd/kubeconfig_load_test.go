package clientcmd

import (
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

func TestKubeconfigPaths(t *testing.T) {
	tests := []struct {
		name     string
		opts     LoadOptions
		want     []string
		explicit bool
	}{
		{"explicit wins over $KUBECONFIG", LoadOptions{ExplicitPath: "/x", Getenv: kcEnv(map[string]string{"KUBECONFIG": "/a"})},
			[]string{"/x"}, true},
		{"$KUBECONFIG list, empty entries and duplicates dropped",
			LoadOptions{Getenv: kcEnv(map[string]string{"KUBECONFIG": "/a::/b:/a", "HOME": "/home/u"})}, []string{"/a", "/b"}, false},
		{"home default from $HOME", LoadOptions{Getenv: kcEnv(map[string]string{"HOME": "/home/u"})},
			[]string{"/home/u/.kube/config"}, false},
		{"HomeDir beats $HOME", LoadOptions{HomeDir: "/h", Getenv: kcEnv(map[string]string{"HOME": "/home/u"})},
			[]string{"/h/.kube/config"}, false},
		{"nothing", LoadOptions{Getenv: kcEnv(nil)}, nil, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, explicit := KubeconfigPaths(tt.opts)
			if !reflect.DeepEqual(got, tt.want) || explicit != tt.explicit {
				t.Errorf("got %q, %t; want %q, %t", got, explicit, tt.want, tt.explicit)
			}
		})
	}
}

// TestLoadMergeOrder checks kubectl's $KUBECONFIG rule: for each cluster,
// user and context name, and for current-context, the first file that sets
// it wins; missing files are skipped.
func TestLoadMergeOrder(t *testing.T) {
	dir := t.TempDir()
	a := kcWriteFile(t, dir, "a/config", []byte(`
clusters:
- {name: shared, cluster: {server: "https://from-a"}}
users:
- {name: alice, user: {token: token-a}}
`))
	b := kcWriteFile(t, dir, "b/config", []byte(`
current-context: ctx-b
clusters:
- {name: shared, cluster: {server: "https://from-b"}}
- {name: only-b, cluster: {server: "https://only-b"}}
contexts:
- {name: ctx-b, context: {cluster: shared, user: alice}}
- {name: other, context: {cluster: only-b, user: alice}}
users:
- {name: alice, user: {token: token-b}}
`))
	c := kcWriteFile(t, dir, "c/config", []byte(`
current-context: ctx-c
contexts:
- {name: ctx-b, context: {cluster: only-b, user: alice}}
- {name: ctx-c, context: {cluster: only-b}}
`))
	missing := filepath.Join(dir, "missing")
	env := kcEnv(map[string]string{"KUBECONFIG": strings.Join([]string{a, missing, b, c}, string(os.PathListSeparator))})

	kc, err := ReadKubeconfig(LoadOptions{Getenv: env})
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(kc.Files, []string{a, b, c}) {
		t.Errorf("files = %q", kc.Files)
	}
	tests := []struct {
		context    string
		wantHost   string
		wantSource string
		wantAuth   string
	}{
		{"", "https://from-a", b + " context ctx-b", "Bearer token-a"}, // current-context from b; cluster and user from a
		{"other", "https://only-b", b + " context other", "Bearer token-a"},
		{"ctx-c", "https://only-b", c + " context ctx-c", ""},
	}
	for _, tt := range tests {
		cfg, err := LoadKubeconfig(LoadOptions{Getenv: env, Context: tt.context})
		if err != nil {
			t.Fatalf("context %q: %v", tt.context, err)
		}
		auth := ""
		if cfg.Credentials != nil {
			auth, _ = cfg.Credentials.Authorization(t.Context())
		}
		if cfg.Host != tt.wantHost || cfg.Source != tt.wantSource || auth != tt.wantAuth {
			t.Errorf("context %q: got %s %q %q; want %s %q %q", tt.context, cfg.Host, cfg.Source, auth,
				tt.wantHost, tt.wantSource, tt.wantAuth)
		}
	}
}

// TestLoadRelativePathsPerFile: each file's relative paths resolve against
// its own directory, even after merging.
func TestLoadRelativePathsPerFile(t *testing.T) {
	pki := kcNewPKI(t)
	dir := t.TempDir()
	kcWriteFile(t, dir, "one/ca.crt", pki.CA)
	kcWriteFile(t, dir, "two/creds/token", []byte("two-token"))
	one := kcWriteFile(t, dir, "one/config", []byte(`
current-context: x
clusters: [{name: c, cluster: {server: "https://h", certificate-authority: ca.crt}}]
contexts: [{name: x, context: {cluster: c, user: u}}]
`))
	two := kcWriteFile(t, dir, "two/config", []byte(`users: [{name: u, user: {tokenFile: creds/token}}]`))
	cfg, err := LoadKubeconfig(LoadOptions{Getenv: kcEnv(map[string]string{"KUBECONFIG": one + ":" + two})})
	if err != nil {
		t.Fatal(err)
	}
	auth, _ := cfg.Credentials.Authorization(t.Context())
	if string(cfg.TLS.CAData) != string(pki.CA) || auth != "Bearer two-token" {
		t.Errorf("CA %d bytes, auth %q", len(cfg.TLS.CAData), auth)
	}
}

func TestLoadHomeDefault(t *testing.T) {
	home := t.TempDir()
	kcWriteFile(t, home, ".kube/config", []byte(`
current-context: x
clusters: [{name: c, cluster: {server: "https://home"}}]
contexts: [{name: x, context: {cluster: c}}]
`))
	cfg, err := LoadKubeconfig(LoadOptions{HomeDir: home, Getenv: kcEnv(nil)})
	if err != nil || cfg.Host != "https://home" || cfg.Credentials != nil {
		t.Fatalf("got %v, %v", cfg, err)
	}
	// $KUBECONFIG set (even to missing files) replaces the home default.
	_, err = LoadKubeconfig(LoadOptions{HomeDir: home, Getenv: kcEnv(map[string]string{"KUBECONFIG": home + "/nope"})})
	if !errors.Is(err, ErrNoKubeconfig) || !strings.Contains(err.Error(), home+"/nope") {
		t.Errorf("err = %v, want ErrNoKubeconfig naming the searched path", err)
	}
}

func TestLoadMissingFiles(t *testing.T) {
	dir := t.TempDir()
	// An explicit --kubeconfig that does not exist is an error of its own,
	// not "no kubeconfig": callers must not fall back to something else.
	_, err := LoadKubeconfig(LoadOptions{ExplicitPath: filepath.Join(dir, "nope"), Getenv: kcEnv(nil)})
	if err == nil || errors.Is(err, ErrNoKubeconfig) || !errors.Is(err, os.ErrNotExist) || !strings.Contains(err.Error(), "nope") {
		t.Errorf("explicit missing: %v", err)
	}
	_, err = LoadKubeconfig(LoadOptions{HomeDir: dir, Getenv: kcEnv(nil)})
	if !errors.Is(err, ErrNoKubeconfig) {
		t.Errorf("home missing: %v", err)
	}
	_, err = LoadKubeconfig(LoadOptions{Getenv: kcEnv(nil)})
	if !errors.Is(err, ErrNoKubeconfig) {
		t.Errorf("no home: %v", err)
	}
	// A directory where the file should be is an error, not a skip.
	_, err = LoadKubeconfig(LoadOptions{Getenv: kcEnv(map[string]string{"KUBECONFIG": dir})})
	if err == nil || errors.Is(err, ErrNoKubeconfig) {
		t.Errorf("directory: %v", err)
	}
}

// TestLoadServerOverride: --master replaces the context's server, or alone
// makes an anonymous config when there is no kubeconfig.
func TestLoadServerOverride(t *testing.T) {
	p := kcWriteFile(t, t.TempDir(), "config", []byte(kcDoc("    server: https://orig\n", "    token: t\n")))
	cfg, err := LoadKubeconfig(LoadOptions{ExplicitPath: p, Server: "https://override:6443"})
	if err != nil || cfg.Host != "https://override:6443" || cfg.Credentials == nil {
		t.Fatalf("override: %v, %v", cfg, err)
	}
	cfg, err = LoadKubeconfig(LoadOptions{Getenv: kcEnv(nil), Server: "http://127.0.0.1:8080"})
	if err != nil || cfg.Host != "http://127.0.0.1:8080" || cfg.Credentials != nil || cfg.Source != "server override" {
		t.Fatalf("server only: %v, %v", cfg, err)
	}
	if _, err = LoadKubeconfig(LoadOptions{Getenv: kcEnv(nil), Server: "127.0.0.1:8080"}); err == nil {
		t.Fatal("server override without scheme accepted")
	}
}

func TestLoadContextOverride(t *testing.T) {
	p := filepath.Join("testdata", "kubeconfig", "example.yaml")
	cfg, err := LoadKubeconfig(LoadOptions{ExplicitPath: p, Context: "dev-token"})
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := cfg.Credentials.(*TokenFile); !ok || len(cfg.TLS.CertData) != 0 {
		t.Errorf("--context dev-token: %v", cfg)
	}
	_, err = LoadKubeconfig(LoadOptions{ExplicitPath: p, Context: "prod"})
	if !errors.Is(err, ErrContextNotFound) || !strings.Contains(err.Error(), `kubeconfig `+p+`: context "prod" is not defined`) {
		t.Errorf("unknown --context: %v", err)
	}
}

// TestBuildConfig follows kube-controller-manager: no --kubeconfig and no
// --master → in-cluster first, kubeconfig search as fallback.
func TestBuildConfig(t *testing.T) {
	pki := kcNewPKI(t)
	sa := t.TempDir()
	kcWriteFile(t, sa, "token", []byte("sa-token"))
	kcWriteFile(t, sa, "ca.crt", pki.CA)
	home := t.TempDir()
	kcWriteFile(t, home, ".kube/config", []byte(kcDoc("    server: https://from-home\n", "")))
	inPod := map[string]string{"KUBERNETES_SERVICE_HOST": "10.96.0.1", "KUBERNETES_SERVICE_PORT": "443"}

	tests := []struct {
		name   string
		opts   LoadOptions
		source string
	}{
		{"in a pod", LoadOptions{Getenv: kcEnv(inPod), InClusterDir: sa, HomeDir: home}, "in-cluster"},
		{"outside a pod", LoadOptions{Getenv: kcEnv(nil), InClusterDir: sa, HomeDir: home}, home + "/.kube/config context ctx"},
		{"explicit kubeconfig skips in-cluster", LoadOptions{Getenv: kcEnv(inPod), InClusterDir: sa,
			ExplicitPath: home + "/.kube/config"}, home + "/.kube/config context ctx"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cfg, err := BuildConfig(tt.opts)
			if err != nil || cfg.Source != tt.source {
				t.Fatalf("got %v, %v; want source %q", cfg, err, tt.source)
			}
		})
	}
	_, err := BuildConfig(LoadOptions{Getenv: kcEnv(nil), InClusterDir: sa})
	if !errors.Is(err, ErrNotInCluster) || !errors.Is(err, ErrNoKubeconfig) {
		t.Errorf("neither: %v, want both sentinels", err)
	}
}
