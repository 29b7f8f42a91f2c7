package ctrl

import (
	"fmt"
	"testing"
	"time"

	"github.com/kcmlab/kcm/clock"
	"github.com/kcmlab/kcm/kube/api"
	"github.com/kcmlab/kcm/kube/rest"
)

var rsRef = api.ObjectReference{Kind: "ReplicaSet", APIVersion: "apps/v1", Namespace: "ns", Name: "web-5d4f", UID: "u-1", ResourceVersion: "7"}

func newEvent(clk clock.Clock, ref api.ObjectReference, reason, msg string) *api.CoreEvent {
	return makeEvent(ref, api.EventSource{Component: "replicaset-controller"}, clk.Now(), api.EventTypeNormal, reason, msg)
}

// TestMakeEvent: the Event client-go's recorder builds.
func TestMakeEvent(t *testing.T) {
	now := time.Unix(1700000000, 123456789)
	e := makeEvent(rsRef, api.EventSource{Component: "replicaset-controller"}, now, api.EventTypeNormal, ReasonSuccessfulCreate, "Created pod: web-5d4f-abcde")
	if e.Name != "web-5d4f.17979cfe3d85cd15" || e.Namespace != "ns" {
		t.Errorf("name %s/%s, want ns/web-5d4f.<hex ns>", e.Namespace, e.Name)
	}
	if e.Count != 1 || !e.FirstTimestamp.Equal(now) || !e.LastTimestamp.Equal(now) || e.InvolvedObject != rsRef {
		t.Errorf("event %+v", e)
	}
	if e.ReportingController != "replicaset-controller" || e.Source.Component != "replicaset-controller" || e.ReportingInstance != "" {
		t.Errorf("source %+v reporting %q/%q", e.Source, e.ReportingController, e.ReportingInstance)
	}
	if e.APIVersion != "v1" || e.Kind != "Event" || e.Type != api.EventTypeNormal || e.Reason != ReasonSuccessfulCreate {
		t.Errorf("type meta / type / reason: %+v", e)
	}
	clusterScoped := makeEvent(api.ObjectReference{Kind: "Namespace", Name: "ns"}, api.EventSource{}, now, api.EventTypeWarning, "R", "m")
	if clusterScoped.Namespace != "default" {
		t.Errorf("a cluster-scoped object's event goes to %q, want default", clusterScoped.Namespace)
	}
	ref := Ref(rest.ReplicaSets, &api.ReplicaSet{ObjectMeta: api.ObjectMeta{Namespace: "ns", Name: "web-5d4f", UID: "u-1", ResourceVersion: "7"}})
	if ref != rsRef {
		t.Errorf("Ref = %+v, want %+v", ref, rsRef)
	}
}

// TestCorrelatorCountsRepeats: an identical event patches the first one:
// its name and first timestamp, count+1 (client-go's eventLogger).
func TestCorrelatorCountsRepeats(t *testing.T) {
	clk := clock.NewFake(t0)
	c := newCorrelator(clk)
	first := c.correlate(newEvent(clk, rsRef, "FailedCreate", "quota exceeded"))
	if first.Skip || first.Patch != nil || first.Event.Count != 1 {
		t.Fatalf("first: %+v", first)
	}
	// The server's copy carries a resourceVersion the next patch keeps.
	written := *first.Event
	written.ResourceVersion = "100"
	c.written(&written)

	clk.Step(time.Minute)
	second := c.correlate(newEvent(clk, rsRef, "FailedCreate", "quota exceeded"))
	e := second.Event
	if e.Name != first.Event.Name || e.Count != 2 || !e.FirstTimestamp.Equal(t0) || !e.LastTimestamp.Equal(t0.Add(time.Minute)) || e.ResourceVersion != "100" {
		t.Fatalf("repeat: name %s count %d first %v last %v rv %q", e.Name, e.Count, e.FirstTimestamp, e.LastTimestamp, e.ResourceVersion)
	}
	if want := `{"count":2,"lastTimestamp":"2025-01-02T03:05:05Z","message":"quota exceeded"}`; string(second.Patch) != want {
		t.Fatalf("patch %s, want %s", second.Patch, want)
	}
	third := c.correlate(newEvent(clk, rsRef, "FailedCreate", "quota exceeded"))
	if third.Event.Count != 3 {
		t.Fatalf("third count %d", third.Event.Count)
	}
	// Another message or another object is another event.
	for _, e := range []*api.CoreEvent{
		newEvent(clk, rsRef, "FailedCreate", "other"),
		newEvent(clk, api.ObjectReference{Kind: "ReplicaSet", Namespace: "ns", Name: "other"}, "FailedCreate", "quota exceeded"),
	} {
		if r := c.correlate(e); r.Patch != nil || r.Event.Count != 1 {
			t.Fatalf("a different event was counted as a repeat: %+v", r.Event)
		}
	}
}

