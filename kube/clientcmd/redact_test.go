package clientcmd

import (
	"errors"
	"testing"

	"github.com/kcmlab/kcm/kube/internal/redact/redacttest"
	"github.com/kcmlab/kcm/kube/rest"
)

// TestNothingPrintsSecrets formats every exported type of the package with
// every fmt verb, marshals it with encoding/json and logs it with zerolog
// (redacttest.Leaks), each holding a token, a password, key data, exec args
// and exec env values where it can, and finds none of them. A new exported
// type fails the test until it is added here.
func TestNothingPrintsSecrets(t *testing.T) {
	secrets := []string{"TOKSECRET", "PWSECRET", "KEYSECRET", "ENVSECRET", "ARGSECRET", "FILESECRET"}
	exec := ExecConfig{APIVersion: ExecAPIVersionV1, Command: "plugin", Args: []string{"--token=ARGSECRET"},
		Env: []ExecEnvVar{{Name: "PLUGIN_TOKEN", Value: "ENVSECRET"}}}
	user := KubeconfigUser{File: "/kc", Token: "TOKSECRET", ClientKeyData: "KEYSECRET", Username: "u", Password: "PWSECRET",
		Exec: &exec, AuthProvider: &KubeconfigAuthProvider{Name: "oidc"}}
	cluster := KubeconfigCluster{File: "/kc", Server: "https://x", ExecExtension: map[string]any{"k": "v"}}
	kctx := KubeconfigContext{File: "/kc", Cluster: "c", User: "u"}
	kc := &Kubeconfig{Files: []string{"/kc"}, CurrentContext: "ctx",
		Contexts: map[string]*KubeconfigContext{"ctx": &kctx},
		Clusters: map[string]*KubeconfigCluster{"c": &cluster},
		Users:    map[string]*KubeconfigUser{"u": &user}}
	tf, err := NewTokenFile(kcWriteFile(t, t.TempDir(), "token", []byte("FILESECRET")), TokenFileOptions{})
	if err != nil {
		t.Fatal(err)
	}
	ec, err := NewExecCredentials(exec, ExecOptions{Cluster: &ExecCluster{Server: "https://x"}})
	if err != nil {
		t.Fatal(err)
	}
	basic := BasicAuth{Username: "u", Password: "PWSECRET"}
	values := []any{
		exec, &exec, exec.Env[0], exec.Env, user, &user, cluster, kctx, kc, *kc, *user.AuthProvider,
		tf, ec, basic, &basic, rest.Credentials(basic),
		&rest.Config{Host: "https://x", Credentials: basic}, &rest.Config{Host: "https://x", Credentials: tf},
		&rest.Config{Host: "https://x", Credentials: ec},
		ExecCluster{Server: "https://x"}, ExecOptions{}, TokenFileOptions{}, InClusterOptions{}, LoadOptions{},
		&KubeconfigError{File: "/kc", Problem: "p", Err: errors.New("cause")},
	}
	for _, v := range values {
		for _, leak := range redacttest.Leaks(v, secrets...) {
			t.Errorf("%T leaks a secret: %s", v, leak)
		}
	}
	missing, err := redacttest.Uncovered(".", values)
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range missing {
		t.Errorf("exported type %s is not checked here: add a value of it", name)
	}
}
