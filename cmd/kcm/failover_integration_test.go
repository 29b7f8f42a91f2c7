//go:build !nocluster

package main

import (
	"context"
	"fmt"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/rs/zerolog"

	"github.com/kcmlab/kcm/internal/testing/difftest"
	"github.com/kcmlab/kcm/kube/api"
	"github.com/kcmlab/kcm/kube/api/decode"
	"github.com/kcmlab/kcm/kube/rest"
	"github.com/kcmlab/kcm/testenv"
)

// The failover scenario's numbers. A Deployment of 10 with maxSurge 3 and
// maxUnavailable 2 (25 %/25 %, rounded as Kubernetes rounds them) whose new
// pods are not Ready stops at old 8 + new 5 = 13: the middle of the
// rollout, where the test holds it while the leader dies.
const (
	failoverReplicas       = 10
	failoverMaxSurge       = 3
	failoverMaxUnavailable = 2
	failoverStalledOld     = failoverReplicas - failoverMaxUnavailable
	failoverStalledNew     = failoverReplicas + failoverMaxSurge - failoverStalledOld
	failoverDeployment     = "web"
	failoverProcesses      = 3
	// barrierName names the unowned pod and ReplicaSet written after every
	// kcm process has exited, to know the ledger has seen everything.
	barrierName = "ledger-barrier"
)

// The leader-election timings: short, so that a takeover takes seconds,
// and with kube-controller-manager's proportions (15 s / 10 s / 2 s): a
// leader that cannot renew for 5 s stops acting 3 s before anyone else may
// take the lease, and a renewal has 5 s to get through a loaded apiserver.
const (
	leaseDuration = 8 * time.Second
	renewDeadline = 5 * time.Second
	retryPeriod   = time.Second
	leaseName     = "kube-controller-manager" // kcm's default Lease, in kube-system
)

// Bounds for waits; generous, since the machine may be loaded.
const (
	scenarioTimeout = 12 * time.Minute
	// phaseTimeout bounds each wait for the cluster to reach a state (a
	// leader, a complete rollout, a takeover): a few seconds each when the
	// machine is idle.
	phaseTimeout = 3 * time.Minute
	stopBound    = 90 * time.Second // SIGTERM to exit: drain (bounded) + release
)

