package processor

import (
	"slices"
	"testing"
	"time"

	"github.com/kcmlab/kcm/clock"
	"github.com/kcmlab/kcm/kube/api"
)

func TestEffectiveResyncPeriod(t *testing.T) {
	tests := []struct {
		requested, want time.Duration
	}{
		{0, 0},
		{-time.Minute, 0},
		{time.Millisecond, MinResyncPeriod},
		{MinResyncPeriod, MinResyncPeriod},
		{10 * time.Minute, 10 * time.Minute},
	}
	for _, tc := range tests {
		if got := effectiveResyncPeriod(tc.requested); got != tc.want {
			t.Errorf("effectiveResyncPeriod(%v) = %v, want %v", tc.requested, got, tc.want)
		}
	}
}

// TestResyncScheduleCheck steps one schedule through checks at given
// offsets from its start, with no goroutines or clocks involved.
func TestResyncScheduleCheck(t *testing.T) {
	t0 := time.Unix(1000, 0)
	tests := []struct {
		name   string
		period time.Duration
		checks []time.Duration // offsets from t0, increasing
		want   []bool
	}{
		{"never", 0, []time.Duration{time.Hour, 2 * time.Hour}, []bool{false, false}},
		{"due exactly at the period", 10 * time.Second, []time.Duration{9 * time.Second, 10 * time.Second},
			[]bool{false, true}},
		{"next counts from the check that fired", 10 * time.Second,
			[]time.Duration{12 * time.Second, 21 * time.Second, 22 * time.Second}, []bool{true, false, true}},
		{"a late check fires once, not once per missed period", 10 * time.Second,
			[]time.Duration{35 * time.Second, 36 * time.Second}, []bool{true, false}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			s := newResyncSchedule(tc.period, t0)
			for i, off := range tc.checks {
				if got := s.check(t0.Add(off)); got != tc.want[i] || s.due != got {
					t.Fatalf("check at +%v = %v (due=%v), want %v", off, got, s.due, tc.want[i])
				}
			}
		})
	}
}

func TestResyncCheckPeriod(t *testing.T) {
	tests := []struct {
		name    string
		periods []time.Duration
		remove  int // index of a handler to remove afterwards, -1 for none
		want    time.Duration
	}{
		{"no handlers", nil, -1, 0},
		{"no handler wants resync", []time.Duration{0, 0}, -1, 0},
		{"the smallest positive period", []time.Duration{0, 30 * time.Second, 10 * time.Second}, -1, 10 * time.Second},
		{"a handler without resync after one with", []time.Duration{10 * time.Second, 0}, -1, 10 * time.Second},
		{"clamped to the minimum", []time.Duration{time.Minute, time.Millisecond}, -1, MinResyncPeriod},
		{"recomputed after a removal", []time.Duration{time.Minute, 10 * time.Second}, 1, time.Minute},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			p := mustNew(t, Options[*api.Pod]{})
			var regs []*Registration
			for _, d := range tc.periods {
				regs = append(regs, mustAdd(t, p, newRecorder(), HandlerOptions{ResyncPeriod: d}))
			}
			if tc.remove >= 0 {
				if err := p.RemoveHandler(regs[tc.remove]); err != nil {
					t.Fatal(err)
				}
			}
			if got := p.ResyncCheckPeriod(); got != tc.want {
				t.Fatalf("ResyncCheckPeriod() = %v, want %v", got, tc.want)
			}
		})
	}
}

// TestResyncPerHandler plays the informer's resync loop with a fake clock:
// every check period it asks ShouldResync and, if true, distributes a sync
// for the one cached object. Each handler must get syncs on its own period
// (rounded up to the check cadence), and a handler with period 0 none.
func TestResyncPerHandler(t *testing.T) {
	clk := clock.NewFake(time.Unix(0, 0))
	p := mustNew(t, Options[*api.Pod]{Clock: clk})
	recs := map[string]*recorder{"every10s": newRecorder(), "every25s": newRecorder(), "never": newRecorder(),
		"joined5s": newRecorder()}
	mustAdd(t, p, recs["every10s"], HandlerOptions{Name: "every10s", ResyncPeriod: 10 * time.Second})
	mustAdd(t, p, recs["every25s"], HandlerOptions{Name: "every25s", ResyncPeriod: 25 * time.Second})
	mustAdd(t, p, recs["never"], HandlerOptions{Name: "never"})
	running(t, p)
	check := p.ResyncCheckPeriod()
	if check != 10*time.Second {
		t.Fatalf("ResyncCheckPeriod() = %v", check)
	}

	obj := pod("ns", "x", 7)
	steps := []struct {
		at        time.Duration
		addLate   bool // register "joined5s" (10 s period, so first due at 15 s) after this check
		wantSync  bool // ShouldResync's answer
		wantSyncs []string
	}{
		{at: 5 * time.Second, addLate: true, wantSync: false},
		{at: 10 * time.Second, wantSync: true, wantSyncs: []string{"every10s"}},
		{at: 20 * time.Second, wantSync: true, wantSyncs: []string{"every10s", "joined5s"}},
		{at: 30 * time.Second, wantSync: true, wantSyncs: []string{"every10s", "every25s", "joined5s"}},
		{at: 40 * time.Second, wantSync: true, wantSyncs: []string{"every10s", "joined5s"}},
		{at: 50 * time.Second, wantSync: true, wantSyncs: []string{"every10s", "joined5s"}},
		{at: 60 * time.Second, wantSync: true, wantSyncs: []string{"every10s", "every25s", "joined5s"}},
	}
	now := time.Duration(0)
	for _, st := range steps {
		clk.Step(st.at - now)
		now = st.at
		if got := p.ShouldResync(); got != st.wantSync {
			t.Fatalf("t=%v: ShouldResync() = %v, want %v", st.at, got, st.wantSync)
		}
		if st.wantSync {
			p.Distribute(SyncNotification(obj, obj))
		}
		if st.addLate {
			mustAdd(t, p, recs["joined5s"], HandlerOptions{Name: "joined5s", ResyncPeriod: 10 * time.Second})
		}
		// A live update reaches everybody and marks the end of this round.
		marker := pod("ns", "marker", int(st.at/time.Second))
		p.Distribute(UpdateNotification(marker, marker))
		var synced []string
		for name, rec := range recs {
			evs := rec.takeUntil(t, "ns/marker")
			for _, e := range evs[:len(evs)-1] {
				if e.Key != "ns/x" || e.Kind != "update" || e.RV != "7" || e.OldRV != "7" {
					t.Fatalf("t=%v %s: unexpected %v", st.at, name, e)
				}
				synced = append(synced, name)
			}
		}
		slices.Sort(synced)
		if !slices.Equal(synced, st.wantSyncs) {
			t.Fatalf("t=%v: synced %v, want %v", st.at, synced, st.wantSyncs)
		}
	}
}
