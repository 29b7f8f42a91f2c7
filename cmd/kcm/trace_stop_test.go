package main

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"encoding/base64"
	"errors"
	"fmt"
	"io"
	"log"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"go.uber.org/goleak"

	"github.com/kcmlab/kcm/internal/testing/syncbuf"
	"github.com/kcmlab/kcm/kube/rest"
)

// traceToken is the bearer token of these tests' kubeconfigs: it must never
// be printed, on stdout, on stderr, or in the --verbose log.
const traceToken = "s3cret-trace-token-0123456789"

// TestTraceStopsOnErrorsRetryingCannotFix: `kcm trace` ends with exit code
// 1 and a message that says what to fix when the cluster answers in a way
// no retry can change — 401 although the client refreshed its credentials
// (the tokenFile is read again, and the server sees the retry), a server
// certificate that does not verify, a namespace that does not exist, a
// resource the server does not serve (404) — instead of retrying forever
// without a word. (The engine itself keeps retrying these: see reflector
// TestEngineRetriesWhatTheCLIStopsOn.)
func TestTraceStopsOnErrorsRetryingCannotFix(t *testing.T) {
	for _, tc := range []struct {
		name string
		tls  bool
		// serve answers every request the trace sends.
		serve func(w http.ResponseWriter, r *http.Request)
		args  []string
		want  []string // parts of the error line on stderr
		// minRequests the server must have seen with the token: the
		// credential refresh after a 401 is one more.
		minRequests int64
	}{
		{name: "401 after a credential refresh", serve: answer(http.StatusUnauthorized, "Unauthorized"),
			args: []string{"pods"}, minRequests: 2,
			want: []string{"401", "Unauthorized", "credentials", "after refreshing them"}},
		{name: "x509 verification fails", tls: true, serve: answer(http.StatusOK, ""),
			args: []string{"pods"},
			want: []string{"cannot verify the server's certificate", "certificate-authority", "x509"}},
		{name: "x509 on the namespace check", tls: true, serve: answer(http.StatusOK, ""),
			args: []string{"pods", "-n", "shop"},
			want: []string{"cannot verify the server's certificate", "x509"}},
		{name: "namespace 404", serve: missingNamespace("shop"),
			args: []string{"pods", "-n", "shop"},
			want: []string{`namespace "shop" not found`}},
		{name: "resource 404", serve: answer(http.StatusNotFound, "NotFound"),
			args: []string{"pods"},
			want: []string{"404", "not found", "pods"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			defer goleak.VerifyNone(t, goleak.IgnoreCurrent())
			var withToken atomic.Int64
			h := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				if r.Header.Get("Authorization") == "Bearer "+traceToken {
					withToken.Add(1)
				}
				tc.serve(w, r)
			})
			srv := httptest.NewUnstartedServer(h)
			srv.Config.ErrorLog = log.New(io.Discard, "", 0) // TLS handshake failures are the point
			if tc.tls {
				srv.StartTLS()
			} else {
				srv.Start()
			}
			defer srv.Close()
			kubeconfig := writeTraceKubeconfig(t, srv.URL, nil)
			ctx, cancel := context.WithTimeout(context.Background(), 15*time.Second)
			defer cancel()
			var stdout, stderr syncbuf.Buffer
			args := append(append([]string{}, tc.args...), "--kubeconfig", kubeconfig, "-v")
			code := runTraceContext(ctx, args, &stdout, &stderr)
			if ctx.Err() != nil {
				t.Fatalf("kcm trace %s was still retrying after 15 s (exit %d); stderr:\n%s", strings.Join(tc.args, " "), code, lastLines(stderr.String(), 8))
			}
			errLine := lastLines(stderr.String(), 1)
			t.Logf("exit %d: %s", code, errLine)
			if code != 1 || !strings.HasPrefix(errLine, "kcm trace: ") {
				t.Fatalf("exit %d, last stderr line %q; want 1 and a kcm trace: error", code, errLine)
			}
			for _, w := range tc.want {
				if !strings.Contains(errLine, w) {
					t.Errorf("error %q does not say %q", errLine, w)
				}
			}
			if n := withToken.Load(); n < tc.minRequests {
				t.Errorf("the server saw %d requests with the token, want at least %d (a refresh before giving up)", n, tc.minRequests)
			}
			if out := stdout.String() + stderr.String(); strings.Contains(out, traceToken) {
				t.Errorf("the token was printed:\n%s", out)
			}
		})
	}
}

