//go:build !nocluster

package difftest

import (
	"context"
	"fmt"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/rs/zerolog"

	"github.com/kcmlab/kcm/ctrl"
	"github.com/kcmlab/kcm/kube/api"
	"github.com/kcmlab/kcm/kube/api/decode"
	"github.com/kcmlab/kcm/kube/rest"
	"github.com/kcmlab/kcm/testenv"
)

// The StatefulSet takeover (issue 30): kube-controller-manager runs
// takeoverSets StatefulSets of takeoverReplicas pods, each with a claim
// per pod (bound by testenv's claim binder), until every one is Ready,
// and stops; a second manager starts on the same cluster. The rule: the
// second manager must compute the same ControllerRevision names and
// controller-revision-hash labels (history.Hash over the same patch of the
// template), find every pod, claim and revision as it should be, and
// change none of them — a pod replaced is a restarted database.
//
// The second manager's first pass is made visible in two steps. A probe:
// every set's revisionHistoryLimit goes from 10 to 11, a spec change that
// rolls nothing but bumps the generation; the second manager answers it
// by writing status.observedGeneration, at the end of a sync that would
// have made whatever pod, claim or revision change it wanted to make
// first. A barrier: once every set has observed its generation, the test
// creates a pod, a claim and a ControllerRevision that no set selects;
// each resource's watch delivers events in commit order, so when the
// barrier objects are seen, every write the second manager made before is
// seen too. The steps logged from the second manager's start to the
// barrier must be exactly the barrier's three creations.
//
// Then every set's image changes and the second manager rolls them. The
// same run with kube-controller-manager as the second manager (a restart
// of it: the identical copy) is the reference: per set, the same steps in
// the same order (pods deleted and created from the highest ordinal down,
// with the same revision hashes), and the same objects at the end.

// Takeover sizes.
const (
	takeoverSets     = 10
	takeoverReplicas = 3
)

// takeoverNamespace is the namespace of the takeover's sets.
const takeoverNamespace = "sts-takeover"

func takeoverSetName(i int) string { return fmt.Sprintf("db-%02d", i) }

// takeoverSetOf finds the set a step is about by its name ("db-07").
var takeoverSetOf = regexp.MustCompile(`db-\d\d`)

// takeoverResult is what one run leaves: the steps of the second manager's
// first pass, the steps of the roll per set, the objects and the Events.
type takeoverResult struct {
	quiet   []string
	roll    map[string][]string
	objects Snapshot
	events  []string
}

// TestStatefulSetTakeoverFromKCM runs the takeover above with kcm as the
// second manager and again with kube-controller-manager, each on a fresh
// cluster, and requires (a) no step but the barrier's in either's first
// pass, and (b) the same roll and the same objects and Events.
func TestStatefulSetTakeoverFromKCM(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 9*time.Minute)
	defer cancel()
	kcm := &InProcess{Descriptors: statefulSetOnly(t)}
	ref := &KubeControllerManager{Controllers: []string{kcmStatefulSet}}
	rb := runTakeover(ctx, t, ref)
	ra := runTakeover(ctx, t, kcm)
	for _, r := range []struct {
		name string
		res  *takeoverResult
	}{{"kcm", ra}, {"kube-controller-manager (restarted)", rb}} {
		if want := barrierSteps(); !slices.Equal(r.res.quiet, want) {
			t.Errorf("%s took over %d StatefulSets: steps until the barrier\n  %s\nwant exactly the barrier's\n  %s", r.name,
				takeoverSets, strings.Join(r.res.quiet, "\n  "), strings.Join(want, "\n  "))
		}
	}
	for i := range takeoverSets {
		name := takeoverSetName(i)
		if a, b := ra.roll[name], rb.roll[name]; !slices.Equal(a, b) {
			t.Errorf("the roll of %s differs:\n%s", name, Report(kcm.Name(), ref.Name(),
				diffSteps("steps", asSteps(a), asSteps(b))))
		}
	}
	if d := DiffSnapshots(ra.objects, rb.objects, nil); len(d) > 0 {
		t.Error(Report(kcm.Name(), ref.Name(), d))
	}
	if !slices.Equal(ra.events, rb.events) {
		t.Error(Report(kcm.Name(), ref.Name(), diffSteps("Events about StatefulSets", asSteps(ra.events), asSteps(rb.events))))
	}
	t.Logf("roll of %s under %s:\n  %s", takeoverSetName(0), ref.Name(), strings.Join(rb.roll[takeoverSetName(0)], "\n  "))
}

// statefulSetOnly is kcm's StatefulSet controller alone.
func statefulSetOnly(t *testing.T) func() []*ctrl.ControllerDescriptor {
	t.Helper()
	all := statefulSetDescriptors(t)
	return func() []*ctrl.ControllerDescriptor { return all()[:1] }
}

