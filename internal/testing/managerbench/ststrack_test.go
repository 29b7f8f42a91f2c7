package managerbench

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/kcmlab/kcm/kube/api"
	"github.com/kcmlab/kcm/kube/rest"
)

func inSTS(ns string) bool { return strings.HasPrefix(ns, stsPrefix) }

// stsTestPod is pod <set>-<ordinal> of set in ns at revision rev.
func stsTestPod(ns, set string, ordinal int, rev string, ready bool) *api.Pod {
	p := esTestPod(ns, set+"-"+string(rune('0'+ordinal)), set, ready)
	p.Labels[LabelRevisionHash] = rev
	return p
}

// stsTestSet is set name at generation gen with a status written for
// observed, replicas and ready, at revisions current and update
// (updated replicas at the update revision).
func stsTestSet(ns, name string, gen, observed int64, replicas, ready, updated int32, current, update string) *api.StatefulSet {
	s := &api.StatefulSet{ObjectMeta: api.ObjectMeta{Namespace: ns, Name: name, Generation: gen}}
	s.Status = api.StatefulSetStatus{ObservedGeneration: observed, Replicas: replicas, ReadyReplicas: ready,
		UpdatedReplicas: updated, CurrentRevision: current, UpdateRevision: update}
	return s
}

func stsTestRevision(ns, set, name string) *api.ControllerRevision {
	return &api.ControllerRevision{ObjectMeta: api.ObjectMeta{Namespace: ns, Name: name, Labels: map[string]string{labelApp: set}}}
}

// The counts follow the events: pod creates and deletes, status writes
// (the generation unchanged) apart from spec changes, revisions created
// (not deleted); a pod's first Ready and a status write set the times;
// events outside the scope are ignored.
func TestSTSTrackerCounts(t *testing.T) {
	tr := newSTSTracker(inSTS)
	tr.observeSet(rest.Added, stsTestSet("sts-00", "a", 1, 0, 0, 0, 0, "", ""), at(1))
	tr.observeRevision(rest.Added, stsTestRevision("sts-00", "a", "a-1"), at(1))
	tr.observePod(rest.Added, stsTestPod("sts-00", "a", 0, "a-1", false), at(2))
	tr.observeSet(rest.Modified, stsTestSet("sts-00", "a", 1, 1, 1, 0, 1, "a-1", "a-1"), at(3))
	tr.observePod(rest.Modified, stsTestPod("sts-00", "a", 0, "a-1", true), at(4))
	tr.observePod(rest.Modified, stsTestPod("sts-00", "a", 0, "a-1", true), at(5)) // still Ready: not a new Ready
	tr.observeSet(rest.Modified, stsTestSet("sts-00", "a", 1, 1, 1, 1, 1, "a-1", "a-1"), at(6))
	tr.observeSet(rest.Modified, stsTestSet("sts-00", "a", 2, 1, 1, 1, 1, "a-1", "a-1"), at(7)) // the harness's patch
	tr.observeRevision(rest.Added, stsTestRevision("sts-00", "a", "a-2"), at(8))
	tr.observeRevision(rest.Deleted, stsTestRevision("sts-00", "a", "a-1"), at(8))
	tr.observePod(rest.Deleted, stsTestPod("sts-00", "a", 0, "a-1", true), at(9))
	tr.observePod(rest.Added, stsTestPod("sts-00", "b", 0, "b-1", false), at(10))
	tr.observePod(rest.Added, stsTestPod("default", "a", 0, "a-1", true), at(11)) // out of scope
	tr.observeSet(rest.Modified, stsTestSet("kube-system", "a", 1, 1, 1, 1, 1, "", ""), at(12))
	tr.observeRevision(rest.Added, stsTestRevision("default", "a", "a-3"), at(12))

	if got, want := tr.Times(), (STSTimes{LastReady: at(4), LastStatus: at(6)}); got != want {
		t.Errorf("Times() = %+v, want %+v", got, want)
	}
	wantA := STSCounts{PodEvents: 4, PodCreates: 1, PodDeletes: 1, StatusWrites: 2, SpecWrites: 1, Revisions: 2}
	if got := tr.Set("sts-00/a"); got != wantA {
		t.Errorf("Set(a) = %+v, want %+v", got, wantA)
	}
	if got, want := tr.Set("sts-00/b"), (STSCounts{PodEvents: 1, PodCreates: 1}); got != want {
		t.Errorf("Set(b) = %+v, want %+v", got, want)
	}
	wantTotal := wantA
	wantTotal.PodEvents, wantTotal.PodCreates = 5, 2
	if got := tr.Totals(); got != wantTotal {
		t.Errorf("Totals() = %+v, want %+v", got, wantTotal)
	}
	if got := tr.Set("sts-00/none"); got != (STSCounts{}) {
		t.Errorf("Set(none) = %+v, want zero", got)
	}
	if got, want := wantTotal.Sub(wantA), (STSCounts{PodEvents: 1, PodCreates: 1}); got != want {
		t.Errorf("Sub = %+v, want %+v", got, want)
	}
}

