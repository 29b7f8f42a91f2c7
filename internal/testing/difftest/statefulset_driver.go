package difftest

import (
	"context"
	"fmt"
	"sort"
	"strings"
	"time"

	"github.com/kcmlab/kcm/kube/api"
	"github.com/kcmlab/kcm/kube/api/decode"
	"github.com/kcmlab/kcm/kube/rest"
	"github.com/kcmlab/kcm/testenv"
)

// The StatefulSet scenarios run on a cluster with kube-scheduler, one kwok
// node and testenv's claim binder (StatefulSetClusterOptions): kwok plays
// the kubelet (a scheduled pod gets an IP, becomes Running and Ready; a pod
// marked for deletion is deleted), the claim binder plays the volume binder
// (every claim is bound to a volume of its own, so kube-scheduler accepts
// the pods that use it) and pvc-protection. One node, so that every pod's
// nodeName is the same in every run.
//
// A scenario acts, then waits until the StatefulSet has settled at what it
// asked for (setGoal: the controller has observed the set's generation, its
// status counts exactly the pods there are, every pod is Ready, none is
// terminating); only then does it act again. What the controller did in
// between — the steps SetWatch logs — is recorded in the timeline's States
// stream, which Compare compares exactly: one line "N steps" then the steps,
// per phase. With OrderedReady the steps come one at a time, each waiting
// for the last pod to be Ready, so their order is the controller's
// algorithm's and is compared as it is; with Parallel the controller
// creates and deletes in concurrent batches (upstream's slowStartBatch), so
// a phase's steps are sorted first and compared as a set.
//
// At the end the StatefulSet's Events (involvedObject kind StatefulSet:
// every Event the StatefulSet controller records is about the set) are
// recorded in the States stream too, one line per Event — type, reason,
// message and count — sorted.

// StatefulSetClusterOptions are the options of the StatefulSet scenarios'
// clusters: kube-scheduler, one kwok node, the claim binder.
func StatefulSetClusterOptions() testenv.Options {
	return testenv.Options{Nodes: []testenv.NodeSpec{{Name: "node-a"}}, ClaimBinder: true, AuditWrites: true}
}

// revisionHashLabel is the pod label naming the ControllerRevision a pod
// was made from (apps/v1 ControllerRevisionHashLabelKey).
const revisionHashLabel = "controller-revision-hash"

// setName is the StatefulSet of the single-set scenarios.
const setName = "web"

// statefulSetResources are what the StatefulSet scenarios record.
var statefulSetResources = []rest.Resource{rest.StatefulSets, rest.Pods, rest.PersistentVolumeClaims, rest.ControllerRevisions}

// setDriver drives one scenario's StatefulSets.
type setDriver struct {
	env     *Env
	watch   *SetWatch
	sets    *rest.Resources[*api.StatefulSet]
	pods    *rest.Resources[*api.Pod]
	ordered bool // the steps' order is compared (OrderedReady); else sorted
	// eventful counts the controller's steps that Kubernetes records an
	// Event for; userDeletes the pods the scenario deleted itself.
	eventful, userDeletes int
}

// statefulSetScenario wraps a driver function as a Scenario: it starts the
// SetWatch, runs fn, and records the Events.
func statefulSetScenario(name string, ordered bool, fn func(ctx context.Context, d *setDriver) error) Scenario {
	return Scenario{
		Name:   name,
		Record: statefulSetResources,
		Run: func(ctx context.Context, env *Env) error {
			w, err := WatchStatefulSets(ctx, env.Client, env.Namespace)
			if err != nil {
				return err
			}
			defer w.Stop()
			d := &setDriver{env: env, watch: w, ordered: ordered,
				sets: rest.NewResources(env.Client, rest.StatefulSets, decode.Typed[api.StatefulSet]()).InNamespace(env.Namespace),
				pods: rest.NewResources(env.Client, rest.Pods, decode.Typed[api.Pod]()).InNamespace(env.Namespace)}
			if err := fn(ctx, d); err != nil {
				return err
			}
			return d.recordEvents(ctx)
		},
	}
}

// setGoal is where a phase must leave a StatefulSet.
type setGoal struct {
	replicas int32
	// updated is how many pods must carry status.updateRevision.
	updated int32
	// claims, when not negative, is how many claims the namespace must
	// hold, none terminating.
	claims int
}