// TestLeaderFailoverMidRollout runs three `kcm` processes — the real
// binary, separate OS processes, each with its own log — with
// --leader-elect on kube-controller-manager's Lease, against a cluster of
// its own. No kubelet runs: the test marks pods Ready through the status
// subresource.
//
//  1. One process takes the Lease; the test maps the Lease's holderIdentity
//     to the process by the identity each one logs. Only that one starts
//     controllers.
//  2. A Deployment of 10 (RollingUpdate, maxSurge 3, maxUnavailable 2) is
//     created and completed. Its image is changed; the test makes no new
//     pod Ready, so the rollout cannot get past old 8 + new 5.
//  3. As soon as the first pod of the new ReplicaSet exists — the leader is
//     typically still creating the next slow-start batch (in some runs one
//     such creation landed on the apiserver but never made it to the
//     leader's log) — the leader gets SIGKILL and the test waits until it
//     has been reaped.
//  4. Another process takes the Lease (another holderIdentity,
//     leaseTransitions + 1), brings the rollout to old 8 + new 5 on its own,
//     and, once the test makes pods Ready again, finishes it: updated =
//     replicas = available = 10 at the current observedGeneration, the old
//     ReplicaSet at 0. The sum of the ReplicaSets' spec.replicas never
//     exceeded 10 + maxSurge.
//  5. The third process never led and never acted. SIGTERM stops the two
//     survivors with exit status 0, and the Lease is left released.
//  6. No pod was created twice: every ReplicaSet and pod event of the
//     namespace, from before the Deployment existed, is replayed in store
//     order (see creations_test.go for the rule and why it is exactly
//     kube-controller-manager's guarantee): no pod was created while its
//     ReplicaSet already had spec.replicas active pods, and the rollout
//     created exactly the pods it needed — 10 for each ReplicaSet.
func TestLeaderFailoverMidRollout(t *testing.T) {
	bin := buildKCM(t)
	ctx, cancel := context.WithTimeout(context.Background(), scenarioTimeout)
	defer cancel()
	began := time.Now()
	cl, err := testenv.Start(ctx, testenv.Options{Logger: zerolog.Nop()})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(cl.Stop) // after the processes' cleanups: t.Cleanup is LIFO
	t.Logf("cluster ready in %v", time.Since(began).Round(time.Millisecond))
	client, err := rest.NewClient(cl.Config())
	if err != nil {
		t.Fatal(err)
	}
	defer client.CloseIdleConnections()
	ns := cl.Namespace(t)
	obs, err := difftest.Observe(ctx, client, ns)
	if err != nil {
		t.Fatal(err)
	}
	defer obs.Stop()
	ledger, err := startLedger(ctx, client, ns)
	if err != nil {
		t.Fatal(err)
	}
	defer ledger.stop()
	env := &difftest.Env{Cluster: cl, Client: client, Namespace: ns, Observer: obs}
	leases := rest.NewResources(client, rest.Leases, decode.Typed[api.Lease]()).InNamespace("kube-system")

	// 1. Three candidates; one leads.
	logDir := t.TempDir()
	procs := make([]*kcmProcess, failoverProcesses)
	for i := range procs {
		name := fmt.Sprintf("kcm-%d", i+1)
		procs[i] = startKCM(t, name, bin, filepath.Join(logDir, name+".log"), []string{
			"--kubeconfig=" + cl.KubeconfigPath(),
			"--leader-elect=true",
			"--leader-elect-lease-duration=" + leaseDuration.String(),
			"--leader-elect-renew-deadline=" + renewDeadline.String(),
			"--leader-elect-retry-period=" + retryPeriod.String(),
			"--secure-port=0",
			"--logging-format=json", "-v=4", // debug: "created pod" lines
		})
	}
	t.Cleanup(func() {
		if t.Failed() {
			for _, p := range procs {
				t.Log(p.tail(40))
			}
		}
	})
	first := waitLease(t, phase(t, ctx), leases, "", func(l *api.Lease) bool { return holder(l) != "" })
	ids := byIdentity(t, phase(t, ctx), procs)
	leader := ids[holder(first)]
	if leader == nil {
		t.Fatalf("the Lease is held by %q, which no kcm process logged", holder(first))
	}
	t.Logf("%s leads as %s (leaseTransitions %d)", leader, holder(first), transitions(first))

	// 2. A complete Deployment, then a rollout the test holds.
	deployments := rest.NewResources(client, rest.Deployments, decode.Typed[api.Deployment]()).InNamespace(ns)
	d, err := deployments.Create(ctx, newFailoverDeployment())
	if err != nil {
		t.Fatal(err)
	}
	if err := difftest.DriveUntilComplete(phase(t, ctx), env, failoverDeployment, d.Generation, difftest.AllAtOnce); err != nil {
		t.Fatalf("%s leading: %v", leader, err)
	}
	obs.SetPhase("rollout")
	patch := fmt.Sprintf(`{"spec":{"template":{"spec":{"containers":[{"name":"web","image":%q}]}}}}`, difftest.ImageV2)
	d, err = deployments.Patch(ctx, failoverDeployment, rest.StrategicMergePatch, []byte(patch), rest.PatchOptions{})
	if err != nil {
		t.Fatal(err)
	}
	var atKill string
	if err := obs.WaitFor(phase(t, ctx), "the first pod of the new ReplicaSet", func(v difftest.View) bool {
		atKill = rolloutState(v)
		for _, p := range v.Pods {
			if podImage(p) == difftest.ImageV2 {
				return true
			}
		}
		return false
	}); err != nil {
		t.Fatal(err)
	}

	// 3. kill -9 the leader in the middle of the rollout.
	before, err := leases.Get(ctx, leaseName)
	if err != nil {
		t.Fatal(err)
	}
	if holder(before) != holder(first) {
		t.Fatalf("before the kill the Lease is held by %q, not the first leader %s", holder(before), holder(first))
	}
	for _, p := range procs {
		if n := p.count(t, "caches synced; starting controllers"); p != leader && n > 0 {
			t.Fatalf("%s started controllers while %s led: more than one process acts", p, leader)
		}
	}
	leader.kill(t)
	killed := time.Now()
	t.Logf("killed %s with SIGKILL at: %s", leader, atKill)

	// 4. Another process takes over and finishes the rollout.
	after := waitLease(t, phase(t, ctx), leases, before.ResourceVersion, func(l *api.Lease) bool {
		return holder(l) != "" && holder(l) != holder(first)
	})
	tookOver := time.Since(killed)
	successor := ids[holder(after)]
	if successor == nil || successor == leader {
		t.Fatalf("the Lease went to %q; want one of the surviving processes", holder(after))
	}
	if transitions(after) != transitions(before)+1 {
		t.Errorf("leaseTransitions %d after the takeover, want %d", transitions(after), transitions(before)+1)
	}
	t.Logf("%s took the Lease %v after the kill (leaseTransitions %d)", successor, tookOver.Round(time.Millisecond), transitions(after))
	var stalled string
	if err := obs.WaitFor(phase(t, ctx), fmt.Sprintf("%s to bring the rollout to old %d + new %d", successor, failoverStalledOld, failoverStalledNew),
		func(v difftest.View) bool {
			stalled = rolloutState(v)
			old, cur, ok := rolloutSpecs(v)
			return ok && difftest.Settled(v, failoverDeployment) && old == failoverStalledOld && cur == failoverStalledNew
		}); err != nil {
		t.Fatal(err)
	}
	t.Logf("held by the unready pods at: %s", stalled)
	if err := difftest.DriveUntilComplete(phase(t, ctx), env, failoverDeployment, d.Generation, difftest.AllAtOnce); err != nil {
		t.Fatalf("after %s took over: %v", successor, err)
	}
	t.Logf("the rollout completed %v after the kill", time.Since(killed).Round(time.Millisecond))
	checkRolledOut(t, ctx, client, ns, d.Generation)
	for _, diff := range difftest.SpecBound("kcm", obs.Timeline(), "rollout", failoverReplicas+failoverMaxSurge) {
		t.Errorf("%s: %s", diff.Key, diff.Detail)
	}

	// 5. Who acted, and a clean stop of the survivors.
	var standby *kcmProcess
	for _, p := range procs {
		if p != leader && p != successor {
			standby = p
		}
	}
	for p, want := range map[*kcmProcess]int{leader: 1, successor: 1, standby: 0} {
		if n := p.count(t, "acquired the lease; leading"); n != want {
			t.Errorf("%s acquired the Lease %d times, want %d", p, n, want)
		}
	}
	if n := standby.count(t, "caches synced; starting controllers") + standby.count(t, "created pod"); n > 0 {
		t.Errorf("%s never led but started controllers or created pods (%d log lines)", standby, n)
	}
	// The new ReplicaSet's last 5 pods are created after the rollout was
	// held at old 8 + new 5, when only the successor could act.
	byLeader, bySuccessor := leader.count(t, "created pod"), successor.count(t, "created pod")
	if bySuccessor < failoverReplicas-failoverStalledNew {
		t.Errorf("%s logged %d pod creations, want at least %d", successor, bySuccessor, failoverReplicas-failoverStalledNew)
	}
	t.Logf("pods created, as logged: %d by %s, %d by %s (a creation in flight at the kill is not logged)",
		byLeader, leader, bySuccessor, successor)
	standby.terminate(t, stopBound)
	successor.terminate(t, stopBound)
	if l, err := leases.Get(ctx, leaseName); err != nil || holder(l) != "" {
		t.Errorf("after SIGTERM the Lease is held by %q (%v); want it released", holder(l), err)
	}

	// 6. Every pod creation, replayed.
	checkCreations(t, phase(t, ctx), client, ns, ledger)
	t.Logf("total %v", time.Since(began).Round(time.Millisecond))
}

