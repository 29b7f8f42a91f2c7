package difftest

import (
	"context"
	"fmt"
	"time"

	"github.com/kcmlab/kcm/kube/api"
	"github.com/kcmlab/kcm/kube/api/decode"
	"github.com/kcmlab/kcm/kube/rest"
)

// The scenarios the tests run. Each is a function so that a test can ask
// for a fresh value; none keeps state between runs.

// Images of the two revisions of the scenarios' Deployments. Nothing
// pulls them: there is no kubelet.
const (
	ImageV1 = "registry.example/web:1"
	ImageV2 = "registry.example/web:2"
)

// deploymentName is the Deployment every workload scenario drives.
const deploymentName = "web"

// ServiceAccountScenario creates three namespaces without accounts and
// waits for each to get its "default" ServiceAccount, then deletes the
// one of the second namespace and waits for a new one (another UID). It
// records every ServiceAccount in the cluster, so the accounts of the
// namespaces kube-apiserver makes itself (default, kube-system,
// kube-public, kube-node-lease) are compared too.
func ServiceAccountScenario() Scenario {
	return Scenario{
		Name:        "serviceaccount",
		Record:      []rest.Resource{rest.ServiceAccounts},
		ClusterWide: true,
		Run: func(ctx context.Context, env *Env) error {
			nss := rest.NewResources(env.Client, rest.Namespaces, decode.Typed[api.Namespace]())
			sas := rest.NewResources(env.Client, rest.ServiceAccounts, decode.Typed[api.ServiceAccount]())
			names := []string{"difftest-sa-1", "difftest-sa-2", "difftest-sa-3"}
			for _, n := range names {
				if _, err := nss.Create(ctx, &api.Namespace{ObjectMeta: api.ObjectMeta{Name: n}}); err != nil {
					return fmt.Errorf("create namespace %s: %w", n, err)
				}
			}
			first := map[string]string{}
			for _, n := range names {
				sa, err := waitServiceAccount(ctx, sas.InNamespace(n), "default", "")
				if err != nil {
					return err
				}
				first[n] = sa.UID
			}
			victim := names[1]
			if err := sas.InNamespace(victim).Delete(ctx, "default", rest.DeleteOptions{}); err != nil {
				return fmt.Errorf("delete %s/default: %w", victim, err)
			}
			_, err := waitServiceAccount(ctx, sas.InNamespace(victim), "default", first[victim])
			return err
		},
	}
}

// waitServiceAccount waits until the account exists with a UID other
// than notUID, by a list then a watch from the list's resourceVersion.
func waitServiceAccount(ctx context.Context, sas *rest.Resources[*api.ServiceAccount], name, notUID string) (*api.ServiceAccount, error) {
	sel := "metadata.name=" + name
	list, err := sas.List(ctx, rest.ListOptions{FieldSelector: sel})
	if err != nil {
		return nil, err
	}
	for _, sa := range list.Items {
		if sa.UID != notUID {
			return sa, nil
		}
	}
	w, err := sas.Watch(ctx, rest.WatchOptions{ListOptions: rest.ListOptions{
		FieldSelector: sel, ResourceVersion: list.ResourceVersion, TimeoutSeconds: watchTimeoutSeconds}})
	if err != nil {
		return nil, err
	}
	defer w.Close()
	for {
		ev, err := w.Next()
		if err != nil {
			return nil, fmt.Errorf("waiting for ServiceAccount %s/%s: %w", sas.Namespace(), name, err)
		}
		if (ev.Type == rest.Added || ev.Type == rest.Modified) && ev.Object.UID != notUID {
			return ev.Object, nil
		}
	}
}

// workloadResources are what the workload scenarios record.
var workloadResources = []rest.Resource{rest.Deployments, rest.ReplicaSets, rest.Pods}

// ScaleScenario creates a Deployment of 3, waits until it is complete,
// then scales it to 5, to 0 and back to 3, each time until complete.
func ScaleScenario() Scenario {
	return Scenario{
		Name:   "scale",
		Record: workloadResources,
		Run: func(ctx context.Context, env *Env) error {
			deps := deployments(env)
			d, err := deps.Create(ctx, newDeployment(3, rollingStrategy("25%", "25%")))
			if err != nil {
				return err
			}
			if err := DriveUntilComplete(ctx, env, deploymentName, d.Generation, AllAtOnce); err != nil {
				return err
			}
			for _, n := range []int{5, 0, 3} {
				env.Observer.SetPhase(fmt.Sprintf("scale to %d", n))
				patch := fmt.Sprintf(`{"spec":{"replicas":%d}}`, n)
				d, err := deps.Patch(ctx, deploymentName, rest.MergePatch, []byte(patch), rest.PatchOptions{})
				if err != nil {
					return err
				}
				if err := DriveUntilComplete(ctx, env, deploymentName, d.Generation, AllAtOnce); err != nil {
					return err
				}
			}
			return nil
		},
	}
}

