//go:build !nocluster

package informer_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/kcmlab/kcm/informer"
	"github.com/kcmlab/kcm/kube/api"
	"github.com/kcmlab/kcm/kube/api/decode"
	"github.com/kcmlab/kcm/kube/rest"
	"github.com/kcmlab/kcm/processor"
	"github.com/kcmlab/kcm/reflector"
	"github.com/kcmlab/kcm/testenv"
)

// phaseRecorder records a reflector's phase changes (with the error that caused
// each) and how many LIST pages it read.
type phaseRecorder struct {
	mu      sync.Mutex
	changes []string
	errs    []error
	pages   int
}

func (p *phaseRecorder) ListPage(int, string, bool) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.pages++
}
func (p *phaseRecorder) WatchEvent(rest.EventType, string, int) {}
func (p *phaseRecorder) PhaseChange(from, to reflector.Phase, err error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.changes = append(p.changes, from.String()+"→"+to.String())
	p.errs = append(p.errs, err)
}

func (p *phaseRecorder) snapshot() (changes []string, errs []error, pages int) {
	p.mu.Lock()
	defer p.mu.Unlock()
	return append([]string(nil), p.changes...), append([]error(nil), p.errs...), p.pages
}

// TestWatchListAndItsFallback runs an informer that asks for WatchList
// (ListStream: a WATCH with sendInitialEvents=true, resourceVersionMatch=
// NotOlderThan) against kube-apiserver twice:
//
//   - with the WatchList feature gate on (the default since 1.34): the
//     initial state arrives as ADDED events closed by the
//     k8s.io/initial-events-end bookmark, and the reflector goes straight
//     from WatchListing to Watching without a single LIST;
//   - with --feature-gates=WatchList=false, as an operator may run a Beta
//     feature: kube-apiserver refuses sendInitialEvents with 422 Invalid
//     ("sendInitialEvents is forbidden for watch unless the WatchList
//     feature gate is enabled"), and the reflector falls back to LIST +
//     WATCH, as client-go's reflector does.
//
// Either way the cache holds every object and then follows live changes.
func TestWatchListAndItsFallback(t *testing.T) {
	for _, tc := range []struct {
		name  string
		flags []string // kube-apiserver flags; none: the shared cluster
		want  []string // the reflector's phase changes up to Watching
		lists bool     // whether LIST pages were read
	}{
		{name: "gate-on", want: []string{"watch-listing→watching"}},
		{name: "gate-off", flags: []string{"--feature-gates=WatchList=false"},
			want: []string{"watch-listing→listing", "listing→watching"}, lists: true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ctx, cancel := context.WithTimeout(context.Background(), 4*time.Minute)
			t.Cleanup(cancel)
			cl := testenv.Shared(t)
			if tc.flags != nil {
				var err error
				cl, err = testenv.Start(ctx, testenv.Options{APIServerFlags: tc.flags})
				if err != nil {
					t.Fatal(err)
				}
				t.Cleanup(cl.Stop)
			}
			c, err := rest.NewClient(cl.Config())
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(c.CloseIdleConnections)
			ns := cl.Namespace(t)
			pods := rest.NewResources(c, rest.Pods, decode.Typed[api.Pod]()).InNamespace(ns)
			mkPod := func(name string) {
				t.Helper()
				p := &api.Pod{ObjectMeta: api.ObjectMeta{Name: name},
					Spec: api.PodSpec{Containers: []api.Container{{Name: "c", Image: "registry.k8s.io/pause:3.10"}}}}
				if _, err := pods.Create(ctx, p); err != nil {
					t.Fatal(err)
				}
			}
			for i := range 5 {
				mkPod(fmt.Sprintf("before-%d", i))
			}

			ro := fastReflector(reflector.ListStream)
			log := &phaseRecorder{}
			ro.Observer = log
			f := startFactory(t, ctx, c, ns, ro)
			inf := informer.For[api.Pod](f, rest.Pods)
			h := newLastEvents[*api.Pod]()
			if _, err := inf.AddEventHandler(h, processor.HandlerOptions{Name: "last"}); err != nil {
				t.Fatal(err)
			}
			f.Start(ctx)
			if synced := f.WaitForCacheSync(ctx); !synced["pods"] {
				t.Fatalf("not synced: %v", synced)
			}
			if n := inf.Store().Len(); n != 5 {
				t.Fatalf("synced with %d pods cached, want 5", n)
			}
			// Live changes after the initial state reach the cache.
			mkPod("after")
			if err := pods.Delete(ctx, "before-0", rest.DeleteOptions{}); err != nil {
				t.Fatal(err)
			}
			awaitConverged(t, ctx, pods, inf, h)

			changes, errs, pages := log.snapshot()
			if len(changes) < len(tc.want) || strings.Join(changes[:len(tc.want)], " ") != strings.Join(tc.want, " ") {
				t.Fatalf("phase changes %v, want %v first", changes, tc.want)
			}
			if tc.lists != (pages > 0) {
				t.Errorf("%d LIST pages read; want LIST used: %v", pages, tc.lists)
			}
			if tc.flags != nil && !errors.Is(errs[0], rest.ErrInvalid) {
				t.Errorf("WatchList refused with %v, want 422 Invalid", errs[0])
			}
			t.Logf("phase changes %v, %d LIST pages", changes, pages)
		})
	}
}