// TestCorrelatorAggregates: the 10th event that differs only by message
// within 10 minutes becomes a combined event, and later ones count it up
// (client-go's EventAggregator, 10 events in 600 s).
func TestCorrelatorAggregates(t *testing.T) {
	clk := clock.NewFake(t0)
	c := newCorrelator(clk)
	for i := 1; i < aggregateMaxEvents; i++ {
		r := c.correlate(newEvent(clk, rsRef, "FailedCreate", fmt.Sprintf("pod %d: quota", i)))
		if r.Event.Count != 1 || r.Event.Message != fmt.Sprintf("pod %d: quota", i) {
			t.Fatalf("event %d aggregated too early: %+v", i, r.Event)
		}
		clk.Step(time.Minute)
	}
	r := c.correlate(newEvent(clk, rsRef, "FailedCreate", "pod 10: quota"))
	e := r.Event
	if e.Message != "(combined from similar events): pod 10: quota" || e.Count != 1 || r.Patch != nil {
		t.Fatalf("10th: %+v", e)
	}
	if e.ReportingController != "" || e.Source.Component != "replicaset-controller" || e.Reason != "FailedCreate" || e.InvolvedObject != rsRef || e.Namespace != "ns" {
		t.Fatalf("combined event fields: %+v", e)
	}
	combined := e.Name
	clk.Step(time.Minute)
	r = c.correlate(newEvent(clk, rsRef, "FailedCreate", "pod 11: quota"))
	if r.Event.Name != combined || r.Event.Count != 2 || r.Event.Message != "(combined from similar events): pod 11: quota" || r.Patch == nil {
		t.Fatalf("11th should count up the combined event %s: %+v", combined, r.Event)
	}
	// Another reason is another group.
	if r := c.correlate(newEvent(clk, rsRef, "FailedDelete", "x")); r.Event.Message != "x" {
		t.Fatalf("another reason was aggregated: %+v", r.Event)
	}
}

// TestCorrelatorAggregationWindow: a group whose last event is more than
// 10 minutes old starts over.
func TestCorrelatorAggregationWindow(t *testing.T) {
	clk := clock.NewFake(t0)
	c := newCorrelator(clk)
	for i := 1; i < aggregateMaxEvents; i++ {
		c.correlate(newEvent(clk, rsRef, "FailedCreate", fmt.Sprint(i)))
	}
	clk.Step(aggregateInterval) // exactly 10 minutes: still the same group
	clk.Step(time.Nanosecond)
	if r := c.correlate(newEvent(clk, rsRef, "FailedCreate", "late")); r.Event.Message != "late" {
		t.Fatalf("the group did not start over after 10 minutes: %+v", r.Event)
	}
	c2 := newCorrelator(clk)
	for i := 1; i < aggregateMaxEvents; i++ {
		c2.correlate(newEvent(clk, rsRef, "FailedCreate", fmt.Sprint(i)))
	}
	clk.Step(aggregateInterval)
	if r := c2.correlate(newEvent(clk, rsRef, "FailedCreate", "on time")); r.Event.Message == "on time" {
		t.Fatal("an event exactly 10 minutes after the last was not aggregated")
	}
}

// TestCorrelatorSpamFilter: 25 events about one object from one source
// pass, then one per 5 minutes (client-go's EventSourceObjectSpamFilter);
// other objects have their own bucket.
func TestCorrelatorSpamFilter(t *testing.T) {
	clk := clock.NewFake(t0)
	c := newCorrelator(clk)
	for i := range spamBurst {
		if r := c.correlate(newEvent(clk, rsRef, "R", "same")); r.Skip {
			t.Fatalf("event %d of the burst filtered", i+1)
		}
	}
	if r := c.correlate(newEvent(clk, rsRef, "R", "same")); !r.Skip {
		t.Fatal("26th event passed")
	}
	other := rsRef
	other.Name = "other"
	if r := c.correlate(newEvent(clk, other, "R", "same")); r.Skip {
		t.Fatal("another object's event was filtered")
	}
	clk.Step(spamRefill - time.Second)
	if r := c.correlate(newEvent(clk, rsRef, "R", "same")); !r.Skip {
		t.Fatal("a token came back before 5 minutes")
	}
	clk.Step(time.Second)
	if r := c.correlate(newEvent(clk, rsRef, "R", "same")); r.Skip {
		t.Fatal("no token after 5 minutes")
	}
}

func TestLRU(t *testing.T) {
	c := newLRU[string, int](2)
	c.put("a", 1)
	c.put("b", 2)
	c.get("a")    // b is now the least recently used
	c.put("c", 3) // evicts b
	if _, ok := c.get("b"); ok {
		t.Fatal("b not evicted")
	}
	if v, ok := c.get("a"); !ok || v != 1 {
		t.Fatal("a evicted")
	}
	c.put("a", 10) // update in place, no eviction
	if v, _ := c.get("a"); v != 10 || c.len() != 2 {
		t.Fatalf("a = %d, len %d", v, c.len())
	}
	if _, ok := c.get("c"); !ok {
		t.Fatal("c evicted by an update")
	}
}
