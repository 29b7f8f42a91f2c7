package podgc

import (
	"bytes"
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/rs/zerolog"

	"github.com/kcmlab/kcm/internal/testing/resttest"
	"github.com/kcmlab/kcm/kube/api"
	"github.com/kcmlab/kcm/kube/rest"
)

// orphanPatch is the status patch of a running pod whose node is gone, at
// the given time.
func orphanPatch(name string, at time.Time) string {
	return fmt.Sprintf(`patch pods/status ns/%s strategic {"metadata":{"uid":"uid-%s"},"status":{"conditions":[`+
		`{"type":"DisruptionTarget","observedGeneration":1,"status":"True","lastProbeTime":null,"lastTransitionTime":%q,`+
		`"reason":"DeletionByPodGC","message":"PodGC: node no longer exists"}],"phase":"Failed"}}`,
		name, name, at.UTC().Format(time.RFC3339))
}

// TestGCOrphaned follows upstream's TestGCOrphaned, pass by pass on a
// fake clock: a node that pods name and the node cache lacks is
// quarantined for QuarantineTime; then a live GET decides. Not found: its
// pods are force-deleted, a running one marked Failed with the
// DisruptionTarget condition first ("no nodes"). Found ("nodes present in
// client"), or the GET failed: its pods stay and the node is checked
// again a quarantine later. A node that reaches the cache during the
// quarantine is never asked about ("node added to informer after
// quarantine"), nor is one the cache has ("nodes present in lister").
func TestGCOrphaned(t *testing.T) {
	pods := []*api.Pod{
		pod("a", time.Minute, onNode("gone")),
		pod("b", time.Minute, onNode("gone"), phase(api.PodSucceeded)),
		pod("c", time.Minute, onNode("lagging")),
		pod("d", time.Minute, onNode("cached")),
		pod("e", time.Minute, onNode("late")),
		pod("f", time.Minute, onNode("flaky"), phase(api.PodFailed)),
		pod("g", time.Minute),
	}
	nodes := []*api.Node{node("cached", api.ConditionTrue), node("lagging", api.ConditionTrue)}
	f := newFixture(t, Config{TerminatedPodGCThreshold: 10}, pods, nodes)
	f.cachedNodes = nodes[:1]
	var logged bytes.Buffer
	f.c.log = zerolog.New(&logged).Level(zerolog.ErrorLevel)
	f.api.Fail(resttest.On("get", "nodes").Named("flaky").Nth(1), resttest.Failure(500, "InternalError", "etcd is slow"))

	at := func(d time.Duration) time.Time { return t0.Add(d) }
	for _, step := range []struct {
		at   time.Duration
		want []string
	}{
		{0, nil},
		{20 * time.Second, nil}, // quarantine not finished; "late" reaches the cache
		{40 * time.Second, []string{"get nodes flaky", "get nodes gone", "get nodes lagging",
			orphanPatch("a", at(40*time.Second)), deleteLine("a"), deleteLine("b")}},
		{60 * time.Second, nil}, // the checked nodes were queued again at 40s
		// gone too, once more: the 40s pass queued it from the snapshot
		// that still held a and b, as upstream's AddAfter does.
		{80 * time.Second, []string{"get nodes flaky", "get nodes gone", "get nodes lagging", deleteLine("f")}},
	} {
		f.clock.SetTime(at(step.at))
		if step.at == 20*time.Second {
			late := node("late", api.ConditionTrue)
			resttest.Add(f.api, rest.Nodes, late)
			f.cachedNodes = append(f.cachedNodes, late)
		}
		if got := f.pass(); !slices.Equal(got, step.want) {
			t.Fatalf("orphan rule, pass at +%s: requests\n%q\nwant\n%q", step.at, got, step.want)
		}
	}
	if got, want := f.remaining(), []string{"ns/c", "ns/d", "ns/e", "ns/g"}; !slices.Equal(got, want) {
		t.Fatalf("orphan rule: pods left %q, want %q", got, want)
	}
	// One failed GET, one error line: a node the GET found is no error.
	if got, want := logLines(t, &logged, "node"), []string{`error Error while getting node node="flaky"`}; !slices.Equal(got, want) {
		t.Fatalf("orphan rule: error lines %q, want %q", got, want)
	}
}

// TestQuarantineStep checks the record alone: a node keeps the earliest
// time it was queued for (a delaying queue's AddAfter), a due node the
// cache now has is dropped without a GET, a zero quarantine checks at
// once.
func TestQuarantineStep(t *testing.T) {
	q := quarantine{}
	pods := []*api.Pod{pod("a", 0, onNode("x")), pod("b", 0, onNode("y")), pod("c", 0)}
	if got := q.step(pods, nil, t0, 40*time.Second); got != nil {
		t.Fatalf("first pass checks %q, want nothing", got)
	}
	if got := q.step(pods, nil, t0.Add(30*time.Second), 40*time.Second); got != nil || !q["x"].Equal(t0.Add(40*time.Second)) {
		t.Fatalf("second pass checks %q and x waits until %v; want nothing and the first time kept", got, q["x"])
	}
	cached := map[string]*api.Node{"y": node("y", api.ConditionTrue)}
	if got := q.step(pods, cached, t0.Add(40*time.Second), 40*time.Second); !slices.Equal(got, []string{"x"}) {
		t.Fatalf("pass at the quarantine's end checks %q, want [x] (y is cached now)", got)
	}
	if _, ok := q["y"]; ok || !q["x"].Equal(t0.Add(80*time.Second)) {
		t.Fatalf("record after the check %v: want x again until +80s and no y", q)
	}
	if got := (quarantine{}).step(pods, nil, t0, 0); !slices.Equal(got, nil) {
		t.Fatalf("zero quarantine, first pass: %q", got)
	}
	z := quarantine{}
	z.step(pods, nil, t0, 0)
	if got := z.step(pods, nil, t0, 0); !slices.Equal(got, []string{"x", "y"}) {
		t.Fatalf("zero quarantine, second pass at the same time checks %q, want [x y]", got)
	}
}
