//go:build !nocluster

package deployment_test

import (
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/rs/zerolog"

	"github.com/kcmlab/kcm/ctrl"
	"github.com/kcmlab/kcm/ctrl/deployment"
	"github.com/kcmlab/kcm/ctrl/replicaset"
	"github.com/kcmlab/kcm/internal/testing/difftest"
	"github.com/kcmlab/kcm/kube/api/decode"
	"github.com/kcmlab/kcm/kube/rest"
	"github.com/kcmlab/kcm/testenv"
)

// The rule these tests check (issue 34): the pod-template-hash kcm
// computes depends on the encoding it reads (ComputeHash over the JSON,
// ComputeHashProto over the protobuf message), but the current
// ReplicaSet is found by comparing templates, so a controller-manager
// that takes a Deployment over from another — kcm on the other encoding,
// or kube-controller-manager from kcm on protobuf — finds the other's
// ReplicaSet as current: scaling the Deployment creates no ReplicaSet and
// replaces no pod.

// switchDeployment is a Deployment with what a template may carry that
// kcm does not model (dnsConfig, a container's lifecycle) and empty
// objects (pod and container securityContext, resources), created as
// JSON so that nothing is lost on the way in.
const switchDeployment = `{"apiVersion":"apps/v1","kind":"Deployment","metadata":{"name":"web"},` +
	`"spec":{"replicas":2,"selector":{"matchLabels":{"app":"web"}},` +
	`"strategy":{"type":"RollingUpdate","rollingUpdate":{"maxSurge":"25%","maxUnavailable":"25%"}},` +
	`"template":{"metadata":{"labels":{"app":"web"}},"spec":{"securityContext":{},` +
	`"dnsConfig":{"options":[{"name":"ndots","value":"2"}]},` +
	`"containers":[{"name":"web","image":"registry.k8s.io/pause:3.10","securityContext":{},"resources":{},` +
	`"lifecycle":{"preStop":{"sleep":{"seconds":1}}}}]}}}}`

// switchScenario creates switchDeployment and drives it to complete.
func switchScenario(name string) difftest.Scenario {
	return difftest.Scenario{
		Name:   name,
		Record: []rest.Resource{rest.Deployments, rest.ReplicaSets, rest.Pods},
		Run: func(ctx context.Context, env *difftest.Env) error {
			obj, err := decode.Raw().Decode([]byte(switchDeployment))
			if err != nil {
				return err
			}
			d, err := rest.NewResources(env.Client, rest.Deployments, decode.Raw()).InNamespace(env.Namespace).Create(ctx, obj)
			if err != nil {
				return fmt.Errorf("create the Deployment: %w", err)
			}
			return difftest.DriveUntilComplete(ctx, env, "web", d.Generation, difftest.AllAtOnce)
		},
	}
}

// kcmOn is kcm's deployment and replicaset controllers with their clients
// on contentType.
func kcmOn(contentType string) difftest.Manager {
	return &difftest.InProcess{
		Descriptors: func() []*ctrl.ControllerDescriptor {
			return []*ctrl.ControllerDescriptor{replicaset.Descriptor(), deployment.Descriptor()}
		},
		Args: []string{"--kube-api-content-type=" + contentType},
	}
}

// TestEncodingSwitchStartsNoRollout: kcm on JSON rolls a Deployment out,
// kcm on protobuf takes over, and the reverse; and kube-controller-manager
// takes over from kcm on protobuf. Each on a fresh cluster.
func TestEncodingSwitchStartsNoRollout(t *testing.T) {
	const pb, js = rest.ContentTypeProtobuf, "application/json"
	t.Run("kcm on JSON to kcm on protobuf", func(t *testing.T) { testSwitch(t, kcmOn(js), kcmOn(pb)) })
	t.Run("kcm on protobuf to kcm on JSON", func(t *testing.T) { testSwitch(t, kcmOn(pb), kcmOn(js)) })
	t.Run("kcm on protobuf to kube-controller-manager", func(t *testing.T) {
		testSwitch(t, kcmOn(pb), &difftest.KubeControllerManager{
			Controllers: []string{"deployment-controller", "replicaset-controller", "serviceaccount-controller"}})
	})
}

