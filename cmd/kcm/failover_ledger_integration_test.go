//go:build !nocluster

package main

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"sync"

	"github.com/kcmlab/kcm/kube/api"
	"github.com/kcmlab/kcm/kube/api/decode"
	"github.com/kcmlab/kcm/kube/rest"
)

// ledgerWatchSeconds keeps the ledger's watches open longer than the test
// runs; a watch that ends early is an error (the count would have a hole).
const ledgerWatchSeconds = 1800

// ledger records every ReplicaSet and pod event of one namespace, from an
// empty namespace on, for replayCreations. It uses plain watches from
// package rest, not kcm's informers: the judge shares no code with what it
// judges.
type ledger struct {
	cancel context.CancelFunc
	wg     sync.WaitGroup

	mu      sync.Mutex
	changed chan struct{} // closed and replaced on every event; guarded by mu
	events  []ledgerEvent // guarded by mu
	err     error         // the first failure; guarded by mu
}

// errLedger is wrapped by every ledger failure.
var errLedger = errors.New("pod ledger")

// startLedger lists the namespace's ReplicaSets and pods — there must be
// none yet — and watches both from the lists' resourceVersions.
func startLedger(ctx context.Context, c *rest.Client, ns string) (*ledger, error) {
	wctx, cancel := context.WithCancel(ctx)
	l := &ledger{cancel: cancel, changed: make(chan struct{})}
	rss := rest.NewResources(c, rest.ReplicaSets, decode.Typed[api.ReplicaSet]()).InNamespace(ns)
	pods := rest.NewResources(c, rest.Pods, decode.Typed[api.Pod]()).InNamespace(ns)
	if err := watchLedger(wctx, l, rss, replicaSetEvent); err != nil {
		l.stop()
		return nil, err
	}
	if err := watchLedger(wctx, l, pods, podEvent); err != nil {
		l.stop()
		return nil, err
	}
	return l, nil
}

// watchLedger starts one stream. Within a stream resourceVersions must
// strictly increase — the assumption the replay's merge rests on — or the
// ledger fails.
func watchLedger[T api.Object](ctx context.Context, l *ledger, res *rest.Resources[T], reduce func(uint64, rest.EventType, T) ledgerEvent) error {
	list, err := res.List(ctx, rest.ListOptions{})
	if err != nil {
		return fmt.Errorf("%w: list %s: %w", errLedger, res.Resource(), err)
	}
	if len(list.Items) > 0 {
		return fmt.Errorf("%w: the namespace already holds %d %s", errLedger, len(list.Items), res.Resource())
	}
	w, err := res.Watch(ctx, rest.WatchOptions{ListOptions: rest.ListOptions{
		ResourceVersion: list.ResourceVersion, TimeoutSeconds: ledgerWatchSeconds}})
	if err != nil {
		return fmt.Errorf("%w: watch %s: %w", errLedger, res.Resource(), err)
	}
	l.wg.Go(func() {
		defer w.Close()
		var last uint64
		for {
			ev, err := w.Next()
			if err == nil && ev.Type == rest.Error {
				err = ev.Err
			}
			var le ledgerEvent
			if err == nil && ev.Type != rest.Bookmark {
				var rv uint64
				rv, err = strconv.ParseUint(ev.Object.GetObjectMeta().ResourceVersion, 10, 64)
				switch {
				case err != nil:
					err = fmt.Errorf("resourceVersion of %s: %w", ev.Object.GetObjectMeta().Name, err)
				case rv <= last:
					err = fmt.Errorf("resourceVersion %d after %d: the stream is not in store order", rv, last)
				}
				last, le = rv, reduce(rv, ev.Type, ev.Object)
			}
			l.mu.Lock()
			if err != nil && ctx.Err() == nil && l.err == nil {
				l.err = fmt.Errorf("%w: watch %s: %w", errLedger, res.Resource(), err)
			}
			if err == nil && ev.Type != rest.Bookmark {
				l.events = append(l.events, le)
			}
			close(l.changed)
			l.changed = make(chan struct{})
			l.mu.Unlock()
			if err != nil {
				return
			}
		}
	})
	return nil
}

// waitAdded waits until the ledger holds the ADDED event of a pod and of
// a ReplicaSet named name: every event of both streams written before
// them has then been recorded too (a barrier).
func (l *ledger) waitAdded(ctx context.Context, name string) error {
	for {
		l.mu.Lock()
		if l.err != nil {
			err := l.err
			l.mu.Unlock()
			return err
		}
		var pod, rs bool
		for _, ev := range l.events {
			if ev.Type == rest.Added && ev.Name == name {
				pod = pod || ev.Kind == kindPod
				rs = rs || ev.Kind == kindReplicaSet
			}
		}
		ch := l.changed
		l.mu.Unlock()
		if pod && rs {
			return nil
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("%w: waiting for the barrier %s: %w", errLedger, name, ctx.Err())
		case <-ch:
		}
	}
}

// stop ends the watches and returns what was recorded, and the first
// failure.
func (l *ledger) stop() ([]ledgerEvent, error) {
	l.cancel()
	l.wg.Wait()
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.events, l.err
}