// Rolling-update parameters of RollingUpdateScenario.
const (
	rollingReplicas       = 4
	rollingMaxSurge       = 1
	rollingMaxUnavailable = 1
)

// RollingUpdateScenario creates a Deployment of 4 (maxSurge 1,
// maxUnavailable 1), waits until it is complete, changes its image, and
// drives the rollout one Ready pod at a time until it is complete.
func RollingUpdateScenario() Scenario {
	return Scenario{
		Name:   "rolling-update",
		Record: workloadResources,
		Run: func(ctx context.Context, env *Env) error {
			return rollout(ctx, env, rollingStrategy(fmt.Sprint(rollingMaxSurge), fmt.Sprint(rollingMaxUnavailable)),
				rollingReplicas, OneAtATime)
		},
		Check: func(side string, tl Timeline) []Difference {
			d := CheckInvariants(side, tl, RollingInvariants("rollout", rollingReplicas, rollingMaxUnavailable))
			return append(d, SpecBound(side, tl, "rollout", rollingReplicas+rollingMaxSurge)...)
		},
	}
}

// RecreateScenario creates a Deployment of 3 with the Recreate strategy,
// waits until it is complete, changes its image and drives the rollout
// until it is complete.
func RecreateScenario() Scenario {
	return Scenario{
		Name:   "recreate",
		Record: workloadResources,
		Run: func(ctx context.Context, env *Env) error {
			return rollout(ctx, env, api.DeploymentStrategy{Type: api.RecreateDeploymentStrategyType}, 3, AllAtOnce)
		},
		Check: func(side string, tl Timeline) []Difference {
			return CheckInvariants(side, tl, RecreateInvariants("rollout"))
		},
	}
}

// rollout creates the Deployment at ImageV1, completes it, then switches
// it to ImageV2 (phase "rollout") and completes that.
func rollout(ctx context.Context, env *Env, strategy api.DeploymentStrategy, replicas int32, mode Readiness) error {
	deps := deployments(env)
	d, err := deps.Create(ctx, newDeployment(replicas, strategy))
	if err != nil {
		return err
	}
	if err := DriveUntilComplete(ctx, env, deploymentName, d.Generation, AllAtOnce); err != nil {
		return err
	}
	env.Observer.SetPhase("rollout")
	patch := fmt.Sprintf(`{"spec":{"template":{"spec":{"containers":[{"name":"web","image":%q}]}}}}`, ImageV2)
	d, err = deps.Patch(ctx, deploymentName, rest.StrategicMergePatch, []byte(patch), rest.PatchOptions{})
	if err != nil {
		return err
	}
	return DriveUntilComplete(ctx, env, deploymentName, d.Generation, mode)
}

func deployments(env *Env) *rest.Resources[*api.Deployment] {
	return rest.NewResources(env.Client, rest.Deployments, decode.Typed[api.Deployment]()).InNamespace(env.Namespace)
}

// rollingStrategy is a RollingUpdate strategy with the given bounds
// (counts or percentages).
func rollingStrategy(maxSurge, maxUnavailable string) api.DeploymentStrategy {
	return api.DeploymentStrategy{
		Type: api.RollingUpdateDeploymentStrategyType,
		RollingUpdate: &api.RollingUpdateDeployment{
			MaxSurge:       intOrString(maxSurge),
			MaxUnavailable: intOrString(maxUnavailable),
		},
	}
}

// intOrString is a count ("1") or a percentage ("25%").
func intOrString(s string) *api.IntOrString {
	var n int32
	if _, err := fmt.Sscanf(s, "%d", &n); err == nil && fmt.Sprint(n) == s {
		v := api.IntOrStringFromInt(n)
		return &v
	}
	v := api.IntOrStringFromString(s)
	return &v
}

// newDeployment is the scenarios' Deployment "web" at ImageV1.
func newDeployment(replicas int32, strategy api.DeploymentStrategy) *api.Deployment {
	labels := map[string]string{"app": deploymentName}
	return &api.Deployment{
		ObjectMeta: api.ObjectMeta{Name: deploymentName},
		Spec: api.DeploymentSpec{
			Replicas: &replicas,
			Selector: &api.LabelSelector{MatchLabels: labels},
			Strategy: strategy,
			Template: api.PodTemplateSpec{
				ObjectMeta: api.ObjectMeta{Labels: labels},
				Spec:       api.PodSpec{Containers: []api.Container{{Name: "web", Image: ImageV1}}},
			},
		},
	}
}

