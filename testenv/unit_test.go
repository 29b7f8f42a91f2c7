package testenv

import (
	"context"
	"encoding/base64"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"go.yaml.in/yaml/v3"
)

func TestWriteKubeconfig(t *testing.T) {
	path := filepath.Join(t.TempDir(), "kubeconfig")
	ca := []byte("-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----\n")
	if err := writeKubeconfig(path, "https://127.0.0.1:6443", ca, "secret-token"); err != nil {
		t.Fatal(err)
	}
	fi, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	if perm := fi.Mode().Perm(); perm != 0o600 {
		t.Errorf("mode %o, want 600: the file holds a token", perm)
	}
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	// Read it back as kubectl would: through the generic YAML tree, not
	// through testenv's own structs.
	var doc map[string]any
	if err := yaml.Unmarshal(data, &doc); err != nil {
		t.Fatal(err)
	}
	get := func(path ...any) any {
		var cur any = doc
		for _, p := range path {
			switch k := p.(type) {
			case string:
				cur = cur.(map[string]any)[k]
			case int:
				cur = cur.([]any)[k]
			}
		}
		return cur
	}
	checks := []struct {
		path []any
		want any
	}{
		{[]any{"apiVersion"}, "v1"},
		{[]any{"kind"}, "Config"},
		{[]any{"current-context"}, KubeconfigContext},
		{[]any{"contexts", 0, "name"}, KubeconfigContext},
		{[]any{"contexts", 0, "context", "cluster"}, KubeconfigContext},
		{[]any{"contexts", 0, "context", "user"}, KubeconfigContext},
		{[]any{"clusters", 0, "name"}, KubeconfigContext},
		{[]any{"clusters", 0, "cluster", "server"}, "https://127.0.0.1:6443"},
		{[]any{"users", 0, "name"}, KubeconfigContext},
		{[]any{"users", 0, "user", "token"}, "secret-token"},
	}
	for _, c := range checks {
		if got := get(c.path...); got != c.want {
			t.Errorf("%v = %v, want %v", c.path, got, c.want)
		}
	}
	caData, _ := get("clusters", 0, "cluster", "certificate-authority-data").(string)
	if dec, err := base64.StdEncoding.DecodeString(caData); err != nil || string(dec) != string(ca) {
		t.Errorf("certificate-authority-data does not decode to the CA: %q, %v", dec, err)
	}
}

func ExampleMarshalKubeconfig() {
	b, err := MarshalKubeconfig("https://127.0.0.1:6443", []byte("PEM"), "example-token")
	if err != nil {
		panic(err)
	}
	fmt.Print(string(b))
	// Output:
	// apiVersion: v1
	// kind: Config
	// clusters:
	//     - name: kcm-testenv
	//       cluster:
	//         server: https://127.0.0.1:6443
	//         certificate-authority-data: UEVN
	// users:
	//     - name: kcm-testenv
	//       user:
	//         token: example-token
	// contexts:
	//     - name: kcm-testenv
	//       context:
	//         cluster: kcm-testenv
	//         user: kcm-testenv
	// current-context: kcm-testenv
}

func TestNamespaceName(t *testing.T) {
	// Namespace names are DNS-1123 labels (Kubernetes API conventions,
	// "Names": lower-case alphanumerics or '-', alphanumeric at both ends,
	// at most 63 characters).
	label := regexp.MustCompile(`^[a-z0-9]([-a-z0-9]*[a-z0-9])?$`)
	tests := []struct{ test, want string }{
		{"TestFoo", "testfoo-abcde"},
		{"TestFoo/sub_case", "testfoo-sub-case-abcde"},
		{"TestFoo/#00", "testfoo-00-abcde"},
		{"Test__Ünïcode  spaces--", "test-n-code-spaces-abcde"},
		{"///", "test-abcde"},
		{strings.Repeat("TestVeryLong", 10), strings.Repeat("testverylong", 10)[:57] + "-abcde"},
		{strings.Repeat("a", 56) + "/b", strings.Repeat("a", 56) + "-abcde"}, // no "--" or trailing '-' after the cut
	}
	for _, tt := range tests {
		got := namespaceName(tt.test, "abcde")
		if got != tt.want {
			t.Errorf("namespaceName(%q) = %q, want %q", tt.test, got, tt.want)
		}
		if len(got) > 63 || !label.MatchString(got) {
			t.Errorf("namespaceName(%q) = %q is not a DNS-1123 label", tt.test, got)
		}
	}
}