func asSteps(lines []string) []Step {
	out := make([]Step, len(lines))
	for i, l := range lines {
		out[i] = Step{State: l}
	}
	return out
}

// barrierSteps are the steps the barrier's creations log, in the order the
// test makes them.
func barrierSteps() []string {
	return []string{"create pod zz-barrier rev ", "create claim zz-barrier owners []", "create revision zz-barrier (1)"}
}

// runTakeover runs the takeover with second as the second manager on a
// fresh cluster.
func runTakeover(ctx context.Context, t *testing.T, second Manager) *takeoverResult {
	t.Helper()
	began := time.Now()
	opts := StatefulSetClusterOptions()
	opts.Logger = zerolog.Nop()
	c, err := testenv.Start(ctx, opts)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Stop()
	client, err := rest.NewClient(c.Config())
	if err != nil {
		t.Fatal(err)
	}
	defer client.CloseIdleConnections()
	ns := takeoverNamespace
	if err := createNamespace(ctx, client, ns); err != nil {
		t.Fatal(err)
	}
	w, err := WatchStatefulSets(ctx, client, ns)
	if err != nil {
		t.Fatal(err)
	}
	defer w.Stop()
	sets := rest.NewResources(client, rest.StatefulSets, decode.Typed[api.StatefulSet]()).InNamespace(ns)

	first := &KubeControllerManager{Controllers: []string{kcmStatefulSet}}
	stop1, err := first.Start(ctx, c)
	if err != nil {
		t.Fatal(err)
	}
	stop1 = audited(t, c, first, stop1, ns)
	gens := map[string]int64{}
	for i := range takeoverSets {
		s, err := sets.Create(ctx, withClaims(newStatefulSet(takeoverSetName(i), takeoverReplicas, api.OrderedReadyPodManagement), "data"))
		if err != nil {
			t.Fatal(errorsJoin(err, stop1()))
		}
		gens[s.Name] = s.Generation
	}
	if err := waitSets(ctx, w, "kube-controller-manager to make every set Ready", gens, takeoverSets*takeoverReplicas); err != nil {
		t.Fatal(errorsJoin(fmt.Errorf("%w\n%s", err, first.Diagnose()), stop1()))
	}
	// Let the first manager's Events land before it stops: a pod and a
	// claim created per ordinal.
	waitEvents(ctx, w, 2*takeoverSets*takeoverReplicas)
	if err := stop1(); err != nil {
		t.Fatal(err)
	}
	built := len(w.Steps())
	t.Logf("kube-controller-manager built %d StatefulSets of %d pods with claims (%d steps) in %s and stopped",
		takeoverSets, takeoverReplicas, built, time.Since(began).Round(time.Millisecond))

	secondBegan := time.Now()
	stop2, err := second.Start(ctx, c)
	if err != nil {
		t.Fatal(err)
	}
	stop2 = audited(t, c, second, stop2, ns)
	defer func() {
		if err := stop2(); err != nil {
			t.Errorf("stop %s: %v", second.Name(), err)
		}
	}()
	res := &takeoverResult{roll: map[string][]string{}}
	for name := range gens {
		s, err := sets.Patch(ctx, name, rest.MergePatch, []byte(`{"spec":{"revisionHistoryLimit":11}}`), rest.PatchOptions{})
		if err != nil {
			t.Fatal(err)
		}
		gens[name] = s.Generation
	}
	if err := waitSets(ctx, w, second.Name()+" to observe every set's probe", gens, takeoverSets*takeoverReplicas); err != nil {
		t.Fatal(diagnosed(err, second))
	}
	if err := createBarrier(ctx, client, ns); err != nil {
		t.Fatal(err)
	}
	if err := w.WaitFor(ctx, "the barrier's pod, claim and revision", func(v SetView) bool {
		return v.Pods["zz-barrier"] != nil && v.Claims["zz-barrier"] != nil && v.Revisions["zz-barrier"] != nil
	}); err != nil {
		t.Fatal(err)
	}
	for _, s := range w.Steps() {
		res.quiet = append(res.quiet, s.Line)
	}
	t.Logf("%s synced every set in %s; steps until the barrier: %d", second.Name(),
		time.Since(secondBegan).Round(time.Millisecond), len(res.quiet))

	rollBegan := time.Now()
	for name := range gens {
		s, err := sets.Patch(ctx, name, rest.StrategicMergePatch, []byte(imagePatch(ImageV2)), rest.PatchOptions{})
		if err != nil {
			t.Fatal(err)
		}
		gens[name] = s.Generation
	}
	if err := waitSets(ctx, w, second.Name()+" to roll every set to "+ImageV2, gens, takeoverSets*takeoverReplicas+1); err != nil {
		t.Fatal(diagnosed(err, second))
	}
	for _, s := range w.Steps() {
		set := takeoverSetOf.FindString(s.Line)
		res.roll[set] = append(res.roll[set], s.Line)
	}
	for set := range res.roll {
		sortClaimRuns(res.roll[set])
	}
	t.Logf("%s rolled %d sets in %s (kwok's stray deletions, not steps: %v)", second.Name(), takeoverSets,
		time.Since(rollBegan).Round(time.Millisecond), w.Strays())

	objs, err := listObjects(ctx, client, ns, statefulSetResources)
	if err != nil {
		t.Fatal(err)
	}
	if res.objects, err = Normalize(objs); err != nil {
		t.Fatal(err)
	}
	// Every pod and claim created and every pod deleted has its Event;
	// the recorder writes them asynchronously (see recordEvents).
	waitEvents(ctx, w, 4*takeoverSets*takeoverReplicas)
	res.events, _ = w.Events()
	return res
}

