package namespace

import (
	"context"
	"slices"
	"testing"
	"testing/synctest"
	"time"

	"github.com/spf13/pflag"

	"github.com/kcmlab/kcm/clock"
	"github.com/kcmlab/kcm/ctrl"
	"github.com/kcmlab/kcm/kube/api"
	"github.com/kcmlab/kcm/kube/rest"
	"github.com/kcmlab/kcm/queue"
)

// TestHandlers: a namespace being deleted is queued DeletionGracePeriod
// after it is seen (added, updated or resynced); others are not queued
// (Kubernetes' enqueueNamespace).
func TestHandlers(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		clk := clock.NewFake(t0)
		q := queue.New(queue.Config[string]{Clock: clk})
		defer q.ShutDown()
		h := handlers{q: q}
		dt := api.NewTime(t0)
		zero := api.Time{}
		h.enqueue(&api.Namespace{ObjectMeta: api.ObjectMeta{Name: "active"}})
		h.enqueue(&api.Namespace{ObjectMeta: api.ObjectMeta{Name: "zero", DeletionTimestamp: &zero}})
		h.enqueue(&api.Namespace{ObjectMeta: api.ObjectMeta{Name: "gone", DeletionTimestamp: &dt}})
		synctest.Wait()
		if q.Len() != 0 {
			t.Fatalf("%d keys queued at once; want none before the grace period", q.Len())
		}
		clk.Step(DeletionGracePeriod - time.Millisecond)
		synctest.Wait()
		if q.Len() != 0 {
			t.Fatal("queued before the grace period ended")
		}
		clk.Step(time.Millisecond)
		synctest.Wait()
		var got []string
		for q.Len() > 0 {
			k, err := q.Get(context.Background())
			if err != nil {
				t.Fatal(err)
			}
			got = append(got, k)
			q.Done(k)
		}
		if !slices.Equal(got, []string{"gone"}) {
			t.Fatalf("queued %q, want [gone]", got)
		}
	})
}

// TestDescriptor: kube-controller-manager's name, alias, flags and
// defaults.
func TestDescriptor(t *testing.T) {
	d := Descriptor()
	if d.Name != "namespace-controller" || !slices.Equal(d.Aliases, []string{"namespace"}) || d.DisabledByDefault || d.Constructor == nil {
		t.Fatalf("descriptor %+v", d)
	}
	if c := d.Concurrency; c == nil || c.Name != "concurrent-namespace-syncs" || c.Default != 10 {
		t.Fatalf("concurrency %+v", c)
	}
	if len(d.Durations) != 1 || d.Durations[0].Name != "namespace-sync-period" || d.Durations[0].Default != 5*time.Minute {
		t.Fatalf("durations %+v", d.Durations)
	}
}

// TestRateLimiter: Kubernetes' nsControllerRateLimiter — 5 ms doubling,
// capped at 60 s (not client-go's default 1000 s).
func TestRateLimiter(t *testing.T) {
	rl := RateLimiter(clock.NewFake(t0))
	var last time.Duration
	for range 30 {
		last = rl.When("ns")
	}
	if first := RateLimiter(clock.NewFake(t0)).When("x"); first != 5*time.Millisecond {
		t.Errorf("first retry after %v, want 5ms", first)
	}
	if last != 60*time.Second {
		t.Errorf("backoff capped at %v, want 60s", last)
	}
}

// TestHandlerResyncIsTheSyncPeriod: --namespace-sync-period reaches the
// handler's resync period; without options it is the 5m default.
func TestHandlerResyncIsTheSyncPeriod(t *testing.T) {
	base, err := rest.NewClient(&rest.Config{Host: "https://example.invalid"})
	if err != nil {
		t.Fatal(err)
	}
	r, err := ctrl.NewDescriptors(Descriptor())
	if err != nil {
		t.Fatal(err)
	}
	o := r.NewOptions()
	fs := pflag.NewFlagSet("kcm", pflag.ContinueOnError)
	r.AddFlags(fs, o)
	if err := fs.Parse([]string{"--namespace-sync-period=90s", "--concurrent-namespace-syncs=3"}); err != nil {
		t.Fatal(err)
	}
	cc, err := ctrl.CreateControllerContext(base, ctrl.Config{Options: o})
	if err != nil {
		t.Fatal(err)
	}
	if h := handlerOptions(cc, Name); h.ResyncPeriod != 90*time.Second || h.Name != Name {
		t.Errorf("handler options %+v, want resync 90s", h)
	}
	if w := cc.Workers(Name); w != 3 {
		t.Errorf("workers %d, want 3", w)
	}
	cc, err = ctrl.CreateControllerContext(base, ctrl.Config{})
	if err != nil {
		t.Fatal(err)
	}
	if h := handlerOptions(cc, Name); h.ResyncPeriod != 5*time.Minute {
		t.Errorf("without options: resync %v, want 5m", h.ResyncPeriod)
	}
}