// create creates set, then settles at goal in phase "create".
func (d *setDriver) create(ctx context.Context, set *api.StatefulSet, g setGoal) error {
	d.env.Observer.SetPhase("create")
	s, err := d.sets.Create(ctx, set)
	if err != nil {
		return fmt.Errorf("create StatefulSet %s: %w", set.Name, err)
	}
	return d.settle(ctx, "create", s.Name, s.Generation, g)
}

// patch applies a strategic merge patch to set name in a new phase and
// settles at goal.
func (d *setDriver) patch(ctx context.Context, phase, name, patch string, g setGoal) error {
	d.env.Observer.SetPhase(phase)
	s, err := d.sets.Patch(ctx, name, rest.StrategicMergePatch, []byte(patch), rest.PatchOptions{})
	if err != nil {
		return fmt.Errorf("%s: patch StatefulSet %s: %w", phase, name, err)
	}
	return d.settle(ctx, phase, name, s.Generation, g)
}

// settle waits until set name, at generation gen or later, is at goal,
// then records the steps since the last phase.
func (d *setDriver) settle(ctx context.Context, phase, name string, gen int64, g setGoal) error {
	err := d.watch.WaitFor(ctx, fmt.Sprintf("%s: StatefulSet %s to settle at %+v", phase, name, g), func(v SetView) bool {
		return setReached(v, name, gen, g)
	})
	if err != nil {
		return err
	}
	d.recordSteps(d.ordered)
	return nil
}

// recordSteps records the steps logged since the last call in the
// observer's States stream, after a line with their number; in order
// (but for the claim runs sortClaimRuns sorts), or sorted.
func (d *setDriver) recordSteps(ordered bool) {
	steps := d.watch.Steps()
	lines := make([]string, len(steps))
	for i, s := range steps {
		lines[i] = s.Line
		if strings.HasPrefix(s.Line, "create pod ") || strings.HasPrefix(s.Line, "create claim ") || strings.HasPrefix(s.Line, "delete pod ") {
			d.eventful++
		}
	}
	d.eventful -= d.userDeletes
	d.userDeletes = 0
	if ordered {
		sortClaimRuns(lines)
	} else {
		sort.Strings(lines)
	}
	d.env.Observer.Record(fmt.Sprintf("%d steps", len(lines)))
	for _, l := range lines {
		d.env.Observer.Record(l)
	}
}

// sortClaimRuns sorts each run of consecutive steps with the same verb on
// the claims of one pod ("create claim data-web-1", "create claim
// logs-web-1"). Kubernetes handles a pod's claims by ranging over a Go map
// (getPersistentVolumeClaims in stateful_set_utils.go, used by
// createPersistentVolumeClaims and UpdatePodClaimForRetentionPolicy), and
// the garbage collector deletes a pod's claims concurrently, so the order
// among one pod's claims is random in kube-controller-manager itself; the
// order of everything else, the pods' order among them, stays. A claim's
// pod is its name after the template's (the scenarios' templates have no
// "-" in their names). First claimDeletionsAfterPods puts the garbage
// collector's claim deletions after their pod's deletion.
func sortClaimRuns(lines []string) {
	claimDeletionsAfterPods(lines)
	for i := 0; i < len(lines); {
		j := i + 1
		for g := claimRun(lines[i]); g != "" && j < len(lines) && claimRun(lines[j]) == g; j++ {
		}
		sort.Strings(lines[i:j])
		i = j
	}
	readyAfterReowns(lines)
}

// claimStep returns a claim step's verb and the claim's pod ("delete",
// "web-2" for "delete claim data-web-2"); "" for any other step.
func claimStep(l string) (verb, pod string) {
	f := strings.Fields(l)
	if len(f) < 3 || f[1] != "claim" {
		return "", ""
	}
	_, pod, _ = strings.Cut(strings.TrimSuffix(f[2], ":"), "-")
	return f[0], pod
}

// claimRun is the run a claim step belongs to: its verb and pod.
func claimRun(l string) string {
	verb, pod := claimStep(l)
	if verb == "" {
		return ""
	}
	return verb + " " + pod
}

