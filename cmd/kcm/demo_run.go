package main

import (
	"context"
	"fmt"
	"io"
	"sync"
	"time"

	"github.com/kcmlab/kcm/clock"
	"github.com/kcmlab/kcm/kube/api"
	"github.com/kcmlab/kcm/kube/api/decode"
	"github.com/kcmlab/kcm/kube/rest"
)

// demo plays demoScript against a cluster, one step per period, and
// narrates each step before making it.
type demo struct {
	ns     string
	period time.Duration
	clk    clock.Clock
	w      io.Writer
	pods   *rest.Resources[*api.RawObject]
	cms    *rest.Resources[*api.RawObject]
	nss    *rest.Resources[*api.RawObject]
	sas    *rest.Resources[*api.RawObject]
}

// newDemo returns a demo writing to namespace ns through c; narration goes
// to w, one whole line per Write.
func newDemo(c *rest.Client, ns string, period time.Duration, clk clock.Clock, w io.Writer) *demo {
	if clk == nil {
		clk = clock.Real{}
	}
	raw := func(r rest.Resource) *rest.Resources[*api.RawObject] {
		return rest.NewResources(c, r, decode.Raw()).InNamespace(ns)
	}
	return &demo{ns: ns, period: period, clk: clk, w: w, pods: raw(rest.Pods), cms: raw(rest.ConfigMaps),
		nss: rest.NewResources(c, rest.Namespaces, decode.Raw()), sas: raw(rest.ServiceAccounts)}
}

// Setup creates the namespace and its "default" ServiceAccount (the API
// server admits no pod in a namespace without it, and no controller runs
// here to create it). Objects that exist already are fine.
func (d *demo) Setup(ctx context.Context) error {
	ns, err := api.NewRawObject(map[string]any{"apiVersion": "v1", "kind": "Namespace", "metadata": map[string]any{"name": d.ns}})
	if err != nil {
		return err
	}
	if _, err := d.nss.Create(ctx, ns); err != nil && !rest.IsAlreadyExists(err) {
		return fmt.Errorf("demo: create namespace %s: %w", d.ns, err)
	}
	sa, err := api.NewRawObject(map[string]any{"apiVersion": "v1", "kind": "ServiceAccount",
		"metadata": map[string]any{"name": "default", "namespace": d.ns}})
	if err != nil {
		return err
	}
	if _, err := d.sas.Create(ctx, sa); err != nil && !rest.IsAlreadyExists(err) {
		return fmt.Errorf("demo: create serviceaccount %s/default: %w", d.ns, err)
	}
	return nil
}

// Run plays the script until ctx ends. A failed step is narrated and the
// demo goes on: the next cycle repairs what it left behind.
func (d *demo) Run(ctx context.Context) error {
	t := d.clk.NewTicker(d.period)
	defer t.Stop()
	for i := 0; ctx.Err() == nil; i++ {
		s := demoStepAt(i)
		d.say(string(s.Verb), s.describe(d.ns))
		if err := d.play(ctx, s); err != nil && ctx.Err() == nil {
			d.say("failed", err.Error())
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-t.C():
		}
	}
	return ctx.Err()
}

func (d *demo) say(verb, what string) {
	_, _ = io.WriteString(d.w, "\n"+row(d.clk.Now(), "demo", verb, what)+"\n")
}

// play makes one step. Creating what exists and deleting what is gone
// count as done, so a demo restarted mid-cycle settles.
func (d *demo) play(ctx context.Context, s demoStep) error {
	r := d.pods
	if s.Kind == "configmap" {
		r = d.cms
	}
	switch s.Verb {
	case demoCreate:
		obj, err := api.NewRawObject(s.manifest(d.ns))
		if err != nil {
			return err
		}
		if _, err := r.Create(ctx, obj); err != nil && !rest.IsAlreadyExists(err) {
			return err
		}
	case demoDelete:
		zero := int64(0)
		if err := r.Delete(ctx, s.Name, rest.DeleteOptions{GracePeriodSeconds: &zero}); err != nil && !rest.IsNotFound(err) {
			return err
		}
	default:
		return d.patch(ctx, r, s)
	}
	return nil
}

func (d *demo) patch(ctx context.Context, r *rest.Resources[*api.RawObject], s demoStep) error {
	uid := ""
	if s.Verb == demoAdopt {
		owner, err := d.cms.Get(ctx, s.Owner)
		if err != nil {
			return err
		}
		uid = owner.UID
	}
	p, err := s.patch(uid)
	if err != nil {
		return err
	}
	_, err = r.Patch(ctx, s.Name, rest.MergePatch, p, rest.PatchOptions{})
	return err
}

// lineWriter serialises whole-line writes from several goroutines (the
// demo's narration and the trace) onto one stream.
type lineWriter struct {
	mu sync.Mutex
	w  io.Writer
}

func (l *lineWriter) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.Write(p)
}
