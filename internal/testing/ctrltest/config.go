package ctrltest

import (
	"context"
	"testing"

	"github.com/kcmlab/kcm/ctrl"
	"github.com/kcmlab/kcm/kube/rest"
)

// StartWithConfig is Start on a controller context made from cfg: the
// manager's Options (a descriptor's flags, parsed), the CA its client
// trusts (APIServerCAData), a clock. An empty Version becomes "vtest".
func StartWithConfig(t testing.TB, ctx context.Context, client *rest.Client, cfg ctrl.Config, d *ctrl.ControllerDescriptor, workers int) *Running {
	t.Helper()
	if cfg.Version == "" {
		cfg.Version = "vtest"
	}
	cc, err := ctrl.CreateControllerContext(client, cfg)
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
