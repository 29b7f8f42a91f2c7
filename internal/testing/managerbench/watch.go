package managerbench

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/kcmlab/kcm/kube/api"
	"github.com/kcmlab/kcm/kube/api/decode"
	"github.com/kcmlab/kcm/kube/rest"
)

// maxWatchErrors is how many watch failures in a row end a watch for good.
const maxWatchErrors = 5

// watchEvents streams the events of r after resourceVersion rv to fn until
// ctx ends, reopening the watch where it left off when the server ends it
// or the connection drops. It returns nil when ctx ends, and an error for
// an ERROR event (410 Gone included: the harness cannot fill the gap) or
// after maxWatchErrors failures in a row.
func watchEvents[T api.Object](ctx context.Context, r *rest.Resources[T], rv string, fn func(rest.EventType, T, time.Time)) error {
	failures := 0
	for {
		w, err := r.Watch(ctx, rest.WatchOptions{ListOptions: rest.ListOptions{
			ResourceVersion: rv, AllowWatchBookmarks: true, TimeoutSeconds: 3600}})
		for err == nil {
			var ev rest.WatchEvent[T]
			if ev, err = w.Next(); err != nil {
				break
			}
			failures = 0
			if ev.Type == rest.Error {
				w.Close()
				return fmt.Errorf("managerbench: watch %s: %w", r.Resource(), ev.Err)
			}
			rv = ev.Object.GetObjectMeta().ResourceVersion
			if ev.Type != rest.Bookmark {
				fn(ev.Type, ev.Object, time.Now())
			}
		}
		if w != nil {
			w.Close()
		}
		if ctx.Err() != nil {
			return nil
		}
		if failures++; failures >= maxWatchErrors {
			return fmt.Errorf("managerbench: watch %s: %d failures in a row: %w", r.Resource(), failures, err)
		}
		select {
		case <-ctx.Done():
			return nil
		case <-time.After(time.Duration(failures) * 200 * time.Millisecond):
		}
	}
}

// ErrWatchEnded is returned by podCounter.Wait when its watch failed.
var ErrWatchEnded = errors.New("managerbench: pod watch ended")

// podCounter watches the pods of one namespace and records, per value of
// their "app" label, when each distinct pod was first seen.
type podCounter struct {
	mu      sync.Mutex
	seen    map[string]bool        // namespace/name; guarded by mu
	times   map[string][]time.Time // app → arrival times; guarded by mu
	err     error                  // the watch's end; guarded by mu
	changed chan struct{}          // closed and replaced on every change; guarded by mu
}

// startPodCounter watches the pods of ns after rv until ctx ends.
func startPodCounter(ctx context.Context, c *cluster, ns, rv string) *podCounter {
	pc := &podCounter{seen: map[string]bool{}, times: map[string][]time.Time{}, changed: make(chan struct{})}
	pods := rest.NewResources(c.client, rest.Pods, decode.Raw()).InNamespace(ns)
	go func() {
		err := watchEvents(ctx, pods, rv, func(t rest.EventType, o *api.RawObject, at time.Time) {
			if t == rest.Added {
				pc.add(o.Name, o.Labels["app"], at)
			}
		})
		pc.mu.Lock()
		pc.err = fmt.Errorf("%w: %w", ErrWatchEnded, err)
		if err == nil {
			pc.err = ErrWatchEnded
		}
		close(pc.changed)
		pc.changed = make(chan struct{})
		pc.mu.Unlock()
	}()
	return pc
}

func (pc *podCounter) add(name, app string, at time.Time) {
	pc.mu.Lock()
	defer pc.mu.Unlock()
	if pc.seen[name] {
		return
	}
	pc.seen[name] = true
	pc.times[app] = append(pc.times[app], at)
	close(pc.changed)
	pc.changed = make(chan struct{})
}

// Wait returns when the first and the n-th pod labelled app=app arrived,
// waiting for them.
func (pc *podCounter) Wait(ctx context.Context, app string, n int) (first, nth time.Time, err error) {
	for {
		pc.mu.Lock()
		ts, werr, ch := pc.times[app], pc.err, pc.changed
		pc.mu.Unlock()
		if len(ts) >= n {
			return ts[0], ts[n-1], nil
		}
		if werr != nil {
			return time.Time{}, time.Time{}, werr
		}
		select {
		case <-ctx.Done():
			return time.Time{}, time.Time{}, fmt.Errorf("managerbench: %d of %d pods app=%s: %w", len(ts), n, app, ctx.Err())
		case <-ch:
		}
	}
}

// changeCounter counts the writes a manager makes to the populated
// workload while it runs: events for Deployments, ReplicaSets and pods in
// the namespaces matched by inScope. On a settled cluster a manager that
// agrees with what it finds writes nothing.
type changeCounter struct {
	mu    sync.Mutex
	n     map[string]int // resource → events; guarded by mu
	errs  []error        // guarded by mu
	wg    sync.WaitGroup
	close context.CancelFunc
}

func startChangeCounter(ctx context.Context, c *cluster, rv string, inScope func(ns string) bool) *changeCounter {
	ctx, cancel := context.WithCancel(ctx)
	cc := &changeCounter{n: map[string]int{}, close: cancel}
	for _, res := range []rest.Resource{rest.Deployments, rest.ReplicaSets, rest.Pods} {
		r := rest.NewResources(c.client, res, decode.Raw())
		cc.wg.Add(1)
		go func() {
			defer cc.wg.Done()
			err := watchEvents(ctx, r, rv, func(_ rest.EventType, o *api.RawObject, _ time.Time) {
				if inScope(o.Namespace) {
					cc.mu.Lock()
					cc.n[res.Resource]++
					cc.mu.Unlock()
				}
			})
			if err != nil {
				cc.mu.Lock()
				cc.errs = append(cc.errs, err)
				cc.mu.Unlock()
			}
		}()
	}
	return cc
}

// Stop ends the watches and returns the counts per resource.
func (cc *changeCounter) Stop() (map[string]int, error) {
	cc.close()
	cc.wg.Wait()
	cc.mu.Lock()
	defer cc.mu.Unlock()
	return cc.n, errors.Join(cc.errs...)
}
