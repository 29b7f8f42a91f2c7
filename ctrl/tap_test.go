package ctrl

import (
	"context"
	"errors"
	"fmt"
	"testing"
	"testing/synctest"
	"time"

	"github.com/kcmlab/kcm/tap"
)

// While the view watches, every sync is reported at the Sync stage, named
// after the controller: when it begins (with its number and the retries
// on record) and when it ends (its result, how long it took, its error,
// the delay of a requeue). The sync's context carries its tap.SyncRef, so
// that the writes it makes can be traced back to it; the queue's adds are
// reported at the Enqueue stage. In-flight syncs and workers are gauges.
func TestTapReportsSyncs(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var log tap.Log
		var tp *tap.Tap
		refs := make(chan tap.SyncRef, 10)
		calls := 0
		h := start(t, func(ctx context.Context, key string) (Result, error) {
			ref, _ := tap.SyncOf(ctx)
			refs <- ref
			calls++
			if v, ok := log.Gauge("sync/" + loopName + "//in flight"); !ok || v != 1 {
				t.Errorf("in-flight gauge during a sync = %d, %v", v, ok)
			}
			switch calls {
			case 1:
				return Result{}, nil // nobody watches yet
			case 2:
				tp.SetOn(true) // too late for this sync: reported from the next
				return Result{}, errors.New("apiserver says no")
			case 3:
				return Result{}, errors.New("apiserver says no")
			}
			return Result{RequeueAfter: time.Minute}, nil
		}, LoopOptions{Tap: func() *tap.Tap { tp = tap.New(&log, nil); return tp }()}, 2)
		h.add("ns/a")
		h.add("ns/a")
		h.step(time.Second) // the first retry
		h.step(2 * time.Second)
		if err := h.stop(t); err != nil {
			t.Fatal(err)
		}
		var got []string
		for _, e := range log.Matching(tap.Sync, nil) {
			got = append(got, fmt.Sprintf("%s %s %s seq=%d retries=%d delay=%v err=%q", e.Source, e.Op, e.Key, e.Sync.Seq, e.Retries, e.Delay, e.Err))
		}
		want := []string{
			loopName + " begin ns/a seq=1 retries=1 delay=0s err=\"\"",
			loopName + " error: retry with backoff ns/a seq=1 retries=1 delay=0s err=\"apiserver says no\"",
			loopName + " begin ns/a seq=2 retries=2 delay=0s err=\"\"",
			loopName + " success: requeue after ns/a seq=2 retries=2 delay=1m0s err=\"\"",
		}
		if fmt.Sprint(got) != fmt.Sprint(want) {
			t.Fatalf("sync events\n%q\nwant\n%q", got, want)
		}
		close(refs)
		var seen []tap.SyncRef
		for r := range refs {
			seen = append(seen, r)
		}
		wantRefs := []tap.SyncRef{{}, {}, {Controller: loopName, Key: "ns/a", Seq: 1}, {Controller: loopName, Key: "ns/a", Seq: 2}}
		if fmt.Sprint(seen) != fmt.Sprint(wantRefs) {
			t.Fatalf("sync contexts carried %v, want %v", seen, wantRefs)
		}
		if len(log.Matching(tap.Enqueue, nil)) == 0 {
			t.Fatal("the loop's queue reported no adds")
		}
		if v, ok := log.Gauge("sync/" + loopName + "//workers"); !ok || v != 0 {
			t.Errorf("workers gauge after Run = %d, %v", v, ok)
		}
	})
}
