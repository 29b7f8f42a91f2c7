package managerbench

import (
	"context"
	"errors"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/kcmlab/kcm/kube/api"
	"github.com/kcmlab/kcm/kube/api/resource"
	"github.com/kcmlab/kcm/kube/rest"
)

// rqTestQuota is quota name in ns whose status.used is used (nil: no
// status yet).
func rqTestQuota(ns, name string, used api.ResourceList) *api.ResourceQuota {
	q := rqQuota(ns, name, rqHard)
	q.Status.Used = used
	return q
}

// tenPods is the usage of ten benchmark pods, as the harness expects it.
var tenPods = resource.List{"pods": resource.MustParse("10"), "requests.cpu": resource.MustParse("1"),
	"requests.memory": resource.MustParse("1280Mi")}

// A quota is correct when its status.used has exactly the expected names
// with equal quantities, whatever their spelling (Kubernetes compares
// quantities, not strings: "1" is "1000m", 1280Mi is 1342177280); a
// missing or extra name, another value, an unparsable quantity or no
// expectation is not.
func TestRQCorrect(t *testing.T) {
	tests := []struct {
		name string
		used api.ResourceList
		want resource.List
		ok   bool
	}{
		{"canonical", api.ResourceList{"pods": "10", "requests.cpu": "1", "requests.memory": "1280Mi"}, tenPods, true},
		{"other spellings", api.ResourceList{"pods": "10", "requests.cpu": "1000m", "requests.memory": "1342177280"}, tenPods, true},
		{"one pod short", api.ResourceList{"pods": "9", "requests.cpu": "1", "requests.memory": "1280Mi"}, tenPods, false},
		{"cpu differs", api.ResourceList{"pods": "10", "requests.cpu": "900m", "requests.memory": "1280Mi"}, tenPods, false},
		{"a name missing", api.ResourceList{"pods": "10", "requests.cpu": "1"}, tenPods, false},
		{"an extra name", api.ResourceList{"pods": "10", "requests.cpu": "1", "requests.memory": "1280Mi", "services": "0"}, tenPods, false},
		{"unparsable", api.ResourceList{"pods": "ten", "requests.cpu": "1", "requests.memory": "1280Mi"}, tenPods, false},
		{"no status", nil, tenPods, false},
		{"nothing expected", api.ResourceList{"pods": "10"}, nil, false},
		{"zero usage", api.ResourceList{"pods": "0"}, resource.List{"pods": {}}, true},
	}
	for _, tt := range tests {
		if got := correct(tt.used, tt.want); got != tt.ok {
			t.Errorf("%s: correct(%v) = %v, want %v", tt.name, tt.used, got, tt.ok)
		}
	}
}