// The stalled rollout: a Deployment of 10 with maxSurge and maxUnavailable
// 25% switches image and none of the new pods ever becomes Ready. Kubernetes
// rounds the surge up (3) and the unavailability down (2), so the rollout
// stops at old 8 + new 5 = 13 = 10 + surge, with 8 = 10 − unavailable old
// pods still available. Unlike RollingUpdateScenario, whose driver makes
// pods Ready one at a time, this one shows how far each manager goes on
// its own, so a controller stricter or laxer than Kubernetes' bounds ends
// elsewhere.
const (
	stalledReplicas = 10
	stalledOld      = 8
	stalledNew      = 5
)

// StalledRolloutScenario is the scenario described above.
func StalledRolloutScenario() Scenario {
	return Scenario{
		Name:   "stalled-rollout",
		Record: workloadResources,
		Run: func(ctx context.Context, env *Env) error {
			deps := deployments(env)
			d, err := deps.Create(ctx, newDeployment(stalledReplicas, rollingStrategy("25%", "25%")))
			if err != nil {
				return err
			}
			if err := DriveUntilComplete(ctx, env, deploymentName, d.Generation, AllAtOnce); err != nil {
				return err
			}
			env.Observer.SetPhase("rollout")
			patch := fmt.Sprintf(`{"spec":{"template":{"spec":{"containers":[{"name":"web","image":%q}]}}}}`, ImageV2)
			if _, err := deps.Patch(ctx, deploymentName, rest.StrategicMergePatch, []byte(patch), rest.PatchOptions{}); err != nil {
				return err
			}
			wctx, cancel := context.WithTimeout(ctx, 60*time.Second)
			defer cancel()
			return env.Observer.WaitFor(wctx, fmt.Sprintf("the stalled rollout to settle at old %d + new %d", stalledOld, stalledNew),
				func(v View) bool { return stalledAt(v, stalledOld, stalledNew) })
		},
		Check: func(side string, tl Timeline) []Difference {
			return SpecBound(side, tl, "rollout", stalledReplicas+3)
		},
	}
}

// stalledAt reports whether the Deployment's ReplicaSets are settled with
// old and new replicas (by image).
func stalledAt(v View, old, new int32) bool {
	d := v.Deployments[deploymentName]
	if d == nil || !Settled(v, deploymentName) {
		return false
	}
	var gotOld, gotNew int32
	for _, rs := range ownedReplicaSets(v, d) {
		n := int32(1)
		if rs.Spec.Replicas != nil {
			n = *rs.Spec.Replicas
		}
		if len(rs.Spec.Template.Spec.Containers) > 0 && rs.Spec.Template.Spec.Containers[0].Image == ImageV2 {
			gotNew += n
		} else {
			gotOld += n
		}
	}
	return gotOld == old && gotNew == new
}

// RejectedTemplateScenario creates a Deployment of 3 whose pods the
// apiserver refuses (their ServiceAccount does not exist: ServiceAccount
// admission rejects such a pod, while the Deployment and its ReplicaSet are
// accepted) and waits until both managers' controllers have said so: the
// ReplicaSet's ReplicaFailure condition (reason FailedCreate, the
// apiserver's message) copied to the Deployment, with every other status
// field and condition as the controllers leave them. The controllers keep
// retrying with backoff; what is compared is where they settle.
func RejectedTemplateScenario() Scenario {
	return Scenario{
		Name:   "rejected-template",
		Record: workloadResources,
		Run: func(ctx context.Context, env *Env) error {
			d := newDeployment(3, rollingStrategy("25%", "25%"))
			d.Spec.Template.Spec.ServiceAccountName = "missing"
			if _, err := deployments(env).Create(ctx, d); err != nil {
				return err
			}
			wctx, cancel := context.WithTimeout(ctx, 60*time.Second)
			defer cancel()
			return env.Observer.WaitFor(wctx, "the ReplicaFailure condition on the Deployment and its ReplicaSet", replicaFailureShown)
		},
	}
}

// replicaFailureShown: the Deployment has observed its generation and
// carries ReplicaFailure, and so does its one ReplicaSet, with no pod.
func replicaFailureShown(v View) bool {
	d := v.Deployments[deploymentName]
	if d == nil || d.Status.ObservedGeneration != d.Generation || len(v.Pods) != 0 {
		return false
	}
	found := false
	for _, c := range d.Status.Conditions {
		found = found || c.Type == api.DeploymentReplicaFailure
	}
	rss := ownedReplicaSets(v, d)
	if !found || len(rss) != 1 {
		return false
	}
	for _, c := range rss[0].Status.Conditions {
		if c.Type == api.ReplicaSetReplicaFailure {
			return rss[0].Status.ObservedGeneration == rss[0].Generation
		}
	}
	return false
}
