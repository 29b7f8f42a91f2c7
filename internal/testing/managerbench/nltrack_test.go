package managerbench

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/kcmlab/kcm/kube/api"
	"github.com/kcmlab/kcm/kube/rest"
)

func nlNode(name string, taints ...api.Taint) *api.Node {
	return &api.Node{ObjectMeta: api.ObjectMeta{Name: name}, Spec: api.NodeSpec{Taints: taints}}
}

func nlPod(name, node string, ready bool) *api.Pod {
	st := api.ConditionFalse
	if ready {
		st = api.ConditionTrue
	}
	return &api.Pod{ObjectMeta: api.ObjectMeta{Name: name, Namespace: nlNamespace}, Spec: api.PodSpec{NodeName: node},
		Status: api.PodStatus{Conditions: []api.PodCondition{{Type: api.PodReady, Status: st}}}}
}

var (
	unreachableNoExecute = api.Taint{Key: api.TaintNodeUnreachable, Effect: api.TaintEffectNoExecute}
	notReadyNoExecute    = api.Taint{Key: api.TaintNodeNotReady, Effect: api.TaintEffectNoExecute}
	unreachableNoSched   = api.Taint{Key: api.TaintNodeUnreachable, Effect: "NoSchedule"}
)

// The tracker counts an outage as handled when every silent node carries
// a NoExecute unreachable or not-ready taint (a NoSchedule one is not
// enough) and every pod of a silent node was seen not Ready or deleted
// after the pause; readiness lost before the pause does not count, and a
// taint on a healthy node is counted as wrong.
func TestNLTrackerOutage(t *testing.T) {
	t0 := time.Unix(1000, 0)
	at := func(s int) time.Time { return t0.Add(time.Duration(s) * time.Second) }
	tests := []struct {
		name              string
		steps             func(tr *nlTracker)
		done              bool
		tainted, wrong    int
		pods, notReady    int
		lastTaint, lastNR time.Time
	}{
		{"nothing yet", func(tr *nlTracker) {
			tr.observePod(rest.Added, nlPod("a", "n1", true), at(0))
			tr.pause([]string{"n1"})
		}, false, 0, 0, 1, 0, time.Time{}, time.Time{}},
		{"taint and pod not ready", func(tr *nlTracker) {
			tr.observePod(rest.Added, nlPod("a", "n1", true), at(0))
			tr.observePod(rest.Added, nlPod("b", "n2", true), at(0))
			tr.pause([]string{"n1"})
			tr.observeNode(rest.Modified, nlNode("n1", unreachableNoExecute), at(20))
			tr.observePod(rest.Modified, nlPod("a", "n1", false), at(21))
		}, true, 1, 0, 1, 1, at(20), at(21)},
		{"NoSchedule alone is not enough", func(tr *nlTracker) {
			tr.pause([]string{"n1"})
			tr.observeNode(rest.Modified, nlNode("n1", unreachableNoSched), at(20))
		}, false, 0, 0, 0, 0, time.Time{}, time.Time{}},
		{"not-ready NoExecute counts", func(tr *nlTracker) {
			tr.pause([]string{"n1"})
			tr.observeNode(rest.Modified, nlNode("n1", notReadyNoExecute), at(20))
		}, true, 1, 0, 0, 0, at(20), time.Time{}},
		{"not ready before the pause does not count", func(tr *nlTracker) {
			tr.observePod(rest.Added, nlPod("a", "n1", false), at(0))
			tr.pause([]string{"n1"})
			tr.observeNode(rest.Modified, nlNode("n1", unreachableNoExecute), at(20))
		}, false, 1, 0, 1, 0, at(20), time.Time{}},
		{"a deleted pod counts", func(tr *nlTracker) {
			tr.observePod(rest.Added, nlPod("a", "n1", true), at(0))
			tr.pause([]string{"n1"})
			tr.observeNode(rest.Modified, nlNode("n1", unreachableNoExecute), at(20))
			tr.observePod(rest.Deleted, nlPod("a", "n1", true), at(25))
		}, true, 1, 0, 1, 1, at(20), at(25)},
		{"first sighting kept, taint removed forgets", func(tr *nlTracker) {
			tr.pause([]string{"n1", "n2"})
			tr.observeNode(rest.Modified, nlNode("n1", unreachableNoExecute), at(20))
			tr.observeNode(rest.Modified, nlNode("n1", unreachableNoExecute, unreachableNoSched), at(22))
			tr.observeNode(rest.Modified, nlNode("n2", unreachableNoExecute), at(30))
			tr.observeNode(rest.Modified, nlNode("n2"), at(31))
		}, false, 1, 0, 0, 0, at(20), time.Time{}},
		{"healthy node tainted is wrong", func(tr *nlTracker) {
			tr.pause([]string{"n1"})
			tr.observeNode(rest.Modified, nlNode("n1", unreachableNoExecute), at(20))
			tr.observeNode(rest.Modified, nlNode("n3", unreachableNoExecute), at(21))
		}, true, 1, 1, 0, 0, at(20), time.Time{}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tr := newNLTracker()
			tt.steps(tr)
			tr.mu.Lock()
			v := NLView{tr}
			done, tainted, wrong := v.Done(), v.SilentTainted(), v.WronglyTainted()
			pods, notReady := v.SilentPods()
			tr.mu.Unlock()
			if done != tt.done || tainted != tt.tainted || wrong != tt.wrong || pods != tt.pods || notReady != tt.notReady {
				t.Errorf("done %v tainted %d wrong %d pods %d notReady %d; want %v %d %d %d %d (%s)",
					done, tainted, wrong, pods, notReady, tt.done, tt.tainted, tt.wrong, tt.pods, tt.notReady, tr.Progress())
			}
			times := tr.Times()
			if !times.LastTaint.Equal(tt.lastTaint) || !times.LastNotReady.Equal(tt.lastNR) {
				t.Errorf("last taint %v, last not ready %v; want %v, %v", times.LastTaint, times.LastNotReady, tt.lastTaint, tt.lastNR)
			}
		})
	}
}

