// Package ctrltest starts one controller against a real apiserver for an
// integration test, wired as the manager wires it: a fresh
// ctrl.ControllerContext on the given client, the controller built by its
// descriptor's constructor, the shared informers started, its workers run.
//
// Tests of a controller's sync use listers and the recording fake
// apiserver of internal/testing/resttest instead;
// this package is for the tests that check a controller against the real
// kube-apiserver (ctrl/<name>/controller_integration_test.go).
package ctrltest

import (
	"context"
	"sync"
	"testing"

	"github.com/rs/zerolog"

	"github.com/kcmlab/kcm/ctrl"
	"github.com/kcmlab/kcm/kube/rest"
)

// Running is a controller started by Start.
type Running struct {
	// Ctx is the context the informers and workers run under; it ends at
	// Stop. Helpers of the test that should live as long as the controller
	// (a fake kubelet, a status driver) run under it too.
	Ctx context.Context
	// Context is the controller context it was built from.
	Context ctrl.ControllerContext

	stop context.CancelFunc
	done chan error
	once sync.Once
}

// Start builds d's controller on a new controller context over client,
// starts the shared informers and runs workers workers, all under a child
// of ctx. It fails t if the controller cannot be built; t's cleanup stops
// it (Stop may be called earlier).
func Start(t testing.TB, ctx context.Context, client *rest.Client, d *ctrl.ControllerDescriptor, workers int) *Running {
	t.Helper()
	cc, err := ctrl.CreateControllerContext(client, ctrl.Config{Version: "vtest", Logger: zerolog.Nop()})
	if err != nil {
		t.Fatal(err)
	}
	c, err := d.Constructor(ctx, cc, d.Name)
	if err != nil {
		t.Fatalf("building %s: %v", d.Name, err)
	}
	runCtx, stop := context.WithCancel(ctx)
	r := &Running{Ctx: runCtx, Context: cc, stop: stop, done: make(chan error, 1)}
	cc.InformerFactory.Start(runCtx)
	go func() { r.done <- c.Run(runCtx, workers) }()
	t.Cleanup(func() { r.Stop(t) })
	return r
}

// Stop ends the controller's workers and informers, waits for them, and
// fails t if the controller's Run returned an error. Only the first call
// does anything.
func (r *Running) Stop(t testing.TB) {
	t.Helper()
	r.once.Do(func() {
		r.stop()
		if err := <-r.done; err != nil {
			t.Errorf("Run: %v", err)
		}
		r.Context.InformerFactory.Shutdown()
	})
}