// A set is Ready when its status, written for the generation last seen
// (at least minGen), says all replicas ready and that many of its pods
// are Ready; rolled when, besides, the update revision is current on all
// replicas and its Ready pods carry it.
func TestSTSTrackerReady(t *testing.T) {
	const ns, key = "sts-00", "sts-00/a"
	pods := func(rev string, ready ...bool) func(*stsTracker) {
		return func(tr *stsTracker) {
			for i, r := range ready {
				tr.observePod(rest.Added, stsTestPod(ns, "a", i, rev, r), at(1))
			}
		}
	}
	set := func(gen, observed int64, replicas, ready, updated int32, current, update string) func(*stsTracker) {
		return func(tr *stsTracker) {
			tr.observeSet(rest.Modified, stsTestSet(ns, "a", gen, observed, replicas, ready, updated, current, update), at(2))
		}
	}
	tests := []struct {
		name          string
		feed          []func(*stsTracker)
		minGen        int64
		ready, rolled bool
	}{
		{"nothing seen", nil, 1, false, false},
		{"complete", []func(*stsTracker){pods("r1", true, true, true), set(1, 1, 3, 3, 3, "r1", "r1")}, 1, true, true},
		{"status complete, a pod not Ready", []func(*stsTracker){pods("r1", true, true, false), set(1, 1, 3, 3, 3, "r1", "r1")}, 1, false, false},
		{"pods Ready, status behind", []func(*stsTracker){pods("r1", true, true, true), set(1, 1, 3, 2, 3, "r1", "r1")}, 1, false, false},
		{"status for an older generation", []func(*stsTracker){pods("r1", true, true, true), set(2, 1, 3, 3, 3, "r1", "r1")}, 1, false, false},
		{"too many replicas", []func(*stsTracker){pods("r1", true, true, true, true), set(1, 1, 4, 4, 4, "r1", "r1")}, 1, false, false},
		{"generation below minGen", []func(*stsTracker){pods("r1", true, true, true), set(1, 1, 3, 3, 3, "r1", "r1")}, 2, false, false},
		{"mid-rollout", []func(*stsTracker){pods("r1", true, true, true), set(2, 2, 3, 3, 1, "r1", "r2")}, 2, true, false},
		{"revision current, pods at the old one", []func(*stsTracker){pods("r1", true, true, true), set(2, 2, 3, 3, 3, "r2", "r2")}, 2, true, false},
		{"rolled", []func(*stsTracker){pods("r2", true, true, true), set(2, 2, 3, 3, 3, "r2", "r2")}, 2, true, true},
		{"no update revision", []func(*stsTracker){pods("", true, true, true), set(1, 1, 3, 3, 3, "", "")}, 1, true, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tr := newSTSTracker(inSTS)
			for _, f := range tt.feed {
				f(tr)
			}
			v := STSView{tr}
			if got := v.Ready(key, 3, tt.minGen); got != tt.ready {
				t.Errorf("Ready = %v, want %v", got, tt.ready)
			}
			if got := v.Rolled(key, 3, tt.minGen); got != tt.rolled {
				t.Errorf("Rolled = %v, want %v", got, tt.rolled)
			}
			if got := stsConverged(v, []string{key}, 3, tt.minGen, false); got != tt.ready {
				t.Errorf("stsConverged = %v, want %v", got, tt.ready)
			}
			if got := stsConverged(v, []string{key}, 3, tt.minGen, true); got != tt.rolled {
				t.Errorf("stsConverged(rolled) = %v, want %v", got, tt.rolled)
			}
		})
	}
}