// Wait returns once the condition holds after an event, and ends with
// the watch's error when a watch fails.
func TestNLTrackerWait(t *testing.T) {
	tr := newNLTracker()
	tr.pause([]string{"n1"})
	done := make(chan error, 1)
	go func() { done <- tr.Wait(context.Background(), "outage", NLView.Done) }()
	tr.observeNode(rest.Modified, nlNode("n1", unreachableNoExecute), time.Unix(1, 0))
	if err := <-done; err != nil {
		t.Fatalf("Wait: %v", err)
	}

	tr = newNLTracker()
	go func() {
		done <- tr.Wait(context.Background(), "pods", func(v NLView) bool { return v.ReadyPods() == 2 })
	}()
	tr.observePod(rest.Added, nlPod("a", "n1", true), time.Unix(1, 0))
	tr.fail(errors.New("watch broke"))
	if err := <-done; !errors.Is(err, ErrTrackerEnded) {
		t.Fatalf("Wait after a failed watch: %v, want ErrTrackerEnded", err)
	}
}

// The silent nodes are spread evenly over the nodes, and so over the
// zones, which esNodes assigns in turn.
func TestNLWorkloadSilentNodes(t *testing.T) {
	tests := []struct {
		w    NLWorkload
		want []int
	}{
		{NLWorkload{Nodes: 100, Silent: 10}, []int{0, 10, 20, 30, 40, 50, 60, 70, 80, 90}},
		{NLWorkload{Nodes: 10, Silent: 2}, []int{0, 5}},
		{NLWorkload{Nodes: 3, Silent: 3}, []int{0, 1, 2}},
	}
	for _, tt := range tests {
		got := tt.w.SilentNodes()
		if len(got) != len(tt.want) {
			t.Fatalf("%+v: %v, want %v", tt.w, got, tt.want)
		}
		for i := range got {
			if got[i] != tt.want[i] {
				t.Errorf("%+v: %v, want %v", tt.w, got, tt.want)
				break
			}
		}
	}
}