// phase returns a context for one wait of the scenario, bounded by
// phaseTimeout, cancelled when the test ends.
func phase(t *testing.T, ctx context.Context) context.Context {
	ctx, cancel := context.WithTimeout(ctx, phaseTimeout)
	t.Cleanup(cancel)
	return ctx
}

// newFailoverDeployment is the scenario's Deployment at ImageV1.
func newFailoverDeployment() *api.Deployment {
	replicas := int32(failoverReplicas)
	surge, unavailable := api.IntOrStringFromInt(failoverMaxSurge), api.IntOrStringFromInt(failoverMaxUnavailable)
	labels := map[string]string{"app": failoverDeployment}
	return &api.Deployment{
		ObjectMeta: api.ObjectMeta{Name: failoverDeployment},
		Spec: api.DeploymentSpec{
			Replicas: &replicas,
			Selector: &api.LabelSelector{MatchLabels: labels},
			Strategy: api.DeploymentStrategy{Type: api.RollingUpdateDeploymentStrategyType,
				RollingUpdate: &api.RollingUpdateDeployment{MaxSurge: &surge, MaxUnavailable: &unavailable}},
			Template: api.PodTemplateSpec{
				ObjectMeta: api.ObjectMeta{Labels: labels},
				Spec:       api.PodSpec{Containers: []api.Container{{Name: "web", Image: difftest.ImageV1}}},
			},
		},
	}
}

