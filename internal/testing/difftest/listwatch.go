package difftest

import (
	"context"
	"fmt"
	"sync"

	"github.com/kcmlab/kcm/kube/api"
	"github.com/kcmlab/kcm/kube/rest"
)

// recorder is what every recording watch of this package shares: a lock
// over its state, the goroutines it runs, the first watch failure, and a
// signal that wakes its waiters (called under the lock). Observer,
// EndpointsWatch, SetWatch and NodeWatch each hand theirs to listWatch.
type recorder struct {
	mu     *sync.Mutex
	wg     *sync.WaitGroup
	err    *error // guarded by mu
	signal func() // called with mu held
}

// listWatch lists res and applies every item with listed true (the
// starting state), then watches from the list's resourceVersion in a
// goroutine of r.wg, applying each ADDED, MODIFIED and DELETED event with
// listed false. Every apply runs under r.mu and is followed by r.signal.
// A watch that ends while ctx is live records its error, wrapped in
// ErrWatchEnded, as r's first failure (later ones are dropped).
func listWatch[T api.Object](ctx context.Context, r recorder, res *rest.Resources[T], apply func(typ rest.EventType, obj T, listed bool)) error {
	list, err := res.List(ctx, rest.ListOptions{})
	if err != nil {
		return fmt.Errorf("difftest: list %s: %w", res.Resource(), err)
	}
	r.mu.Lock()
	for _, item := range list.Items {
		apply(rest.Added, item, true)
	}
	r.signal()
	r.mu.Unlock()
	wt, err := res.Watch(ctx, rest.WatchOptions{ListOptions: rest.ListOptions{
		ResourceVersion: list.ResourceVersion, TimeoutSeconds: watchTimeoutSeconds}})
	if err != nil {
		return fmt.Errorf("difftest: watch %s: %w", res.Resource(), err)
	}
	r.wg.Add(1)
	go func() {
		defer r.wg.Done()
		defer wt.Close()
		for {
			ev, err := wt.Next()
			if err == nil && ev.Type == rest.Error {
				err = ev.Err
			}
			r.mu.Lock()
			switch {
			case err != nil:
				if ctx.Err() == nil && *r.err == nil {
					*r.err = fmt.Errorf("%w: %s: %w", ErrWatchEnded, res.Resource(), err)
				}
			case ev.Type == rest.Added || ev.Type == rest.Modified || ev.Type == rest.Deleted:
				apply(ev.Type, ev.Object, false)
			}
			r.signal()
			r.mu.Unlock()
			if err != nil {
				return
			}
		}
	}()
	return nil
}
