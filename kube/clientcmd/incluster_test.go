package clientcmd

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/kcmlab/kcm/clock"
)

// TestInClusterConfig: a pod reaches the apiserver at
// https://$KUBERNETES_SERVICE_HOST:$KUBERNETES_SERVICE_PORT with the token
// and CA the kubelet mounts under /var/run/secrets/kubernetes.io/serviceaccount.
func TestInClusterConfig(t *testing.T) {
	pki := kcNewPKI(t)
	sa := t.TempDir()
	kcWriteFile(t, sa, "token", []byte("sa-token\n"))
	kcWriteFile(t, sa, "ca.crt", pki.CA)
	noCA := t.TempDir()
	kcWriteFile(t, noCA, "token", []byte("sa-token"))
	badCA := t.TempDir()
	kcWriteFile(t, badCA, "token", []byte("sa-token"))
	kcWriteFile(t, badCA, "ca.crt", []byte("not pem"))
	env := func(host, port string) func(string) string {
		return kcEnv(map[string]string{"KUBERNETES_SERVICE_HOST": host, "KUBERNETES_SERVICE_PORT": port})
	}
	tests := []struct {
		name     string
		opts     InClusterOptions
		wantHost string
		wantErr  string
		is       error
	}{
		{"IPv4", InClusterOptions{Getenv: env("10.96.0.1", "443"), Dir: sa}, "https://10.96.0.1:443", "", nil},
		{"IPv6 gets brackets", InClusterOptions{Getenv: env("fd00:10:96::1", "6443"), Dir: sa}, "https://[fd00:10:96::1]:6443", "", nil},
		{"no host", InClusterOptions{Getenv: env("", "443"), Dir: sa}, "", "KUBERNETES_SERVICE_HOST", ErrNotInCluster},
		{"no port", InClusterOptions{Getenv: env("10.96.0.1", ""), Dir: sa}, "", "KUBERNETES_SERVICE_PORT", ErrNotInCluster},
		{"no token", InClusterOptions{Getenv: env("h", "1"), Dir: t.TempDir()}, "", "service-account token", os.ErrNotExist},
		{"no CA", InClusterOptions{Getenv: env("h", "1"), Dir: noCA}, "", "service-account CA", os.ErrNotExist},
		{"bad CA", InClusterOptions{Getenv: env("h", "1"), Dir: badCA}, "", "holds no PEM certificate", nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cfg, err := InClusterConfig(tt.opts)
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) || (tt.is != nil && !errors.Is(err, tt.is)) {
					t.Fatalf("err = %v, want %q / %v", err, tt.wantErr, tt.is)
				}
				if strings.Contains(err.Error(), "sa-token") {
					t.Errorf("error shows the token: %v", err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			auth, _ := cfg.Credentials.Authorization(t.Context())
			if cfg.Host != tt.wantHost || cfg.Source != "in-cluster" || string(cfg.TLS.CAData) != string(pki.CA) ||
				auth != "Bearer sa-token" {
				t.Errorf("got %v, auth %q", cfg, auth)
			}
		})
	}
}

// TestInClusterTokenRotation: the kubelet rewrites the projected token
// (hourly by default); the config picks the new one up within a minute.
func TestInClusterTokenRotation(t *testing.T) {
	pki := kcNewPKI(t)
	sa := t.TempDir()
	kcWriteFile(t, sa, "token", []byte("old"))
	kcWriteFile(t, sa, "ca.crt", pki.CA)
	clk := clock.NewFake(kcT0)
	cfg, err := InClusterConfig(InClusterOptions{Dir: sa, Clock: clk,
		Getenv: kcEnv(map[string]string{"KUBERNETES_SERVICE_HOST": "h", "KUBERNETES_SERVICE_PORT": "443"})})
	if err != nil {
		t.Fatal(err)
	}
	kcWriteFile(t, sa, "token", []byte("new"))
	if auth, _ := cfg.Credentials.Authorization(t.Context()); auth != "Bearer old" {
		t.Errorf("fresh cache: %q", auth)
	}
	clk.Step(time.Minute)
	if auth, _ := cfg.Credentials.Authorization(t.Context()); auth != "Bearer new" {
		t.Errorf("after a minute: %q", auth)
	}
	if tf := cfg.Credentials.(*TokenFile); tf.Path() != filepath.Join(sa, "token") {
		t.Errorf("path %q", tf.Path())
	}
}
