package testenv

import (
	"context"
	"crypto/rand"
	"errors"
	"fmt"
	"net/http"
	"os"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"go.uber.org/goleak"
)

// The shared cluster of one test binary (one package's tests): started by
// the first Shared call, stopped by Main after the tests ran.
var shared struct {
	inMain atomic.Bool // Main is running the tests

	mu      sync.Mutex
	started bool     // guarded by mu: a start was attempted
	cluster *Cluster // guarded by mu
	err     error    // guarded by mu: why the start failed
}

// TB is the part of testing.TB that testenv uses. testenv names it itself
// rather than importing package testing, so that `kcm dev`, which starts
// the same cluster, does not link the test framework into the kcm binary.
type TB interface {
	Helper()
	Name() string
	Errorf(format string, args ...any)
	Fatalf(format string, args ...any)
	Fatal(args ...any)
	Cleanup(func())
}

// M is the part of *testing.M that Main uses.
type M interface{ Run() int }

// sharedStartTimeout bounds a shared start, a first-time build included.
const sharedStartTimeout = buildTimeout + DefaultReadyTimeout

// Main runs a package's tests, stops the shared cluster, then checks that
// no goroutine leaked (with opts for goleak), and returns the exit code.
// Use it from TestMain:
//
//	func TestMain(m *testing.M) { os.Exit(testenv.Main(m)) }
func Main(m M, opts ...goleak.Option) int {
	shared.inMain.Store(true)
	code := m.Run()
	stopShared()
	if code == 0 {
		if err := goleak.Find(opts...); err != nil {
			fmt.Fprintf(os.Stderr, "testenv: goroutines leaked: %v\n", err)
			code = 1
		}
	}
	return code
}

// stopShared stops the shared cluster, if one was started.
func stopShared() {
	shared.mu.Lock()
	defer shared.mu.Unlock()
	if shared.cluster != nil {
		shared.cluster.Stop()
	}
}

// Shared returns the test binary's shared cluster, starting it on first
// use. When the cluster cannot start, the test fails with the reason; it is
// never skipped. The package's TestMain must call Main, which stops the
// cluster when the tests are done.
func Shared(t TB) *Cluster {
	t.Helper()
	if !shared.inMain.Load() {
		t.Fatalf("testenv.Shared: TestMain must run the tests with testenv.Main, which stops the shared cluster")
	}
	shared.mu.Lock()
	defer shared.mu.Unlock()
	if !shared.started {
		shared.started = true
		ctx, cancel := context.WithTimeout(context.Background(), sharedStartTimeout)
		shared.cluster, shared.err = Start(ctx, Options{})
		cancel()
	}
	if shared.err != nil {
		t.Fatalf("testenv: the shared cluster could not start: %v", shared.err)
	}
	return shared.cluster
}

// namespaceTimeout bounds the requests Namespace makes.
const namespaceTimeout = 30 * time.Second

// Namespace creates a namespace for the test, named after it with a random
// suffix, together with its "default" ServiceAccount, and deletes the
// namespace when the test ends.
//
// The ServiceAccount matters: kube-apiserver's ServiceAccount admission
// plugin refuses pods in a namespace until "default" exists, and in a real
// cluster kube-controller-manager creates it. No controller runs here.
// Deleting leaves the namespace Terminating, since no namespace controller
// runs either; the random suffix keeps later tests from colliding with it.
func (c *Cluster) Namespace(t TB) string {
	t.Helper()
	suffix, err := randomName(5)
	if err != nil {
		t.Fatalf("testenv: %v", err)
	}
	name := namespaceName(t.Name(), suffix)
	ctx, cancel := context.WithTimeout(context.Background(), namespaceTimeout)
	defer cancel()
	ns := map[string]any{"apiVersion": "v1", "kind": "Namespace", "metadata": map[string]any{"name": name}}
	if err := c.client.do(ctx, http.MethodPost, "/api/v1/namespaces", ns, nil); err != nil {
		t.Fatalf("testenv: create namespace %s: %v", name, err)
	}
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), namespaceTimeout)
		defer cancel()
		err := c.client.do(ctx, http.MethodDelete, "/api/v1/namespaces/"+name, nil, nil)
		var se *StatusError
		if err != nil && !(errors.As(err, &se) && se.Code == http.StatusNotFound) {
			t.Errorf("testenv: delete namespace %s: %v", name, err)
		}
	})
	sa := map[string]any{"apiVersion": "v1", "kind": "ServiceAccount", "metadata": map[string]any{"name": "default"}}
	if err := c.client.do(ctx, http.MethodPost, "/api/v1/namespaces/"+name+"/serviceaccounts", sa, nil); err != nil {
		t.Fatalf("testenv: create the default ServiceAccount in %s: %v", name, err)
	}
	return name
}

// namespaceName turns a test name into a DNS-1123 label (lower-case
// alphanumerics and '-', starting and ending with an alphanumeric, at most
// 63 characters) that ends in "-" + suffix.
func namespaceName(testName, suffix string) string {
	var b strings.Builder
	dash := false
	for _, r := range strings.ToLower(testName) {
		if (r >= 'a' && r <= 'z') || (r >= '0' && r <= '9') {
			b.WriteRune(r)
			dash = false
		} else if !dash && b.Len() > 0 {
			b.WriteByte('-')
			dash = true
		}
	}
	base := b.String()
	if max := 63 - 1 - len(suffix); len(base) > max {
		base = base[:max]
	}
	base = strings.Trim(base, "-")
	if base == "" {
		base = "test"
	}
	return base + "-" + suffix
}

// randomName returns n random characters from [a-z0-9].
func randomName(n int) (string, error) {
	const alphabet = "abcdefghijklmnopqrstuvwxyz0123456789"
	b := make([]byte, n)
	if _, err := rand.Read(b); err != nil {
		return "", fmt.Errorf("random: %w", err)
	}
	for i := range b {
		b[i] = alphabet[int(b[i])%len(alphabet)]
	}
	return string(b), nil
}
