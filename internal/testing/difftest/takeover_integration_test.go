//go:build !nocluster

package difftest

import (
	"context"
	"maps"
	"slices"
	"testing"
	"time"

	"github.com/rs/zerolog"

	"github.com/kcmlab/kcm/kube/rest"
	"github.com/kcmlab/kcm/testenv"
)

// TestTakeoverFromKCMStartsNoRollout: kube-controller-manager rolls a
// Deployment out and stops; kcm starts on the same cluster and the
// Deployment is scaled from 4 to 5. kcm must find kube-controller-manager's
// ReplicaSet as the current one — by comparing templates with the
// pod-template-hash label ignored, as Kubernetes does, since kcm's hash
// differs — and scale it: no new ReplicaSet (which would be a rollout), no
// pod replaced.
func TestTakeoverFromKCMStartsNoRollout(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 4*time.Minute)
	defer cancel()
	c, err := testenv.Start(ctx, testenv.Options{Logger: zerolog.Nop(), AuditWrites: true})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Stop()
	ref := &KubeControllerManager{Controllers: []string{kcmDeployment, kcmReplicaSet, kcmServiceAccount}}
	if _, err := RunScenarios(ctx, c, ref, RollingUpdateScenario()); err != nil {
		t.Fatal(err)
	}
	client, err := rest.NewClient(c.Config())
	if err != nil {
		t.Fatal(err)
	}
	defer client.CloseIdleConnections()
	ns := RollingUpdateScenario().Name
	obs, err := Observe(ctx, client, ns)
	if err != nil {
		t.Fatal(err)
	}
	defer obs.Stop()
	var beforeRS, beforePods map[string]string // name → uid
	if err := obs.WaitFor(ctx, "the rollout kube-controller-manager left", func(v View) bool {
		beforeRS, beforePods = UIDs(v.ReplicaSets), UIDs(v.Pods)
		return Complete(v, deploymentName)
	}); err != nil {
		t.Fatal(err)
	}

	kcm := &InProcess{Descriptors: kcmControllers}
	stop, err := kcm.Start(ctx, c)
	if err != nil {
		t.Fatal(err)
	}
	stop = audited(t, c, kcm, stop, ns)
	defer func() {
		if err := stop(); err != nil {
			t.Errorf("stop kcm: %v", err)
		}
	}()
	d, err := deployments(&Env{Client: client, Namespace: ns}).Patch(ctx, deploymentName, rest.MergePatch,
		[]byte(`{"spec":{"replicas":5}}`), rest.PatchOptions{})
	if err != nil {
		t.Fatal(err)
	}
	var after View
	if err := obs.WaitFor(ctx, "kcm to scale the Deployment to 5", func(v View) bool {
		after = View{ReplicaSets: maps.Clone(v.ReplicaSets), Pods: maps.Clone(v.Pods)}
		dep := v.Deployments[deploymentName]
		return dep != nil && dep.Status.ObservedGeneration >= d.Generation && Settled(v, deploymentName) &&
			dep.Status.Replicas == 5
	}); err != nil {
		t.Fatal(err)
	}
	if got := UIDs(after.ReplicaSets); !maps.Equal(got, beforeRS) {
		t.Fatalf("ReplicaSets changed hands: before %v, after %v (a new ReplicaSet is a rollout)", beforeRS, got)
	}
	afterPods := UIDs(after.Pods)
	for name, uid := range beforePods {
		if afterPods[name] != uid {
			t.Errorf("pod %s (%s) was replaced or deleted", name, uid)
		}
	}
	if len(afterPods) != len(beforePods)+1 {
		t.Errorf("%d pods after scaling %d by one: %v", len(afterPods), len(beforePods), slices.Sorted(maps.Keys(afterPods)))
	}
	t.Logf("kcm scaled kube-controller-manager's ReplicaSets %v; pods %d → %d", slices.Sorted(maps.Keys(beforeRS)),
		len(beforePods), len(afterPods))
}