// answer replies to everything with code; a 2xx is an empty list, or a
// watch that stays open and silent.
func answer(code int, reason string) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		if code >= 300 {
			w.WriteHeader(code)
			fmt.Fprintf(w, `{"kind":"Status","apiVersion":"v1","status":"Failure","reason":%q,"code":%d,"message":%q}`,
				reason, code, strings.ToLower(http.StatusText(code)))
			return
		}
		if r.URL.Query().Get("watch") != "" {
			w.WriteHeader(code)
			w.(http.Flusher).Flush()
			<-r.Context().Done()
			return
		}
		fmt.Fprint(w, `{"kind":"PodList","apiVersion":"v1","metadata":{"resourceVersion":"7"},"items":[]}`)
	}
}

// missingNamespace answers like kube-apiserver for a namespace that does
// not exist: GET of the namespace is 404, while a LIST in it is an empty
// 200 (so only the namespace check can tell).
func missingNamespace(ns string) http.HandlerFunc {
	ok := answer(http.StatusOK, "")
	return func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/api/v1/namespaces/"+ns {
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(http.StatusNotFound)
			fmt.Fprintf(w, `{"kind":"Status","apiVersion":"v1","status":"Failure","reason":"NotFound","code":404,"message":"namespaces \"%s\" not found","details":{"name":%q,"kind":"namespaces"}}`, ns, ns)
			return
		}
		if strings.HasPrefix(r.URL.Path, "/api/v1/namespaces/"+ns+"/pods") {
			ok(w, r)
			return
		}
		w.WriteHeader(http.StatusBadRequest)
	}
}

// writeTraceKubeconfig writes a kubeconfig for server whose user reads
// traceToken from a tokenFile (re-read when the server answers 401), and
// that trusts caPEM, or the system roots when it is nil (a test server's
// certificate then does not verify).
func writeTraceKubeconfig(t *testing.T, server string, caPEM []byte) string {
	t.Helper()
	dir := t.TempDir()
	tokenFile := filepath.Join(dir, "token")
	if err := os.WriteFile(tokenFile, []byte(traceToken+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, "kubeconfig")
	ca := ""
	if caPEM != nil {
		ca = "\n    certificate-authority-data: " + base64.StdEncoding.EncodeToString(caPEM)
	}
	cfg := fmt.Sprintf(`apiVersion: v1
kind: Config
clusters:
- name: c
  cluster:
    server: %s%s
users:
- name: u
  user:
    tokenFile: %s
contexts:
- name: x
  context: {cluster: c, user: u}
current-context: x
`, server, ca, tokenFile)
	if err := os.WriteFile(path, []byte(cfg), 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

// lastLines returns the last n non-empty lines of s.
func lastLines(s string, n int) string {
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	return strings.Join(lines[max(0, len(lines)-n):], "\n")
}

// TestUnfixable: which failures stop kcm trace (retrying cannot fix them)
// and which it keeps retrying, as the engine does with all of them.
func TestUnfixable(t *testing.T) {
	status := func(code int, reason string) error {
		return &rest.StatusError{Status: rest.Status{Code: int32(code), Reason: reason}, Verb: "GET", Path: "/api/v1/pods"}
	}
	x509Err := &url.Error{Op: "Get", URL: "https://h/api", Err: &tls.CertificateVerificationError{Err: x509.UnknownAuthorityError{}}}
	for _, tc := range []struct {
		name      string
		err       error
		anonymous bool
		want      string // "" = retried
	}{
		{"401", status(401, "Unauthorized"), false, "also after refreshing them"},
		{"401 without credentials", status(401, "Unauthorized"), true, "the kubeconfig's user gives none"},
		{"unknown authority", fmt.Errorf("GET /api/v1/pods: %w", x509Err), false, "cannot verify the server's certificate"},
		{"wrong host name", x509.HostnameError{Certificate: &x509.Certificate{}, Host: "h"}, false, "cannot verify"},
		{"expired", x509.CertificateInvalidError{Reason: x509.Expired}, false, "cannot verify"},
		{"404", status(404, "NotFound"), false, "does not serve this resource"},
		{"403", status(403, "Forbidden"), false, ""},
		{"410", status(410, "Expired"), false, ""},
		{"500", status(500, "InternalError"), false, ""},
		{"429", status(429, "TooManyRequests"), false, ""},
		{"connection lost", fmt.Errorf("watch: %w: EOF", rest.ErrConnectionLost), false, ""},
		{"timeout", fmt.Errorf("dial: %w", context.DeadlineExceeded), false, ""},
		{"nil", nil, false, ""},
	} {
		got := unfixable(tc.err, tc.anonymous)
		switch {
		case tc.want == "" && got != nil:
			t.Errorf("%s: stops the trace (%v); want it retried", tc.name, got)
		case tc.want != "" && (got == nil || !strings.Contains(got.Error(), tc.want) || !errors.Is(got, tc.err)):
			t.Errorf("%s: %v; want an error saying %q that wraps the cause", tc.name, got, tc.want)
		}
	}
}
