package main

import (
	"context"
	"fmt"
	"io"
	"sync"
	"time"

	"github.com/rs/zerolog"

	"github.com/kcmlab/kcm/clock"
	"github.com/kcmlab/kcm/kube/rest"
)

// DemoNamespace is where `kcm dev` runs its demo workload.
const DemoNamespace = "kcm-demo"

// devWorkload is what `kcm dev` runs on its cluster besides the cluster.
type devWorkload struct {
	Demo          bool          // play the demo script
	DemoNamespace string        // default DemoNamespace
	Period        time.Duration // between demo steps; default 2s
	// Trace names the resource to trace ("" = no trace); TraceNamespace
	// limits it ("" = all namespaces).
	Trace          string
	TraceNamespace string
	Logger         zerolog.Logger
	// Manager, when set, runs alongside; its failure (a lost lease) ends
	// the workload with its error.
	Manager *devManager
}

// runDevWorkload runs the manager, the demo and the trace against the
// cluster cfg points at until ctx ends (or the manager fails), then waits
// for all of them to stop. The trace starts
// first and the demo's loop only once the trace has synced, so that every
// demo write shows up as a live event.
func runDevWorkload(ctx context.Context, cfg *rest.Config, o devWorkload, w io.Writer) error {
	if o.DemoNamespace == "" {
		o.DemoNamespace = DemoNamespace
	}
	if o.Period <= 0 {
		o.Period = 2 * time.Second
	}
	c, err := rest.NewClient(cfg, rest.WithLogger(o.Logger))
	if err != nil {
		return err
	}
	var d *demo
	if o.Demo {
		d = newDemo(c, o.DemoNamespace, o.Period, clock.Real{}, w)
		if err := d.Setup(ctx); err != nil {
			return err
		}
		fmt.Fprintf(w, "The demo writes pods and configmaps in namespace %s, one write every %s (--no-demo: off).\n", o.DemoNamespace, o.Period)
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	var wg sync.WaitGroup
	defer wg.Wait()
	mgrErr := make(chan error, 1)
	if o.Manager != nil {
		wg.Add(1)
		go func() { defer wg.Done(); mgrErr <- o.Manager.Run(ctx) }()
	}
	if o.Trace != "" {
		t, err := startDevTrace(ctx, c, o, w, &wg)
		if err != nil {
			return err
		}
		select {
		case <-t.Synced():
		case <-ctx.Done():
		}
	}
	if d != nil {
		wg.Add(1)
		go func() { defer wg.Done(); _ = d.Run(ctx) }()
	}
	select {
	case <-ctx.Done():
		return nil
	case err := <-mgrErr:
		if err == nil {
			return nil
		}
		return fmt.Errorf("controller manager: %w", err)
	}
}

// startDevTrace resolves the resource and runs a tracer in a goroutine
// counted by wg.
func startDevTrace(ctx context.Context, c *rest.Client, o devWorkload, w io.Writer, wg *sync.WaitGroup) (*tracer, error) {
	res, err := resolveResource(ctx, c, o.Trace)
	if err != nil {
		return nil, fmt.Errorf("--trace: %w", err)
	}
	t, err := newTracer(c, traceOptions{Resource: res, Namespace: o.TraceNamespace, Logger: o.Logger}, w)
	if err != nil {
		return nil, err
	}
	fmt.Fprintf(w, "The trace below follows %s (--trace=cm follows configmaps instead; --trace= turns it off).\n", res.Resource)
	wg.Add(1)
	go func() { defer wg.Done(); _ = t.Run(ctx) }()
	return t, nil
}