// claimDeletionsAfterPods moves each "delete claim" step that comes after
// its pod's "delete pod" step (and before the pod's next creation or
// deletion) to just after it. The claims a retention policy hands to a
// condemned pod are deleted by the garbage collector once the pod is gone,
// and the StatefulSet controller's next step (with OrderedReady, deleting
// the next pod, also once the pod is gone) is answered to the same event:
// which of the two lands first is timing, in kube-controller-manager as in
// kcm. A claim deleted before its pod stays where it is, and shows.
func claimDeletionsAfterPods(lines []string) {
	out := make([]string, 0, len(lines))
	moved := make([]bool, len(lines))
	for i, l := range lines {
		if moved[i] {
			continue
		}
		out = append(out, l)
		pod, ok := strings.CutPrefix(l, "delete pod ")
		if !ok {
			continue
		}
		for j := i + 1; j < len(lines); j++ {
			if lines[j] == "delete pod "+pod || strings.HasPrefix(lines[j], "create pod "+pod+" ") {
				break
			}
			if verb, p := claimStep(lines[j]); !moved[j] && verb == "delete" && p == pod {
				out = append(out, lines[j])
				moved[j] = true
			}
		}
	}
	copy(lines, out)
}

// readyAfterReowns puts, in each run of consecutive "ready pod" and
// "reown claim" steps, the reowns first (in their order) and the ready
// steps after them. A pod turning Ready is kwok's doing, and the
// controller's sync that gives a new pod's claims their owners is
// answered to the pod's creation: which of the two lands first is timing,
// not behaviour. Everything else stays where it is.
func readyAfterReowns(lines []string) {
	isReady := func(l string) bool { return strings.HasPrefix(l, "ready pod ") }
	movable := func(l string) bool { return isReady(l) || strings.HasPrefix(l, "reown claim ") }
	for i := 0; i < len(lines); {
		j := i
		for j < len(lines) && movable(lines[j]) {
			j++
		}
		if j == i {
			i++
			continue
		}
		sort.SliceStable(lines[i:j], func(a, b int) bool { return !isReady(lines[i+a]) && isReady(lines[i+b]) })
		i = j
	}
}

// setReached reports whether set name is at generation gen or later and at
// goal g: observed, the revisions its status names seen, its status
// counting exactly its pods, all of them Ready and none terminating, g.updated of them at the update revision
// (and, when that is all of them under RollingUpdate, the update revision
// current), and the claims as g says.
func setReached(v SetView, name string, gen int64, g setGoal) bool {
	s, ok := v.Sets[name]
	if !ok || s.Generation < gen || s.Status.ObservedGeneration != s.Generation {
		return false
	}
	st := s.Status
	if st.Replicas != g.replicas || st.ReadyReplicas != g.replicas || st.AvailableReplicas != g.replicas || st.UpdatedReplicas != g.updated {
		return false
	}
	// The revisions the status names are seen: they were created before
	// the status was written, but on another watch.
	if v.Revisions[st.UpdateRevision] == nil || v.Revisions[st.CurrentRevision] == nil {
		return false
	}
	rolling := s.Spec.UpdateStrategy.Type != api.OnDeleteStatefulSetStrategyType
	if rolling && g.updated == g.replicas && st.CurrentRevision != st.UpdateRevision {
		return false
	}
	var n, updated int32
	for _, p := range v.Pods {
		if !p.IsControlledBy(s.UID) {
			continue
		}
		if p.DeletionTimestamp != nil || !api.IsPodReady(p) {
			return false
		}
		n++
		if p.Labels[revisionHashLabel] == st.UpdateRevision {
			updated++
		}
	}
	if n != g.replicas || updated != g.updated {
		return false
	}
	if g.claims >= 0 {
		if len(v.Claims) != g.claims {
			return false
		}
		for _, c := range v.Claims {
			if c.DeletionTimestamp != nil || c.Status.Phase != api.ClaimBound {
				return false
			}
		}
	}
	return true
}

// deletePod deletes a pod in a new phase.
func (d *setDriver) deletePod(ctx context.Context, phase, name string) error {
	d.env.Observer.SetPhase(phase)
	if err := d.pods.Delete(ctx, name, rest.DeleteOptions{}); err != nil {
		return fmt.Errorf("%s: delete pod %s: %w", phase, name, err)
	}
	d.userDeletes++
	return nil
}