func TestBuildProgress(t *testing.T) {
	start := time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)
	p := newBuildProgress(recipe{name: "kube-apiserver", version: "v1.34.4", estimate: "about 5 min on 2 cores"}, "/cache/x", start)
	for _, line := range []string{
		"go: downloading k8s.io/api v0.34.4",
		"go: downloading k8s.io/client-go v0.34.4",
		"go: added k8s.io/kubernetes v1.34.4",
		"k8s.io/api/core/v1",
		"k8s.io/kubernetes/cmd/kube-apiserver",
		"# k8s.io/broken",
		"broken.go:1:1: syntax error",
		"",
	} {
		p.observe(line)
	}
	if got, want := p.report(start.Add(75*time.Second+400*time.Millisecond)),
		"testenv: building kube-apiserver v1.34.4: 1m15s elapsed, 2 modules downloaded, 2 packages compiled"; got != want {
		t.Errorf("report = %q\nwant     %q", got, want)
	}
	if got := p.banner(); !strings.Contains(got, "about 5 min on 2 cores") || !strings.Contains(got, "/cache/x") {
		t.Errorf("banner %q lacks the estimate or the cache dir", got)
	}
	if got, want := p.done(start.Add(4*time.Minute)), "testenv: built kube-apiserver v1.34.4 in 4m0s (2 modules downloaded, 2 packages compiled)"; got != want {
		t.Errorf("done = %q, want %q", got, want)
	}
}

func TestBuildSinkSplitsLinesAndKeepsTail(t *testing.T) {
	var log strings.Builder
	s := &buildSink{log: &log, progress: &buildProgress{}}
	for _, chunk := range []string{"a/b\nc/", "d\ngo: downloading x v1\n", "partial"} {
		if _, err := s.Write([]byte(chunk)); err != nil {
			t.Fatal(err)
		}
	}
	if log.String() != "a/b\nc/d\ngo: downloading x v1\npartial" {
		t.Errorf("log = %q: the sink must copy every byte", log.String())
	}
	if s.progress.compiled != 2 || s.progress.downloads != 1 {
		t.Errorf("compiled=%d downloads=%d, want 2 and 1", s.progress.compiled, s.progress.downloads)
	}
	if got := s.tail(); got != "a/b\nc/d\ngo: downloading x v1\npartial" {
		t.Errorf("tail = %q", got)
	}
	for i := range 100 {
		fmt.Fprintf(s, "line %d\n", i)
	}
	lines := strings.Split(s.tail(), "\n")
	if len(lines) != tailLines || lines[len(lines)-1] != "line 99" {
		t.Errorf("tail keeps %d lines ending %q, want %d ending \"line 99\"", len(lines), lines[len(lines)-1], tailLines)
	}
}

func TestFileTail(t *testing.T) {
	path := filepath.Join(t.TempDir(), "log")
	var b strings.Builder
	for i := range 5000 { // larger than the 64 KiB window
		fmt.Fprintf(&b, "log line number %d\n", i)
	}
	if err := os.WriteFile(path, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	if got, want := fileTail(path, 2), "log line number 4998\nlog line number 4999"; got != want {
		t.Errorf("fileTail = %q, want %q", got, want)
	}
	if got := fileTail(filepath.Join(t.TempDir(), "missing"), 2); !strings.Contains(got, "cannot read log") {
		t.Errorf("fileTail of a missing file = %q", got)
	}
}

func TestLockExclusive(t *testing.T) {
	path := filepath.Join(t.TempDir(), ".lock")
	ctx := context.Background()
	unlock, err := lockExclusive(ctx, path, func() { t.Error("first locker must not wait") })
	if err != nil {
		t.Fatal(err)
	}
	// A second open file description conflicts with the first, as a second
	// test binary would. Its wait ends with its context.
	waited := make(chan struct{})
	cctx, cancel := context.WithCancel(ctx)
	errc := make(chan error, 1)
	go func() {
		_, err := lockExclusive(cctx, path, func() { close(waited) })
		errc <- err
	}()
	<-waited
	cancel()
	if err := <-errc; !errors.Is(err, context.Canceled) {
		t.Errorf("err = %v, want context.Canceled", err)
	}
	// Once released, the lock can be taken again at once.
	unlock()
	unlock2, err := lockExclusive(ctx, path, func() { t.Error("lock was released; must not wait") })
	if err != nil {
		t.Fatal(err)
	}
	unlock2()
}