// A deleted pod no longer counts as Ready, and a pod is counted at the
// revision its latest event names.
func TestSTSTrackerPods(t *testing.T) {
	tr := newSTSTracker(inSTS)
	v := STSView{tr}
	tr.observePod(rest.Added, stsTestPod("sts-00", "a", 0, "r1", true), at(1))
	tr.observePod(rest.Added, stsTestPod("sts-00", "a", 1, "r1", true), at(1))
	if got := v.ReadyPods("sts-00/a", ""); got != 2 {
		t.Fatalf("ReadyPods = %d, want 2", got)
	}
	tr.observePod(rest.Deleted, stsTestPod("sts-00", "a", 1, "r1", true), at(2))
	tr.observePod(rest.Added, stsTestPod("sts-00", "a", 1, "r2", false), at(3))
	if got := v.ReadyPods("sts-00/a", ""); got != 1 {
		t.Fatalf("after the delete and a new unready pod: ReadyPods = %d, want 1", got)
	}
	tr.observePod(rest.Modified, stsTestPod("sts-00", "a", 1, "r2", true), at(4))
	if r1, r2 := v.ReadyPods("sts-00/a", "r1"), v.ReadyPods("sts-00/a", "r2"); r1 != 1 || r2 != 1 {
		t.Fatalf("ReadyPods at r1, r2 = %d, %d; want 1, 1", r1, r2)
	}
	if got := tr.Times().LastReady; got != at(4) {
		t.Fatalf("LastReady = %v, want %v", got, at(4))
	}
	if got := v.ReadyPods("sts-00/none", ""); got != 0 {
		t.Fatalf("ReadyPods of an unknown set = %d", got)
	}
}

// Progress counts the complete sets and the Ready pods.
func TestSTSProgress(t *testing.T) {
	tr := newSTSTracker(inSTS)
	for i := range 3 {
		tr.observePod(rest.Added, stsTestPod("sts-00", "a", i, "r1", true), at(1))
	}
	tr.observeSet(rest.Modified, stsTestSet("sts-00", "a", 1, 1, 3, 3, 3, "r1", "r1"), at(2))
	tr.observePod(rest.Added, stsTestPod("sts-00", "b", 0, "r1", true), at(1))
	keys := []string{"sts-00/a", "sts-00/b"}
	if got, want := tr.Progress(keys, 3, 1, false), "1 of 2 StatefulSets Ready, 4 of 6 pods Ready"; got != want {
		t.Errorf("Progress = %q, want %q", got, want)
	}
	if got, want := tr.Progress(keys, 3, 2, true), "0 of 2 StatefulSets rolled, 4 of 6 pods Ready"; got != want {
		t.Errorf("Progress(rolled) = %q, want %q", got, want)
	}
}