// deleteSet deletes set name in a new phase (background propagation, the
// API's default for apps/v1) and waits until the set, its pods and every
// claim of the namespace are gone. The garbage collector deletes the pods
// and the claims the set owns concurrently, so the phase's steps are
// recorded sorted.
func (d *setDriver) deleteSet(ctx context.Context, phase, name string) error {
	d.env.Observer.SetPhase(phase)
	var uid string
	d.watch.Do(func(v SetView) {
		if s := v.Sets[name]; s != nil {
			uid = s.UID
		}
	})
	if err := d.sets.Delete(ctx, name, rest.DeleteOptions{}); err != nil {
		return fmt.Errorf("%s: delete StatefulSet %s: %w", phase, name, err)
	}
	err := d.watch.WaitFor(ctx, phase+": the set, its pods and the claims gone", func(v SetView) bool {
		if v.Sets[name] != nil || len(v.Claims) > 0 {
			return false
		}
		for _, p := range v.Pods {
			if p.IsControlledBy(uid) {
				return false
			}
		}
		return true
	})
	if err != nil {
		return err
	}
	d.recordSteps(false)
	return nil
}

// recordEvents records the Events about the namespace's StatefulSets, one
// sorted line each, in phase "events". The recorder writes Events
// asynchronously, so it first waits, at most eventWait, until the counts
// add up to the controller's steps that Kubernetes records an Event for
// (a pod created or deleted by the controller, a claim created); after
// that bound it records what there is, and a missing Event shows as a
// difference rather than a timeout.
func (d *setDriver) recordEvents(ctx context.Context) error {
	d.env.Observer.SetPhase("events")
	wctx, cancel := context.WithTimeout(ctx, eventWait)
	defer cancel()
	err := d.watch.WaitFor(wctx, fmt.Sprintf("%d Events", d.eventful), func(v SetView) bool { return v.EventCount >= d.eventful })
	if err != nil && ctx.Err() != nil {
		return err
	}
	lines, _ := d.watch.Events()
	d.env.Observer.Record(fmt.Sprintf("%d events", len(lines)))
	for _, l := range lines {
		d.env.Observer.Record(l)
	}
	return nil
}

// eventWait bounds the wait for the Events a scenario's steps imply.
const eventWait = 20 * time.Second

// newStatefulSet is a StatefulSet of replicas pods at ImageV1 with the
// given policy, serviceName = name, no claims.
func newStatefulSet(name string, replicas int32, policy api.PodManagementPolicyType) *api.StatefulSet {
	labels := map[string]string{"app": name}
	return &api.StatefulSet{
		ObjectMeta: api.ObjectMeta{Name: name},
		Spec: api.StatefulSetSpec{
			Replicas:            &replicas,
			Selector:            &api.LabelSelector{MatchLabels: labels},
			ServiceName:         name,
			PodManagementPolicy: policy,
			Template: api.PodTemplateSpec{
				ObjectMeta: api.ObjectMeta{Labels: labels},
				Spec:       api.PodSpec{Containers: []api.Container{{Name: "web", Image: ImageV1}}},
			},
		},
	}
}

// withClaims adds volumeClaimTemplates of 1Gi ReadWriteOnce with the given
// names, each mounted by the container.
func withClaims(s *api.StatefulSet, names ...string) *api.StatefulSet {
	for _, n := range names {
		s.Spec.VolumeClaimTemplates = append(s.Spec.VolumeClaimTemplates, api.PersistentVolumeClaim{
			ObjectMeta: api.ObjectMeta{Name: n},
			Spec: api.PersistentVolumeClaimSpec{AccessModes: []api.PersistentVolumeAccessMode{api.ReadWriteOnce},
				Resources: api.VolumeResourceRequirements{Requests: api.ResourceList{"storage": "1Gi"}}},
		})
		c := &s.Spec.Template.Spec.Containers[0]
		c.VolumeMounts = append(c.VolumeMounts, api.VolumeMount{Name: n, MountPath: "/" + n})
	}
	return s
}

// imagePatch is the strategic merge patch that sets the container's image.
func imagePatch(image string) string {
	return fmt.Sprintf(`{"spec":{"template":{"spec":{"containers":[{"name":"web","image":%q}]}}}}`, image)
}
