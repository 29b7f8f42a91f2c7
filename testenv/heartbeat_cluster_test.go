//go:build !nocluster

package testenv

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/rs/zerolog"
)

// leaseWatch follows node Leases by polling: renewals counts the distinct
// renewTimes seen per node.
type leaseWatch struct {
	c        *Cluster
	last     map[string]string
	renewals map[string]int
}

func newLeaseWatch(c *Cluster) *leaseWatch {
	return &leaseWatch{c: c, last: map[string]string{}, renewals: map[string]int{}}
}

// until polls the nodes' Leases until done says the counts suffice.
func (w *leaseWatch) until(t *testing.T, ctx context.Context, nodes []string, done func() error) {
	t.Helper()
	ctx, cancel := context.WithTimeout(ctx, waitBound)
	defer cancel()
	err := w.c.poll(ctx, func(ctx context.Context) error {
		for _, n := range nodes {
			l, err := w.c.getLease(ctx, n)
			if err != nil {
				return err
			}
			if rt := l.renewTime(); rt != w.last[n] {
				if w.last[n] != "" {
					w.renewals[n]++
				}
				w.last[n] = rt
			}
		}
		return done()
	})
	if err != nil {
		t.Fatal(err)
	}
}

// beatWatch counts the changes of nodes' Ready lastHeartbeatTime.
type beatWatch struct {
	c       *Cluster
	last    map[string]string
	changes map[string]int
}

func newBeatWatch(c *Cluster) *beatWatch {
	return &beatWatch{c: c, last: map[string]string{}, changes: map[string]int{}}
}

func (b *beatWatch) observe(ctx context.Context, nodes ...string) error {
	for _, n := range nodes {
		hb, err := b.c.heartbeat(ctx, n)
		if err != nil {
			return err
		}
		if prev, seen := b.last[n]; seen && hb != prev {
			b.changes[n]++
		}
		b.last[n] = hb
	}
	return nil
}

// setReady writes the node's Ready condition, as a node lifecycle
// controller does when the heartbeat is overdue.
func setReady(t *testing.T, ctx context.Context, c *Cluster, node, status string) {
	t.Helper()
	for {
		var n map[string]any
		if err := c.client.do(ctx, http.MethodGet, nodePath(node), nil, &n); err != nil {
			t.Fatal(err)
		}
		st := n["status"].(map[string]any)
		for _, cond := range st["conditions"].([]any) {
			if m := cond.(map[string]any); m["type"] == "Ready" {
				m["status"], m["reason"] = status, "NodeStatusUnknown"
			}
		}
		err := c.client.do(ctx, http.MethodPut, nodePath(node)+"/status", n, nil)
		var se *StatusError
		if errors.As(err, &se) && se.Code == http.StatusConflict {
			continue
		}
		if err != nil {
			t.Fatal(err)
		}
		return
	}
}

func (c *Cluster) nodeReady(ctx context.Context, node string) (string, error) {
	n, err := c.getNode(ctx, node)
	if err != nil {
		return "", err
	}
	return n.ready(), nil
}

