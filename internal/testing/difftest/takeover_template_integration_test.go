//go:build !nocluster

package difftest

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

	"github.com/kcmlab/kcm/kube/api"
	"github.com/kcmlab/kcm/kube/api/decode"
	"github.com/kcmlab/kcm/kube/rest"
	"github.com/kcmlab/kcm/testenv"
)

// The rule these tests check (issue 25): a controller-manager that takes a
// cluster over from another recognises the other's ReplicaSet as the
// Deployment's current one when their pod templates are the same, and the
// templates it writes are the same templates in the other's eyes.
// Kubernetes finds the current ReplicaSet with deploymentutil's
// FindNewReplicaSet, which compares templates with EqualIgnoreHash:
// equality.Semantic.DeepEqual on the Go values, the pod-template-hash label
// left out. As Go values a container's "securityContext": {} is a non-nil
// pointer to an empty struct and differs from an absent one; so a template
// copied without its empty objects is a different template, and
// kube-controller-manager answers it with a rollout (a second ReplicaSet,
// every pod replaced). kcm used to drop empty objects when it made a
// ReplicaSet from a Deployment, and to hold {} equal to nothing.
//
// The template of emptyObjectsDeployment carries what a `helm create`
// chart or upstream's e2e framework writes: an empty pod and container
// securityContext, empty container resources, "ports": [] (which the
// apiserver stores as nothing), and fields kcm's typed PodSpec does not
// model (affinity with a nodeAffinity preference, topologySpreadConstraints).
// It is created as raw JSON, so that nothing is lost on the way in. The
// pod-level securityContext is checked too, though the apiserver defaults
// an absent one to {} (SetDefaults_PodSpec), so losing it cannot show; the
// container's is the one a controller can lose.

// emptyObjectsScenarioName is the scenario's namespace.
const emptyObjectsScenarioName = "takeover-empty-objects"

// Replicas of the Deployment before and after the second manager scales it.
const (
	emptyObjectsReplicas = 2
	emptyObjectsScaledTo = 3
)

// emptyObjectsDeployment is the Deployment "web" described above, as JSON.
var emptyObjectsDeployment = `{"apiVersion":"apps/v1","kind":"Deployment","metadata":{"name":"` + deploymentName + `"},` +
	`"spec":{"replicas":` + fmt.Sprint(emptyObjectsReplicas) + `,"selector":{"matchLabels":{"app":"web"}},` +
	`"strategy":{"type":"RollingUpdate","rollingUpdate":{"maxSurge":"25%","maxUnavailable":"25%"}},` +
	`"template":{"metadata":{"labels":{"app":"web"}},"spec":{` +
	`"securityContext":{},` +
	`"affinity":{"nodeAffinity":{"preferredDuringSchedulingIgnoredDuringExecution":[` +
	`{"weight":10,"preference":{"matchExpressions":[{"key":"disktype","operator":"In","values":["ssd"]}]}}]}},` +
	`"topologySpreadConstraints":[{"maxSkew":1,"topologyKey":"kubernetes.io/hostname",` +
	`"whenUnsatisfiable":"ScheduleAnyway","labelSelector":{"matchLabels":{"app":"web"}}}],` +
	`"containers":[{"name":"web","image":"` + ImageV1 + `","securityContext":{},"resources":{},"ports":[]}]}}}}`

// emptyObjectsScenario creates emptyObjectsDeployment through kcm's REST
// client as a raw object and drives it until complete.
func emptyObjectsScenario() Scenario {
	return Scenario{
		Name:   emptyObjectsScenarioName,
		Record: workloadResources,
		Run: func(ctx context.Context, env *Env) error {
			obj, err := decode.Raw().Decode([]byte(emptyObjectsDeployment))
			if err != nil {
				return err
			}
			d, err := rest.NewResources(env.Client, rest.Deployments, decode.Raw()).InNamespace(env.Namespace).Create(ctx, obj)
			if err != nil {
				return fmt.Errorf("create the Deployment: %w", err)
			}
			return DriveUntilComplete(ctx, env, deploymentName, d.Generation, AllAtOnce)
		},
	}
}

