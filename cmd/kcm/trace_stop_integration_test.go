//go:build !nocluster

package main

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/kcmlab/kcm/internal/testing/syncbuf"
	"github.com/kcmlab/kcm/testenv"
)

// TestTraceStopsOnRealClusterErrors: against the real kube-apiserver, `kcm
// trace` stops with exit code 1 and says why for a namespace that does not
// exist (the apiserver answers a LIST in it with an empty 200), a token it
// does not accept (401, after the tokenFile was read again), and a server
// certificate the kubeconfig does not trust.
func TestTraceStopsOnRealClusterErrors(t *testing.T) {
	cl := testenv.Shared(t)
	cfg := cl.Config()
	for _, tc := range []struct {
		name       string
		kubeconfig string
		args       []string
		want       string
	}{
		{"namespace missing", cl.KubeconfigPath(), []string{"pods", "-n", "kcm-no-such-namespace"},
			`namespace "kcm-no-such-namespace" not found`},
		{"token refused", writeTraceKubeconfig(t, cfg.Host, cfg.TLS.CAData), []string{"pods"},
			"the server refuses the credentials (401 Unauthorized), also after refreshing them"},
		{"CA not trusted", writeTraceKubeconfig(t, cfg.Host, nil), []string{"cm", "-n", "default"},
			"cannot verify the server's certificate"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
			defer cancel()
			var stdout, stderr syncbuf.Buffer
			code := runTraceContext(ctx, append(tc.args, "--kubeconfig", tc.kubeconfig), &stdout, &stderr)
			if ctx.Err() != nil {
				t.Fatalf("still running after 60 s (exit %d); stderr:\n%s", code, lastLines(stderr.String(), 8))
			}
			errLine := lastLines(stderr.String(), 1)
			t.Logf("exit %d: %s", code, errLine)
			if code != 1 || !strings.Contains(errLine, tc.want) {
				t.Fatalf("exit %d, %q; want 1 and an error saying %q", code, errLine, tc.want)
			}
			if strings.Contains(stdout.String()+stderr.String(), traceToken) {
				t.Fatal("the token was printed")
			}
		})
	}
}