// Wait returns at once when the condition holds, wakes on the event that
// makes it hold, and fails when its context ends or a watch failed.
func TestSTSTrackerWait(t *testing.T) {
	tr := newSTSTracker(inSTS)
	one := func(v STSView) bool { return v.ReadyPods("sts-00/a", "") == 1 }
	done := make(chan error, 1)
	go func() { done <- tr.Wait(context.Background(), "a-0 Ready", one) }()
	tr.observePod(rest.Added, stsTestPod("sts-00", "a", 0, "r1", true), at(1))
	if err := <-done; err != nil {
		t.Fatalf("Wait after the event: %v", err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	never := func(STSView) bool { return false }
	if err := tr.Wait(ctx, "never", never); !errors.Is(err, context.Canceled) {
		t.Fatalf("Wait with an ended context = %v, want context.Canceled", err)
	}
	boom := errors.New("boom")
	tr.fail(boom)
	if err := tr.Wait(context.Background(), "never", never); !errors.Is(err, ErrTrackerEnded) || !errors.Is(err, boom) {
		t.Fatalf("Wait after a failed watch = %v, want ErrTrackerEnded wrapping boom", err)
	}
}

// The workload's shape: namespaces of 100 sets, nodes of at most 200
// pods, at least one per zone; the policy; the manager selection.
func TestSTSWorkloadShape(t *testing.T) {
	tests := []struct {
		w                       STSWorkload
		pods, namespaces, nodes int
	}{
		{STSWorkload{Sets: 100, Replicas: 3}, 300, 1, 3},
		{STSWorkload{Sets: 10, Replicas: 3}, 30, 1, 3},
		{STSWorkload{Sets: 1000, Replicas: 3}, 3000, 10, 15},
		{STSWorkload{Sets: 101, Replicas: 1}, 101, 2, 3},
	}
	for _, tt := range tests {
		if p, n, nodes := tt.w.Pods(), tt.w.Namespaces(), tt.w.Nodes(); p != tt.pods || n != tt.namespaces || nodes != tt.nodes {
			t.Errorf("%+v: pods %d, namespaces %d, nodes %d; want %d, %d, %d", tt.w, p, n, nodes, tt.pods, tt.namespaces, tt.nodes)
		}
	}
	if ns, name := stsSetKey(123); ns != "sts-01" || name != "sts-0123" {
		t.Errorf("stsSetKey(123) = %s/%s", ns, name)
	}
	if keys := stsSetKeys(STSWorkload{Sets: 101}); len(keys) != 101 || keys[100] != "sts-01/sts-0100" {
		t.Errorf("stsSetKeys: %q", keys)
	}
	if p := (STSWorkload{}).Policy(); p != api.OrderedReadyPodManagement {
		t.Errorf("default policy %s", p)
	}
	if p := (STSWorkload{Parallel: true}).Policy(); p != api.ParallelPodManagement {
		t.Errorf("Parallel policy %s", p)
	}
	set := stsSetObject("sts-00", "sts-0001", "kwok-001", 3, api.ParallelPodManagement)
	if set.Spec.Template.Spec.NodeName != "kwok-001" || set.Spec.Selector.MatchLabels[labelApp] != "sts-0001" ||
		set.Spec.Template.Labels[labelApp] != "sts-0001" || *set.Spec.Replicas != 3 || set.Spec.ServiceName != "sts-0001" {
		t.Errorf("stsSetObject: %+v", set.Spec)
	}

	ms := []Manager{{Label: "kcm"}, {Label: "kube-controller-manager"}}
	for _, tt := range []struct {
		labels []string
		want   string
		err    bool
	}{
		{nil, "kcm,kube-controller-manager", false},
		{[]string{"kube-controller-manager"}, "kube-controller-manager", false},
		{[]string{"kube-controller-manager", "kcm"}, "kcm,kube-controller-manager", false},
		{[]string{"kcm", "nope"}, "", true},
	} {
		got, err := pickManagers(ms, tt.labels)
		var names []string
		for _, m := range got {
			names = append(names, m.Label)
		}
		if (err != nil) != tt.err || strings.Join(names, ",") != tt.want {
			t.Errorf("pickManagers(%q) = %q, %v; want %q, error %v", tt.labels, names, err, tt.want, tt.err)
		}
	}
}