// fastHeartbeatStages writes a copy of kwok's Stage configuration whose
// node-heartbeat-with-lease stage refreshes the Ready condition's
// lastHeartbeatTime every 1-1.5 s instead of every 10-20 min, so that a
// test sees the status heartbeat stop and go on. Not less than a second:
// the times have a resolution of a second, and kwok schedules the next
// heartbeat only when a write changed the node, so a heartbeat within the
// same second as the one before would end the chain.
func fastHeartbeatStages(t *testing.T, ctx context.Context) *KwokFiles {
	t.Helper()
	files, err := EnsureKwok(ctx, nil, zerolog.Nop())
	if err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(files.Stages)
	if err != nil {
		t.Fatal(err)
	}
	text := string(data)
	for old, fast := range map[string]string{
		"durationMilliseconds: 600000":       "durationMilliseconds: 1000",
		"jitterDurationMilliseconds: 610000": "jitterDurationMilliseconds: 1500",
	} {
		if strings.Count(text, old) != 1 {
			t.Fatalf("kwok's heartbeat stage no longer says %q once:\n%s", old, text)
		}
		text = strings.Replace(text, old, fast, 1)
	}
	stages := filepath.Join(t.TempDir(), KwokStagesFile)
	if err := os.WriteFile(stages, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	return &KwokFiles{Binary: files.Binary, Stages: stages}
}

// heartbeat returns the lastHeartbeatTime of the node's Ready condition.
func (c *Cluster) heartbeat(ctx context.Context, node string) (string, error) {
	n, err := c.getNode(ctx, node)
	if err != nil {
		return "", err
	}
	for _, cond := range n.Status.Conditions {
		if cond.Type == "Ready" {
			return cond.LastHeartbeatTime, nil
		}
	}
	return "", errors.New("no Ready condition")
}

// TestPauseAndResumeHeartbeat runs its own cluster, started with Options
// asking for nodes, with 4 s node leases (kwok renews every second) and a
// status heartbeat every 1-1.5 s. The node "steady" is the clock: while
// its Lease is renewed three times and its Ready condition's
// lastHeartbeatTime moves twice, the paused node's Lease keeps its
// renewTime and holder, its lastHeartbeatTime stays, and a Ready=Unknown
// written on it (as the node lifecycle controller would) stays, whereas on
// steady kwok sets Ready back to True at once. After ResumeHeartbeat the
// paused node's Lease is renewed again, repeatedly, its heartbeat moves,
// and it is Ready. Stop ends kwok and kube-scheduler.
//
// The node "fenced" checks PauseHeartbeat's second step on its own: kwok
// still manages it, but leaves its Lease alone once it names another
// holder.
func TestPauseAndResumeHeartbeat(t *testing.T) {
	ctx := nodeContext(t)
	began := time.Now()
	c, err := Start(ctx, Options{
		Logger:                   zerolog.New(zerolog.NewTestWriter(t)),
		NodeLeaseDurationSeconds: 4,
		Kwok:                     fastHeartbeatStages(t, ctx),
		Nodes:                    []NodeSpec{{Name: "steady", Zone: "zone-a"}, {Name: "paused", Zone: "zone-b"}, {Name: "fenced"}},
	})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(c.Stop)
	t.Logf("cluster with kube-scheduler, kwok and 3 nodes ready in %v", time.Since(began))
	all := []string{"steady", "paused", "fenced"}

	if err := c.PauseHeartbeat(ctx, "paused"); err != nil {
		t.Fatal(err)
	}
	if err := c.PauseHeartbeat(ctx, "paused"); err != nil { // idempotent
		t.Fatal(err)
	}
	frozenBeat, err := c.heartbeat(ctx, "paused")
	if err != nil {
		t.Fatal(err)
	}
	frozen, err := c.getLease(ctx, "paused")
	if err != nil {
		t.Fatal(err)
	}
	if err := c.fenceLease(ctx, "fenced"); err != nil {
		t.Fatal(err)
	}
	fenced, err := c.getLease(ctx, "fenced")
	if err != nil {
		t.Fatal(err)
	}
	setReady(t, ctx, c, "paused", "Unknown")
	setReady(t, ctx, c, "steady", "Unknown")

	w := newLeaseWatch(c)
	beats := newBeatWatch(c)
	w.until(t, ctx, all, func() error {
		if err := beats.observe(ctx, "steady", "paused"); err != nil {
			return err
		}
		if w.renewals["steady"] < 3 || beats.changes["steady"] < 2 {
			return fmt.Errorf("steady renewed %d times, heartbeat moved %d times", w.renewals["steady"], beats.changes["steady"])
		}
		if r, err := c.nodeReady(ctx, "steady"); err != nil || r != "True" {
			return fmt.Errorf("steady: Ready %q, %v", r, err)
		}
		return nil
	})
	if beats.changes["paused"] != 0 || beats.last["paused"] != frozenBeat {
		t.Errorf("paused node's Ready heartbeat moved %d times (to %s, frozen at %s) while steady's moved %d times",
			beats.changes["paused"], beats.last["paused"], frozenBeat, beats.changes["steady"])
	}
	if w.renewals["paused"] != 0 || w.last["paused"] != frozen.renewTime() {
		t.Errorf("paused node's Lease renewed %d times (renewTime %s, frozen at %s) while steady's was renewed %d times",
			w.renewals["paused"], w.last["paused"], frozen.renewTime(), w.renewals["steady"])
	}
	if w.renewals["fenced"] != 0 || w.last["fenced"] != fenced.renewTime() {
		t.Errorf("fenced Lease renewed %d times (renewTime %s, frozen at %s)", w.renewals["fenced"], w.last["fenced"], fenced.renewTime())
	}
	if r, err := c.nodeReady(ctx, "paused"); err != nil || r != "Unknown" {
		t.Errorf("paused node: Ready = %q, %v; want the Unknown written during the pause to stay", r, err)
	}
	if l, err := c.getLease(ctx, "paused"); err != nil || l.Spec.HolderIdentity == nil || *l.Spec.HolderIdentity != pausedHolder {
		t.Errorf("paused node's Lease: %+v, %v; want holder %s", l, err, pausedHolder)
	}

	if err := c.ResumeHeartbeat(ctx, "paused"); err != nil {
		t.Fatal(err)
	}
	if r, err := c.nodeReady(ctx, "paused"); err != nil || r != "True" {
		t.Errorf("after resume: Ready = %q, %v", r, err)
	}
	steady, err := c.getLease(ctx, "steady")
	if err != nil {
		t.Fatal(err)
	}
	resumed, err := c.getLease(ctx, "paused")
	if err != nil {
		t.Fatal(err)
	}
	if *resumed.Spec.HolderIdentity != *steady.Spec.HolderIdentity || resumed.Metadata.Annotations[pausedHolderAnnotation] != "" {
		t.Errorf("resumed Lease held by %q (annotations %v), want kwok's %q", *resumed.Spec.HolderIdentity,
			resumed.Metadata.Annotations, *steady.Spec.HolderIdentity)
	}
	w = newLeaseWatch(c)
	beats = newBeatWatch(c)
	w.until(t, ctx, []string{"paused"}, func() error {
		if err := beats.observe(ctx, "paused"); err != nil {
			return err
		}
		if w.renewals["paused"] < 2 || beats.changes["paused"] < 2 {
			return fmt.Errorf("paused node renewed %d times, heartbeat moved %d times since the resume",
				w.renewals["paused"], beats.changes["paused"])
		}
		return nil
	})
	if err := c.ResumeHeartbeat(ctx, "steady"); err != nil { // not paused: a no-op
		t.Fatal(err)
	}

	c.mu.Lock()
	pids := []int{c.kwok.proc.pid(), c.scheduler.proc.pid()}
	c.mu.Unlock()
	c.Stop()
	for _, pid := range pids {
		if !pidGone(pid) {
			t.Errorf("process %d (kwok or kube-scheduler) survived Stop", pid)
		}
	}
}