// waitSets waits until every set in gens has settled at its generation
// with takeoverReplicas pods all at the update revision, and the namespace
// holds claims claims, all Bound.
func waitSets(ctx context.Context, w *SetWatch, what string, gens map[string]int64, claims int) error {
	return w.WaitFor(ctx, what, func(v SetView) bool {
		for name, gen := range gens {
			if !setReached(v, name, gen, setGoal{takeoverReplicas, takeoverReplicas, noClaims}) {
				return false
			}
		}
		n := 0
		for _, c := range v.Claims {
			if c.DeletionTimestamp == nil && c.Status.Phase == api.ClaimBound {
				n++
			}
		}
		return n == claims
	})
}

// waitEvents waits, at most eventWait, until the Events about
// StatefulSets count n.
func waitEvents(ctx context.Context, w *SetWatch, n int) {
	wctx, cancel := context.WithTimeout(ctx, eventWait)
	defer cancel()
	_ = w.WaitFor(wctx, fmt.Sprintf("%d Events", n), func(v SetView) bool { return v.EventCount >= n })
}

// createBarrier creates the barrier: a pod, a claim and a
// ControllerRevision named zz-barrier, labelled so that no set selects
// them.
func createBarrier(ctx context.Context, client *rest.Client, ns string) error {
	labels := map[string]string{"barrier": "yes"}
	// It asks for a node there is not, so it stays Pending: a pod turning
	// Ready is a step, and kwok's timing must not add one.
	pod := &api.Pod{ObjectMeta: api.ObjectMeta{Name: "zz-barrier", Labels: labels},
		Spec: api.PodSpec{NodeSelector: map[string]string{testenv.LabelHostname: "no-such-node"},
			Containers: []api.Container{{Name: "c", Image: ImageV1}}}}
	if _, err := rest.NewResources(client, rest.Pods, decode.Typed[api.Pod]()).InNamespace(ns).Create(ctx, pod); err != nil {
		return fmt.Errorf("barrier pod: %w", err)
	}
	pvc := &api.PersistentVolumeClaim{ObjectMeta: api.ObjectMeta{Name: "zz-barrier", Labels: labels},
		Spec: api.PersistentVolumeClaimSpec{AccessModes: []api.PersistentVolumeAccessMode{api.ReadWriteOnce},
			Resources: api.VolumeResourceRequirements{Requests: api.ResourceList{"storage": "1Gi"}}}}
	if _, err := rest.NewResources(client, rest.PersistentVolumeClaims, decode.Typed[api.PersistentVolumeClaim]()).InNamespace(ns).Create(ctx, pvc); err != nil {
		return fmt.Errorf("barrier claim: %w", err)
	}
	cr := &api.ControllerRevision{ObjectMeta: api.ObjectMeta{Name: "zz-barrier", Labels: labels},
		Data: api.RawExtension{Raw: []byte(`{"barrier":true}`)}, Revision: 1}
	if _, err := rest.NewResources(client, rest.ControllerRevisions, decode.Typed[api.ControllerRevision]()).InNamespace(ns).Create(ctx, cr); err != nil {
		return fmt.Errorf("barrier revision: %w", err)
	}
	return nil
}

// diagnosed adds the manager's diagnosis to err.
func diagnosed(err error, m Manager) error {
	if d, ok := m.(Diagnoser); ok {
		return fmt.Errorf("%w\n%s", err, d.Diagnose())
	}
	return err
}

// errorsJoin joins a failure with the error of stopping a manager.
func errorsJoin(err, stopErr error) error {
	if stopErr == nil {
		return err
	}
	return fmt.Errorf("%w (and stopping the manager: %w)", err, stopErr)
}