// The tracker times each quota from the moment it first reports the
// expected usage; a later wrong status clears it, a repeated right one
// keeps the first time; expect restarts the clock (a quota already right
// for the new expectation counts from then); the writes are the MODIFIED
// events; a deleted quota is forgotten; Times spans the given keys only.
func TestRQTracker(t *testing.T) {
	right := api.ResourceList{"pods": "10", "requests.cpu": "1", "requests.memory": "1280Mi"}
	nine := api.ResourceList{"pods": "9", "requests.cpu": "900m", "requests.memory": "1152Mi"}
	ninePods := resource.List{"pods": resource.MustParse("9"), "requests.cpu": resource.MustParse("900m"),
		"requests.memory": resource.MustParse("1152Mi")}
	keys := []string{"quota-0000/quota", "quota-0001/quota"}

	tr := newRQTracker()
	tr.expect(map[string]resource.List{"quota-0000": tenPods, "quota-0001": tenPods}, at(0))
	tr.observeQuota(rest.Added, rqTestQuota("quota-0000", "quota", nil), at(1))
	tr.observeQuota(rest.Added, rqTestQuota("quota-0001", "quota", nil), at(1))
	tr.observeQuota(rest.Modified, rqTestQuota("quota-0000", "quota", right), at(2))
	tr.observeQuota(rest.Modified, rqTestQuota("quota-0001", "quota", nine), at(3)) // wrong
	check := func(step string, correct int, first, last time.Time, writes int) {
		t.Helper()
		tr.mu.Lock()
		got := RQView{tr}.CorrectOf(keys)
		tr.mu.Unlock()
		f, l := tr.Times(keys)
		if got != correct || !f.Equal(first) || !l.Equal(last) || tr.Writes() != writes {
			t.Errorf("%s: %d correct, times %v..%v, %d writes; want %d, %v..%v, %d", step, got, f, l, tr.Writes(),
				correct, first, last, writes)
		}
	}
	check("one right, one wrong", 1, at(2), at(2), 2)
	tr.observeQuota(rest.Modified, rqTestQuota("quota-0001", "quota", right), at(4))
	tr.observeQuota(rest.Modified, rqTestQuota("quota-0000", "quota", right), at(5)) // again: keeps at(2)
	check("both right", 2, at(2), at(4), 4)

	tr.expect(map[string]resource.List{"quota-0000": ninePods, "quota-0001": ninePods}, at(10))
	check("after expect, still ten", 0, time.Time{}, time.Time{}, 4)
	tr.observeQuota(rest.Modified, rqTestQuota("quota-0001", "quota", nine), at(12))
	tr.observeQuota(rest.Modified, rqTestQuota("quota-0000", "quota", nine), at(13))
	check("both corrected", 2, at(12), at(13), 6)
	tr.observeQuota(rest.Modified, rqTestQuota("quota-0000", "quota", right), at(14)) // wrong again
	check("one wrong again", 1, at(12), at(12), 7)

	tr.expect(map[string]resource.List{"quota-0001": ninePods}, at(20)) // already right: from at(20)
	check("re-expected as it is", 1, at(20), at(20), 7)

	tr.observeQuota(rest.Added, rqTestQuota("probe-quota", "probe", api.ResourceList{"pods": "0"}), at(21))
	check("a quota outside keys", 1, at(20), at(20), 7)
	tr.observeQuota(rest.Deleted, rqTestQuota("quota-0001", "quota", nine), at(22))
	check("a deleted quota", 0, time.Time{}, time.Time{}, 7)
	if p := tr.Progress(keys); !strings.Contains(p, "0 of 2 quotas report the expected usage; quota-0000/quota reports") {
		t.Errorf("Progress = %q", p)
	}
}

// Wait returns once the condition holds after an event, fails with the
// context's error when it never does, and with ErrTrackerEnded (wrapping
// the cause) once the watch has failed.
func TestRQTrackerWait(t *testing.T) {
	keys := []string{"quota-0000/quota"}
	tr := newRQTracker()
	tr.expect(map[string]resource.List{"quota-0000": tenPods}, at(0))
	done := make(chan error, 1)
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		done <- tr.Wait(context.Background(), "the quota", func(v RQView) bool { return v.AllCorrect(keys) })
	}()
	tr.observeQuota(rest.Added, rqTestQuota("quota-0000", "quota", api.ResourceList{"pods": "10", "requests.cpu": "1",
		"requests.memory": "1280Mi"}), at(1))
	if err := <-done; err != nil {
		t.Fatalf("Wait = %v", err)
	}
	wg.Wait()

	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	never := func(RQView) bool { return false }
	if err := tr.Wait(ctx, "never", never); !errors.Is(err, context.Canceled) || !strings.Contains(err.Error(), "waiting for never") {
		t.Errorf("Wait on a cancelled context = %v", err)
	}

	boom := errors.New("boom")
	tr.goWatch(&wg, func() error { return boom })
	wg.Wait()
	if err := tr.Wait(context.Background(), "never", never); !errors.Is(err, ErrTrackerEnded) || !errors.Is(err, boom) {
		t.Errorf("Wait after a failed watch = %v, want ErrTrackerEnded wrapping boom", err)
	}
	tr.goWatch(&wg, func() error { return nil }) // a watch that ends cleanly (ctx done) fails nothing new
	wg.Wait()
	tr.fail(errors.New("second"))
	if err := tr.Wait(context.Background(), "never", never); !errors.Is(err, boom) {
		t.Errorf("the first failure should win, got %v", err)
	}
}