// TestTakeoverKeepsEmptyTemplateObjects checks the rule above in both
// directions, each on a fresh cluster: one manager rolls the Deployment
// out and stops, the other starts and the Deployment is scaled from 2 to 3.
// The second manager must find the first one's ReplicaSet as current
// (FindNewReplicaSet / EqualIgnoreHash) and scale it: no ReplicaSet created
// or deleted, no pod replaced; the ReplicaSet's template and the pod made
// for the scale-up carry the empty objects and the unmodelled fields.
//
// "kcm to kube-controller-manager" is the direction issue 25 was found in:
// without the fix, kube-controller-manager made a second ReplicaSet within
// seconds of starting, because kcm's ReplicaSet had lost the template's
// securityContexts.
func TestTakeoverKeepsEmptyTemplateObjects(t *testing.T) {
	ref := func() Manager {
		return &KubeControllerManager{Controllers: []string{kcmDeployment, kcmReplicaSet, kcmServiceAccount}}
	}
	kcm := func() Manager { return &InProcess{Descriptors: kcmControllers} }
	t.Run("kube-controller-manager to kcm", func(t *testing.T) { testTakeoverKeepsEmptyObjects(t, ref(), kcm()) })
	t.Run("kcm to kube-controller-manager", func(t *testing.T) { testTakeoverKeepsEmptyObjects(t, kcm(), ref()) })
}

// testTakeoverKeepsEmptyObjects: first rolls emptyObjectsDeployment out on
// a fresh cluster and stops; second starts and the Deployment is scaled to
// emptyObjectsScaledTo. See TestTakeoverKeepsEmptyTemplateObjects.
func testTakeoverKeepsEmptyObjects(t *testing.T, first, second Manager) {
	name1, name2 := shortName(first), shortName(second)
	ctx, cancel := context.WithTimeout(context.Background(), 4*time.Minute)
	defer cancel()
	c, err := testenv.Start(ctx, testenv.Options{Logger: zerolog.Nop(), AuditWrites: true})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Stop()
	began := time.Now()
	if _, err := RunScenarios(ctx, c, first, emptyObjectsScenario()); err != nil {
		t.Fatal(err)
	}
	t.Logf("%s rolled the Deployment out and stopped in %s", name1, time.Since(began).Round(time.Millisecond))
	client, err := rest.NewClient(c.Config())
	if err != nil {
		t.Fatal(err)
	}
	defer client.CloseIdleConnections()
	ns := emptyObjectsScenarioName
	obs, err := Observe(ctx, client, ns)
	if err != nil {
		t.Fatal(err)
	}
	defer obs.Stop()
	var beforeRS, beforePods map[string]string // name → uid
	if err := obs.WaitFor(ctx, "the rollout "+name1+" left", func(v View) bool {
		beforeRS, beforePods = UIDs(v.ReplicaSets), UIDs(v.Pods)
		return Complete(v, deploymentName)
	}); err != nil {
		t.Fatal(err)
	}
	if len(beforeRS) != 1 || len(beforePods) != emptyObjectsReplicas {
		t.Fatalf("%s left ReplicaSets %v and pods %v; want one ReplicaSet of %d pods", name1,
			beforeRS, slices.Sorted(maps.Keys(beforePods)), emptyObjectsReplicas)
	}
	rsName := slices.Collect(maps.Keys(beforeRS))[0]
	rss := rest.NewResources(client, rest.ReplicaSets, decode.Raw()).InNamespace(ns)
	pods := rest.NewResources(client, rest.Pods, decode.Raw()).InNamespace(ns)
	for _, lost := range lostFromTemplate(ctx, t, rss, rsName) {
		t.Errorf("the ReplicaSet %s made: %s", name1, lost)
	}

	stop, err := second.Start(ctx, c)
	if err != nil {
		t.Fatal(err)
	}
	stop = audited(t, c, second, stop, ns)
	defer func() {
		if err := stop(); err != nil {
			t.Errorf("stop %s: %v", name2, err)
		}
	}()
	d, err := deployments(&Env{Client: client, Namespace: ns}).Patch(ctx, deploymentName, rest.MergePatch,
		[]byte(fmt.Sprintf(`{"spec":{"replicas":%d}}`, emptyObjectsScaledTo)), rest.PatchOptions{})
	if err != nil {
		t.Fatal(err)
	}

	// Wait until second has synced the scaled Deployment and its
	// ReplicaSets count the new pod, or has made or deleted a ReplicaSet:
	// a rollout shows as a new ReplicaSet long before it completes.
	var changed map[string]string
	if err := obs.WaitFor(ctx, fmt.Sprintf("%s to scale the Deployment to %d", name2, emptyObjectsScaledTo), func(v View) bool {
		if got := UIDs(v.ReplicaSets); !maps.Equal(got, beforeRS) {
			changed = got
			return true
		}
		dep := v.Deployments[deploymentName]
		return dep != nil && dep.Status.ObservedGeneration >= d.Generation && Settled(v, deploymentName) &&
			dep.Status.Replicas == emptyObjectsScaledTo
	}); err != nil {
		t.Fatal(err)
	}
	if changed != nil {
		t.Fatalf("%s took over ReplicaSets %v and made or deleted one: now %v (a new ReplicaSet is a rollout)",
			name2, beforeRS, changed)
	}
	// Make the new pod Ready and wait for the Deployment to be complete
	// again: the status that says so is written by a sync after the
	// scale-up (one that looks for the current ReplicaSet and would make
	// one), so a rollout second would start cannot be missed.
	env := &Env{Cluster: c, Client: client, Namespace: ns, Observer: obs}
	if err := DriveUntilComplete(ctx, env, deploymentName, d.Generation, AllAtOnce); err != nil {
		t.Fatal(err)
	}
	afterPods, newPods, err := KeptWorkload(obs, beforeRS, beforePods, rsName)
	if err != nil {
		t.Fatal(err)
	}
	if len(afterPods) != emptyObjectsScaledTo || len(newPods) != 1 {
		t.Fatalf("after scaling %v to %d: pods %v, of them new and owned by %s: %v", slices.Sorted(maps.Keys(beforePods)),
			emptyObjectsScaledTo, slices.Sorted(maps.Keys(afterPods)), rsName, newPods)
	}
	for _, lost := range lostFromTemplate(ctx, t, rss, rsName) {
		t.Errorf("the ReplicaSet after %s scaled it: %s", name2, lost)
	}
	obj, err := pods.Get(ctx, newPods[0])
	if err != nil {
		t.Fatal(err)
	}
	for _, lost := range lostFromPodSpec(t, obj, "spec") {
		t.Errorf("the pod %s made for the scale-up, %s: %s", name2, newPods[0], lost)
	}
	t.Logf("%s scaled %s's ReplicaSet %s; pods %v + %s", name2, name1, rsName,
		slices.Sorted(maps.Keys(beforePods)), newPods[0])
}

