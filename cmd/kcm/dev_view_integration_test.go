//go:build !nocluster

package main

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/rs/zerolog"

	"github.com/kcmlab/kcm/internal/testing/browser"
	"github.com/kcmlab/kcm/kube/api"
	"github.com/kcmlab/kcm/kube/api/decode"
	"github.com/kcmlab/kcm/kube/rest"
	"github.com/kcmlab/kcm/testenv"
)

// viewBound bounds each wait on what the browser shows: a Deployment's
// pods reach every stage in well under a second on an idle machine; the
// bound leaves room for a loaded one.
const viewBound = 45 * time.Second

// TestDevPipelineViewInBrowser is the pipeline view as a learner meets it:
// `kcm dev`'s manager and view on a real cluster, the page in a real
// headless Chromium. The page shows the leader election and every
// informer and controller; a Deployment created through the API has its
// pods appear at each stage (socket, FIFO, store, the ReplicaSet
// controller's handler) and its controllers' queues, syncs and writes;
// following one pod by typing its key into the search box shows its path
// end to end, up to the watch event of the write its sync made (the loop
// closing). A screenshot is saved as the test's artefact. A machine
// without Chromium fails the test with the reason (make test installs it).
func TestDevPipelineViewInBrowser(t *testing.T) {
	chromium, err := browser.Find()
	if err != nil {
		t.Fatal(err)
	}
	cl := testenv.Shared(t)
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	m, err := newDevManager(cl.Config(), cl.KubeconfigPath(), zerolog.Nop(), "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	m.opts.LeaderElection.ResourceName = "kcm-view-test" // not the Lease another test's manager may still hold
	var desc strings.Builder
	m.describe(&desc)
	if !strings.Contains(desc.String(), "pipeline view  "+m.ViewURL()) || !strings.HasPrefix(m.ViewURL(), "http://127.0.0.1:") {
		t.Fatalf("kcm dev does not print the view's URL %q:\n%s", m.ViewURL(), desc.String())
	}
	runCtx, stop := context.WithCancel(ctx)
	ran := make(chan error, 1)
	go func() { ran <- m.Run(runCtx) }()
	defer func() {
		stop()
		if err := <-ran; err != nil {
			t.Errorf("the manager's Run = %v", err)
		}
	}()

	b, err := browser.Launch(ctx, chromium)
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	page, err := b.NewPage(ctx, 1600, 1000)
	if err != nil {
		t.Fatal(err)
	}
	if err := page.Navigate(ctx, m.ViewURL()); err != nil {
		t.Fatal(err)
	}
	dir := artifactDir(t)
	shot := func(name string) {
		png, err := page.Screenshot(ctx)
		if err != nil {
			t.Errorf("screenshot %s: %v", name, err)
			return
		}
		if err := os.WriteFile(filepath.Join(dir, name), png, 0o644); err != nil {
			t.Error(err)
		}
	}
	wait := func(what, expr string) time.Duration {
		t.Helper()
		began := time.Now()
		wctx, wcancel := context.WithTimeout(ctx, viewBound)
		defer wcancel()
		if err := page.WaitFor(wctx, expr); err != nil {
			shot("failed.png")
			var text string
			_ = page.Eval(ctx, `document.body.innerText.slice(0, 4000)`, &text)
			t.Fatalf("%s: %v\nproblems: %q\nthe page says:\n%s", what, err, page.Problems(), text)
		}
		return time.Since(began)
	}

	// The manager leads and its informers and controllers are drawn.
	wait("the leader-election panel", `document.querySelector('#lease .leading') && document.getElementById('lease').dataset.holder !== ''`)
	wait("the informers and controllers", `['socket:pods', 'store:replicasets.apps', 'store:deployments.apps', 'sync:replicaset-controller',
		'sync:deployment-controller', 'handler:pods:replicaset-controller'].every((id) => document.querySelector('[data-stage="' + id + '"]'))`)

	c, err := rest.NewClient(cl.Config())
	if err != nil {
		t.Fatal(err)
	}
	defer c.CloseIdleConnections()
	namespaces := rest.NewResources(c, rest.Namespaces, decode.Typed[api.Namespace]())
	ns, err := namespaces.Create(ctx, &api.Namespace{ObjectMeta: api.ObjectMeta{GenerateName: "kcm-view-"}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = namespaces.Delete(context.Background(), ns.Name, rest.DeleteOptions{}) })
	dep, err := decode.Raw().Decode([]byte(`{"apiVersion":"apps/v1","kind":"Deployment","metadata":{"name":"web"},
		"spec":{"replicas":3,"selector":{"matchLabels":{"app":"web"}},
		"template":{"metadata":{"labels":{"app":"web"}},"spec":{"containers":[{"name":"web","image":"nginx"}]}}}}`))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := rest.NewResources(c, rest.Deployments, decode.Raw()).InNamespace(ns.Name).Create(ctx, dep); err != nil {
		t.Fatal(err)
	}
	created := time.Now()

	// Its three pods appear at every stage of the pods informer, and the
	// controllers' queues, syncs and writes show the ReplicaSet and the pods.
	inNS := fmt.Sprintf(`'[data-key^="%s/"]'`, ns.Name)
	keys := func(stage string) string {
		return fmt.Sprintf(`new Set([...document.querySelectorAll('[data-stage="%s"] li' + %s)].map((li) => li.dataset.key)).size`, stage, inNS)
	}
	podStages := []string{"socket:pods", "fifo:pods", "store:pods", "handler:pods:replicaset-controller", "handler:pods:deployment-controller"}
	var every []string
	for _, s := range podStages {
		every = append(every, keys(s)+" >= 3")
	}
	wait("the Deployment's three pods at every stage of the pods informer", strings.Join(every, " && "))
	wait("the controllers at work", strings.Join([]string{
		keys("enqueue:deployment-controller") + " >= 1", keys("sync:deployment-controller") + " >= 1",
		keys("enqueue:replicaset-controller") + " >= 1", keys("sync:replicaset-controller") + " >= 1",
		fmt.Sprintf(`[...document.querySelectorAll('[data-stage^="write:"][data-stage$="(replicaset-controller)"] li')].some((li) => li.textContent.startsWith('POST') && li.dataset.key.startsWith('%s/web-'))`, ns.Name),
	}, " && "))
	seen := time.Since(created)
	t.Logf("the Deployment's pods were at every stage, and its controllers' work shown, %v after it was created", seen.Round(time.Millisecond))

	// Follow one pod: type its key into the search box.
	var pod string
	if err := page.Eval(ctx, fmt.Sprintf(`document.querySelector('[data-stage="store:pods"] li' + %s).dataset.key`, inNS), &pod); err != nil {
		t.Fatal(err)
	}
	if err := page.Eval(ctx, `(() => { document.getElementById('resource').value = 'pods'; return true })()`, nil); err != nil {
		t.Fatal(err)
	}
	if err := page.Type(ctx, "#key", pod); err != nil {
		t.Fatal(err)
	}
	if err := page.Click(ctx, `#follow button[type="submit"]`); err != nil {
		t.Fatal(err)
	}
	row := func(stage string) string {
		return fmt.Sprintf(`document.querySelector('#trail tr[data-stage="%s"]')`, stage)
	}
	took := wait("the pod's path end to end", strings.Join([]string{
		`document.querySelector('#trail h2')?.textContent.includes(` + jsString(pod) + `)`,
		row("socket"), row("fifo"), row("store"), row("handler"), row("enqueue"), row("sync"), row("write"),
		`document.querySelector('#trail tr.loop')`,
		`[...document.querySelectorAll('#trail tr[data-stage="socket"]')].some((r) => r.textContent.includes('← POST by kcm/') && r.textContent.includes('(replicaset-controller)'))`,
		`[...document.querySelectorAll('#trail tr[data-stage="store"]')].some((r) => r.textContent.includes('+label:app=web'))`,
	}, " && "))
	var trail string
	if err := page.Eval(ctx, `document.getElementById('trail').innerText`, &trail); err != nil {
		t.Fatal(err)
	}
	t.Logf("following %s: the path up to the loop closing shown %v after the search\n%s", pod, took.Round(time.Millisecond), trail)
	shot("pipeline-view.png")
	var writers []string
	_ = page.Eval(ctx, `[...document.querySelectorAll('[data-stage^="write:"]')].map((e) => e.dataset.stage + ' = ' + e.dataset.total)`, &writers)
	t.Logf("writers: %q", writers)
	if p := page.Problems(); len(p) > 0 {
		t.Errorf("the page reported errors: %q", p)
	}
}

// artifactDir is where the test leaves its screenshots: $KCM_ARTIFACTS,
// else a new directory under the system's temporary directory; kept, and
// printed.
func artifactDir(t *testing.T) string {
	t.Helper()
	dir := os.Getenv("KCM_ARTIFACTS")
	var err error
	if dir == "" {
		dir, err = os.MkdirTemp("", "kcm-view-")
	} else {
		err = os.MkdirAll(dir, 0o755)
	}
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("screenshots in %s", dir)
	return dir
}

// jsString quotes s as a JavaScript string literal.
func jsString(s string) string {
	return "'" + strings.NewReplacer(`\`, `\\`, `'`, `\'`).Replace(s) + "'"
}