// testSwitch: first rolls switchDeployment out and stops; second starts,
// the Deployment is scaled from 2 to 3, and second must scale first's
// ReplicaSet: no ReplicaSet made or deleted, no pod replaced, the new pod
// of first's ReplicaSet, its spec with the template's empty objects and
// unmodelled fields.
func testSwitch(t *testing.T, first, second difftest.Manager) {
	ctx, cancel := context.WithTimeout(context.Background(), 4*time.Minute)
	defer cancel()
	c, err := testenv.Start(ctx, testenv.Options{Logger: zerolog.Nop()})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Stop()
	const ns = "encoding-switch"
	if _, err := difftest.RunScenarios(ctx, c, first, switchScenario(ns)); err != nil {
		t.Fatal(err)
	}
	client, err := rest.NewClient(c.Config())
	if err != nil {
		t.Fatal(err)
	}
	defer client.CloseIdleConnections()
	obs, err := difftest.Observe(ctx, client, ns)
	if err != nil {
		t.Fatal(err)
	}
	defer obs.Stop()
	var beforeRS, beforePods map[string]string
	if err := obs.WaitFor(ctx, "the first rollout", func(v difftest.View) bool {
		beforeRS, beforePods = difftest.UIDs(v.ReplicaSets), difftest.UIDs(v.Pods)
		return difftest.Complete(v, "web")
	}); err != nil {
		t.Fatal(err)
	}
	if len(beforeRS) != 1 || len(beforePods) != 2 {
		t.Fatalf("%s left ReplicaSets %v and pods %v", first.Name(), beforeRS, beforePods)
	}
	rsName := slices.Collect(maps.Keys(beforeRS))[0]

	stop, err := second.Start(ctx, c)
	if err != nil {
		t.Fatal(err)
	}
	defer func() {
		if err := stop(); err != nil {
			t.Errorf("stop %s: %v", second.Name(), err)
		}
	}()
	d, err := rest.NewResources(client, rest.Deployments, decode.Raw()).InNamespace(ns).Patch(ctx, "web", rest.MergePatch,
		[]byte(`{"spec":{"replicas":3}}`), rest.PatchOptions{})
	if err != nil {
		t.Fatal(err)
	}
	var changed map[string]string
	if err := obs.WaitFor(ctx, second.Name()+" to scale to 3", func(v difftest.View) bool {
		if got := difftest.UIDs(v.ReplicaSets); !maps.Equal(got, beforeRS) {
			changed = got
			return true
		}
		dep := v.Deployments["web"]
		return dep != nil && dep.Status.ObservedGeneration >= d.Generation && difftest.Settled(v, "web") && dep.Status.Replicas == 3
	}); err != nil {
		t.Fatal(err)
	}
	if changed != nil {
		t.Fatalf("%s made or deleted a ReplicaSet: %v, then %v (a rollout)", second.Name(), beforeRS, changed)
	}
	env := &difftest.Env{Cluster: c, Client: client, Namespace: ns, Observer: obs}
	if err := difftest.DriveUntilComplete(ctx, env, "web", d.Generation, difftest.AllAtOnce); err != nil {
		t.Fatal(err)
	}
	afterPods, newPods, err := difftest.KeptWorkload(obs, beforeRS, beforePods, rsName)
	if err != nil {
		t.Fatal(err)
	}
	if len(afterPods) != 3 || len(newPods) != 1 {
		t.Fatalf("pods %v, new ones of %s %v", afterPods, rsName, newPods)
	}
	pod, err := rest.NewResources(client, rest.Pods, decode.Raw()).InNamespace(ns).Get(ctx, newPods[0])
	if err != nil {
		t.Fatal(err)
	}
	for _, member := range []string{`"securityContext":{}`, `"resources":{}`, `"dnsConfig":{"options":[{"name":"ndots","value":"2"}]}`,
		`"lifecycle":{"preStop":{"sleep":{"seconds":1}}}`} {
		if !strings.Contains(string(pod.Raw()), member) {
			t.Errorf("the pod %s made lacks %s: %s", second.Name(), member, pod.Raw())
		}
	}
	var spec struct {
		Spec struct {
			SecurityContext *struct{} `json:"securityContext"`
		} `json:"spec"`
	}
	if err := json.Unmarshal(pod.Raw(), &spec); err != nil || spec.Spec.SecurityContext == nil {
		t.Errorf("the pod's securityContext is absent (%v)", err)
	}
	t.Logf("%s scaled %s's ReplicaSet %s; new pod %s", second.Name(), first.Name(), rsName, newPods[0])
}