// shortName names a side in messages: "kcm" or "kube-controller-manager".
func shortName(m Manager) string {
	if _, ok := m.(*InProcess); ok {
		return "kcm"
	}
	return "kube-controller-manager"
}

// lostFromTemplate reads ReplicaSet name from the apiserver and returns
// what its spec.template.spec lacks of emptyObjectsDeployment's template.
func lostFromTemplate(ctx context.Context, t *testing.T, rss *rest.Resources[*api.RawObject], name string) []string {
	t.Helper()
	rs, err := rss.Get(ctx, name)
	if err != nil {
		t.Fatal(err)
	}
	return lostFromPodSpec(t, rs, "spec", "template", "spec")
}

// lostFromPodSpec returns, for the pod spec at path in obj's JSON, each of
// emptyObjectsDeployment's empty objects (as {}) and unmodelled fields
// that it lacks or holds otherwise.
func lostFromPodSpec(t *testing.T, obj *api.RawObject, path ...string) []string {
	t.Helper()
	var m map[string]any
	if err := json.Unmarshal(obj.Raw(), &m); err != nil {
		t.Fatalf("decode %s: %v", obj.Name, err)
	}
	spec := m
	for _, k := range path {
		spec, _ = spec[k].(map[string]any)
	}
	var lost []string
	where := func(p string) string { return strings.Join(path, ".") + "." + p }
	wantEmpty := func(p string, v any) {
		if o, ok := v.(map[string]any); !ok || len(o) != 0 {
			lost = append(lost, fmt.Sprintf("%s is %s, want {}", where(p), jsonOf(v)))
		}
	}
	wantEmpty("securityContext", spec["securityContext"])
	containers, _ := spec["containers"].([]any)
	var c0 map[string]any
	if len(containers) > 0 {
		c0, _ = containers[0].(map[string]any)
	}
	wantEmpty("containers[0].securityContext", c0["securityContext"])
	wantEmpty("containers[0].resources", c0["resources"])
	aff, _ := spec["affinity"].(map[string]any)
	na, _ := aff["nodeAffinity"].(map[string]any)
	if prefs, _ := na["preferredDuringSchedulingIgnoredDuringExecution"].([]any); len(prefs) != 1 {
		lost = append(lost, fmt.Sprintf("%s is %s, want one preference", where("affinity"), jsonOf(spec["affinity"])))
	}
	if tsc, _ := spec["topologySpreadConstraints"].([]any); len(tsc) != 1 {
		lost = append(lost, fmt.Sprintf("%s is %s, want one constraint", where("topologySpreadConstraints"),
			jsonOf(spec["topologySpreadConstraints"])))
	}
	return lost
}

// jsonOf renders v for a message; an absent (or null) member is "absent".
func jsonOf(v any) string {
	if v == nil {
		return "absent"
	}
	b, err := json.Marshal(v)
	if err != nil {
		return fmt.Sprint(v)
	}
	return string(b)
}
