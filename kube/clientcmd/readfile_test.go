package clientcmd

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// kcSparse makes a file of size zero bytes that takes no disk space.
func kcSparse(t *testing.T, dir, name string, size int64) string {
	t.Helper()
	p := filepath.Join(dir, name)
	f, err := os.Create(p)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if err := f.Truncate(size); err != nil {
		t.Fatal(err)
	}
	return p
}

// TestFilesAreReadWithinLimits: every file clientcmd reads (kubeconfig,
// token file, CA and client certificate files, the in-cluster CA) is
// refused past its documented limit, with an error that names the file and
// the limit, instead of being read whole into memory.
func TestFilesAreReadWithinLimits(t *testing.T) {
	dir := t.TempDir()
	bigPEM := kcSparse(t, dir, "big.pem", MaxPEMFileBytes+1)
	bigToken := kcSparse(t, dir, "big-token", MaxTokenFileBytes+1)
	bigConfig := kcSparse(t, dir, "big-config", MaxKubeconfigBytes+1)
	ok := "    server: https://h\n"
	load := func(doc string) error {
		_, _, err := kcLoadDoc(t, t.TempDir(), doc)
		return err
	}
	for _, tc := range []struct {
		name  string
		run   func() error
		path  string
		limit int
	}{
		{"kubeconfig", func() error {
			_, err := LoadKubeconfig(LoadOptions{ExplicitPath: bigConfig, Getenv: kcEnv(nil)})
			return err
		}, bigConfig, MaxKubeconfigBytes},
		{"kubeconfig from $KUBECONFIG", func() error {
			_, err := LoadKubeconfig(LoadOptions{Getenv: kcEnv(map[string]string{"KUBECONFIG": bigConfig})})
			return err
		}, bigConfig, MaxKubeconfigBytes},
		{"token file", func() error { return load(kcDoc(ok, "    tokenFile: "+bigToken+"\n")) }, bigToken, MaxTokenFileBytes},
		{"certificate-authority", func() error { return load(kcDoc(ok+"    certificate-authority: "+bigPEM+"\n", "")) }, bigPEM, MaxPEMFileBytes},
		{"client-certificate", func() error {
			return load(kcDoc(ok, "    client-certificate: "+bigPEM+"\n    client-key: "+bigPEM+"\n"))
		}, bigPEM, MaxPEMFileBytes},
		{"in-cluster CA", func() error {
			d := t.TempDir()
			kcWriteFile(t, d, "token", []byte("t"))
			kcSparse(t, d, "ca.crt", MaxPEMFileBytes+1)
			_, err := InClusterConfig(InClusterOptions{Dir: d, Getenv: kcEnv(map[string]string{
				"KUBERNETES_SERVICE_HOST": "10.0.0.1", "KUBERNETES_SERVICE_PORT": "443"})})
			return err
		}, "ca.crt", MaxPEMFileBytes},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := tc.run()
			if err == nil {
				t.Fatal("a file over the limit was accepted")
			}
			msg := err.Error()
			if !errors.Is(err, ErrFileTooLarge) || !strings.Contains(msg, tc.path) || !strings.Contains(msg, fmt.Sprint(tc.limit)) {
				t.Fatalf("error %q: want ErrFileTooLarge naming %s and the limit %d", msg, tc.path, tc.limit)
			}
		})
	}
}

// TestKubeconfigDevZero: `--kubeconfig=/dev/zero` (a file with no end and
// no size) fails at once with an error that names it and the limit; it
// used to be read until the kernel killed the process.
func TestKubeconfigDevZero(t *testing.T) {
	start := time.Now()
	_, err := LoadKubeconfig(LoadOptions{ExplicitPath: "/dev/zero", Getenv: kcEnv(nil)})
	if !errors.Is(err, ErrFileTooLarge) || !strings.Contains(err.Error(), "/dev/zero") ||
		!strings.Contains(err.Error(), fmt.Sprint(MaxKubeconfigBytes)) {
		t.Fatalf("err = %v, want ErrFileTooLarge naming /dev/zero and the limit", err)
	}
	t.Logf("refused in %v: %v", time.Since(start), err)
}