// checkRolledOut asserts the finished rollout on fresh reads: the
// Deployment's status counts every replica updated and available at its
// current generation, and the old ReplicaSet is scaled to 0 with no pod.
func checkRolledOut(t *testing.T, ctx context.Context, c *rest.Client, ns string, gen int64) {
	t.Helper()
	d, err := rest.NewResources(c, rest.Deployments, decode.Typed[api.Deployment]()).InNamespace(ns).Get(ctx, failoverDeployment)
	if err != nil {
		t.Fatal(err)
	}
	s := d.Status
	if d.Generation != gen || s.ObservedGeneration != gen || s.Replicas != failoverReplicas ||
		s.UpdatedReplicas != failoverReplicas || s.AvailableReplicas != failoverReplicas || s.ReadyReplicas != failoverReplicas {
		t.Errorf("Deployment at generation %d (want %d): status %+v; want observedGeneration %d and replicas = updated = ready = available = %d",
			d.Generation, gen, s, gen, failoverReplicas)
	}
	rss, err := rest.NewResources(c, rest.ReplicaSets, decode.Typed[api.ReplicaSet]()).InNamespace(ns).List(ctx, rest.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if len(rss.Items) != 2 {
		t.Fatalf("%d ReplicaSets, want the old and the new one", len(rss.Items))
	}
	for _, rs := range rss.Items {
		want := int32(failoverReplicas)
		if imageOf(rs.Spec.Template) != difftest.ImageV2 {
			want = 0
		}
		if rs.Spec.Replicas == nil || *rs.Spec.Replicas != want || rs.Status.Replicas != want || rs.Status.AvailableReplicas != want {
			t.Errorf("ReplicaSet %s (%s): spec.replicas %v, status %+v; want %d", rs.Name, imageOf(rs.Spec.Template),
				rs.Spec.Replicas, rs.Status, want)
		}
	}
}

// checkCreations writes the barrier (every kcm process has exited, so
// nothing else writes), waits until the ledger has seen it, and replays
// the ledger: no rule broken, and exactly failoverReplicas pods created
// for each of the two ReplicaSets — the old one's at the start, the new
// one's during the rollout — none of the new one's deleted, all of the
// old one's.
func checkCreations(t *testing.T, ctx context.Context, c *rest.Client, ns string, l *ledger) {
	t.Helper()
	labels := map[string]string{"barrier": "true"}
	tmpl := api.PodTemplateSpec{ObjectMeta: api.ObjectMeta{Labels: labels},
		Spec: api.PodSpec{Containers: []api.Container{{Name: "c", Image: "registry.example/barrier:1"}}}}
	zero := int32(0)
	if _, err := rest.NewResources(c, rest.ReplicaSets, decode.Typed[api.ReplicaSet]()).InNamespace(ns).Create(ctx, &api.ReplicaSet{
		ObjectMeta: api.ObjectMeta{Name: barrierName},
		Spec:       api.ReplicaSetSpec{Replicas: &zero, Selector: &api.LabelSelector{MatchLabels: labels}, Template: tmpl},
	}); err != nil {
		t.Fatal(err)
	}
	if _, err := rest.NewResources(c, rest.Pods, decode.Typed[api.Pod]()).InNamespace(ns).Create(ctx, &api.Pod{
		ObjectMeta: api.ObjectMeta{Name: barrierName, Labels: labels}, Spec: tmpl.Spec,
	}); err != nil {
		t.Fatal(err)
	}
	if err := l.waitAdded(ctx, barrierName); err != nil {
		t.Fatal(err)
	}
	events, err := l.stop()
	if err != nil {
		t.Fatal(err)
	}
	var kept []ledgerEvent
	for _, ev := range events {
		if ev.Name != barrierName {
			kept = append(kept, ev)
		}
	}
	r := replayCreations(kept)
	const shown = 5
	for i, v := range r.Violations {
		if i == shown {
			t.Errorf("pod created twice: and %d more", len(r.Violations)-shown)
			break
		}
		t.Errorf("pod created twice: %s", v)
	}
	var summary []string
	for uid, name := range r.Names {
		summary = append(summary, fmt.Sprintf("%s: %d created, %d deleted", name, r.Created[uid], r.Deleted[uid]))
		if r.Created[uid] != failoverReplicas {
			t.Errorf("ReplicaSet %s: %d pods created, want %d (the replicas it needed, none replaced)", name, r.Created[uid], failoverReplicas)
		}
	}
	sort.Strings(summary)
	if len(r.Names) != 2 || r.total() != 2*failoverReplicas {
		t.Errorf("%d pods created over %d ReplicaSets, want %d over 2", r.total(), len(r.Names), 2*failoverReplicas)
	}
	t.Logf("pod ledger, %d events: %s", len(kept), strings.Join(summary, "; "))
}

// waitLease lists the Lease (or starts from fromRV) and watches it until
// cond holds; every update in between is seen, in order.
func waitLease(t *testing.T, ctx context.Context, leases *rest.Resources[*api.Lease], fromRV string, cond func(*api.Lease) bool) *api.Lease {
	t.Helper()
	sel := "metadata.name=" + leaseName
	if fromRV == "" {
		list, err := leases.List(ctx, rest.ListOptions{FieldSelector: sel})
		if err != nil {
			t.Fatal(err)
		}
		for _, l := range list.Items {
			if cond(l) {
				return l
			}
		}
		fromRV = list.ResourceVersion
	}
	w, err := leases.Watch(ctx, rest.WatchOptions{ListOptions: rest.ListOptions{
		FieldSelector: sel, ResourceVersion: fromRV, TimeoutSeconds: ledgerWatchSeconds}})
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	for {
		ev, err := w.Next()
		if err == nil && ev.Type == rest.Error {
			err = ev.Err
		}
		if err != nil {
			t.Fatalf("watching Lease kube-system/%s: %v", leaseName, err)
		}
		if (ev.Type == rest.Added || ev.Type == rest.Modified) && cond(ev.Object) {
			return ev.Object
		}
	}
}

func holder(l *api.Lease) string {
	if l == nil || l.Spec.HolderIdentity == nil {
		return ""
	}
	return *l.Spec.HolderIdentity
}

func transitions(l *api.Lease) int32 {
	if l.Spec.LeaseTransitions == nil {
		return 0
	}
	return *l.Spec.LeaseTransitions
}

func imageOf(t api.PodTemplateSpec) string {
	if len(t.Spec.Containers) == 0 {
		return ""
	}
	return t.Spec.Containers[0].Image
}

func podImage(p *api.Pod) string {
	if len(p.Spec.Containers) == 0 {
		return ""
	}
	return p.Spec.Containers[0].Image
}

// rolloutSpecs returns the spec.replicas of the old and the new template's
// ReplicaSets; ok is false until both exist.
func rolloutSpecs(v difftest.View) (old, cur int32, ok bool) {
	var haveOld, haveNew bool
	for _, rs := range v.ReplicaSets {
		n := int32(1)
		if rs.Spec.Replicas != nil {
			n = *rs.Spec.Replicas
		}
		if imageOf(rs.Spec.Template) == difftest.ImageV2 {
			cur, haveNew = cur+n, true
		} else {
			old, haveOld = old+n, true
		}
	}
	return old, cur, haveOld && haveNew
}

// rolloutState describes the rollout for the log: each ReplicaSet's
// spec.replicas and its active pods.
func rolloutState(v difftest.View) string {
	var parts []string
	for _, rs := range v.ReplicaSets {
		pods := 0
		for _, p := range v.Pods {
			if p.IsControlledBy(rs.UID) && api.IsPodActive(p) {
				pods++
			}
		}
		n := int32(1)
		if rs.Spec.Replicas != nil {
			n = *rs.Spec.Replicas
		}
		parts = append(parts, fmt.Sprintf("%s (%s) spec %d, %d pods", rs.Name, imageOf(rs.Spec.Template), n, pods))
	}
	sort.Strings(parts)
	return strings.Join(parts, "; ")
}
