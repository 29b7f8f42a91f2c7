package difftest

import (
	"context"
	"fmt"
	"sort"
	"time"

	"github.com/kcmlab/kcm/kube/api"
	"github.com/kcmlab/kcm/kube/api/decode"
	"github.com/kcmlab/kcm/kube/rest"
)

// The cluster has no kubelet and no scheduler: pods stay Pending and
// unbound forever unless someone plays the kubelet's part. The driver
// does, through the pods' status subresource: it sets phase Running and
// the Ready and ContainersReady conditions. spec.nodeName stays empty;
// the workload controllers do not read it (and kube-apiserver deletes an
// unbound pod at once, so scale-downs need no kubelet either).

// Settled reports whether the controllers have caught up with the state
// of Deployment name: every ReplicaSet it owns has observed its
// generation, counts exactly spec.replicas pods and reports their
// readiness, and the Deployment has observed its generation and reports
// the sums of its ReplicaSets' statuses. Whatever a controller does next
// can only be caused by something the driver does next — this is what
// makes a rollout's decisions independent of timing.
func Settled(v View, name string) bool {
	d, ok := v.Deployments[name]
	if !ok || d.Status.ObservedGeneration != d.Generation {
		return false
	}
	var replicas, ready, available, updated int32
	for _, rs := range ownedReplicaSets(v, d) {
		if rs.Status.ObservedGeneration != rs.Generation {
			return false
		}
		total, nready := ownedPods(v, rs)
		want := replicasOrOne(rs.Spec.Replicas)
		// minReadySeconds is 0 in the scenarios: Ready is Available.
		if total != want || rs.Status.Replicas != total || rs.Status.ReadyReplicas != nready || rs.Status.AvailableReplicas != nready {
			return false
		}
		replicas += rs.Status.Replicas
		ready += rs.Status.ReadyReplicas
		available += rs.Status.AvailableReplicas
		if templateImage(rs.Spec.Template) == templateImage(d.Spec.Template) {
			updated += rs.Status.Replicas
		}
	}
	s := d.Status
	return s.Replicas == replicas && s.ReadyReplicas == ready && s.AvailableReplicas == available && s.UpdatedReplicas == updated
}

// Complete reports whether Deployment name is settled with all of its
// desired pods on its current template and Ready, no pod of an older
// template left, and its Progressing condition saying so
// (NewReplicaSetAvailable) when it has replicas.
func Complete(v View, name string) bool {
	if !Settled(v, name) {
		return false
	}
	d := v.Deployments[name]
	want := replicasOrOne(d.Spec.Replicas)
	s := d.Status
	if s.Replicas != want || s.UpdatedReplicas != want || s.AvailableReplicas != want {
		return false
	}
	for _, rs := range ownedReplicaSets(v, d) {
		if templateImage(rs.Spec.Template) != templateImage(d.Spec.Template) && replicasOrOne(rs.Spec.Replicas) != 0 {
			return false
		}
	}
	c := api.GetDeploymentCondition(&d.Status, api.DeploymentProgressing)
	return c != nil && c.Reason == "NewReplicaSetAvailable"
}

// ownedReplicaSets are the ReplicaSets whose controller is d.
func ownedReplicaSets(v View, d *api.Deployment) []*api.ReplicaSet {
	var out []*api.ReplicaSet
	for _, rs := range v.ReplicaSets {
		if rs.IsControlledBy(d.UID) {
			out = append(out, rs)
		}
	}
	return out
}

// ownedPods counts the pods whose controller is rs, and the Ready ones.
func ownedPods(v View, rs *api.ReplicaSet) (total, ready int32) {
	for _, p := range v.Pods {
		if p.IsControlledBy(rs.UID) && p.DeletionTimestamp == nil {
			total++
			if api.IsPodReady(p) {
				ready++
			}
		}
	}
	return total, ready
}

// notReady returns the names of pods that are not Ready, sorted.
func notReady(v View) []string {
	var names []string
	for _, p := range v.Pods {
		if !api.IsPodReady(p) && p.DeletionTimestamp == nil {
			names = append(names, p.Name)
		}
	}
	sort.Strings(names)
	return names
}

// Readiness says how the driver plays the kubelet.
type Readiness int

const (
	// AllAtOnce marks every pod Ready as soon as it appears.
	AllAtOnce Readiness = iota
	// OneAtATime marks one pod Ready only when the controllers have
	// settled, so that each of their decisions sees exactly one more
	// Ready pod than the last.
	OneAtATime
)

// DriveUntilComplete plays the kubelet for Deployment name until it is
// Complete at generation gen or later: gen is the generation the
// driver's last write of the Deployment returned, so that a state the
// observer saw before that write does not count as its completion.
func DriveUntilComplete(ctx context.Context, env *Env, name string, gen int64, mode Readiness) error {
	pods := rest.NewResources(env.Client, rest.Pods, decode.Typed[api.Pod]()).InNamespace(env.Namespace)
	for {
		var todo []string
		done := false
		err := env.Observer.WaitFor(ctx, "Deployment "+name+" to complete", func(v View) bool {
			if d, ok := v.Deployments[name]; !ok || d.Generation < gen {
				return false
			}
			if mode == OneAtATime && !Settled(v, name) {
				return false
			}
			done = Complete(v, name)
			todo = notReady(v)
			return done || len(todo) > 0
		})
		if err != nil {
			return err
		}
		if done {
			return nil
		}
		if mode == OneAtATime {
			todo = todo[:1]
		}
		for _, p := range todo {
			if err := MarkReady(ctx, pods, p); err != nil {
				return err
			}
		}
		// Wait until the observer has seen the writes, so that the next
		// round does not mark them again.
		err = env.Observer.WaitFor(ctx, "pods marked Ready to be seen", func(v View) bool {
			for _, p := range todo {
				if pod, ok := v.Pods[p]; ok && !api.IsPodReady(pod) {
					return false
				}
			}
			return true
		})
		if err != nil {
			return err
		}
	}
}

// MarkReady sets a pod's phase to Running and its Ready and
// ContainersReady conditions to True, as a kubelet would once the
// containers run and pass their readiness probes. A pod that is gone
// (scaled down meanwhile) is not an error.
func MarkReady(ctx context.Context, pods *rest.Resources[*api.Pod], name string) error {
	now := time.Now().UTC().Format(time.RFC3339)
	patch := fmt.Sprintf(`{"status":{"phase":"Running","conditions":[`+
		`{"type":"Ready","status":"True","lastTransitionTime":%q},`+
		`{"type":"ContainersReady","status":"True","lastTransitionTime":%q}]}}`, now, now)
	_, err := pods.Patch(ctx, name, rest.MergePatch, []byte(patch), rest.PatchOptions{}, "status")
	if err != nil && !rest.IsNotFound(err) {
		return fmt.Errorf("difftest: mark pod %s Ready: %w", name, err)
	}
	return nil
}
