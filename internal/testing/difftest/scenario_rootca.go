package difftest

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/kcmlab/kcm/kube/api"
	"github.com/kcmlab/kcm/kube/api/decode"
	"github.com/kcmlab/kcm/kube/rest"
)

// What root-ca-cert-publisher writes (kube-controller-manager's constants,
// repeated here so that the scenario does not take them from the
// implementation under test).
const (
	rootCAConfigMap   = "kube-root-ca.crt"
	rootCAKey         = "ca.crt"
	rootCADescription = "kubernetes.io/description"
	rootCADescText    = "Contains a CA bundle that can be used to verify the kube-apiserver when using internal endpoints " +
		"such as the internal service IP or kubernetes.default.svc. " +
		"No other usage is guaranteed across distributions of Kubernetes clusters."
)

// RootCAScenario creates namespaces and checks that each gets
// kube-root-ca.crt, then edits and deletes those ConfigMaps and waits each
// time until the publisher has put them right, or, for an edit it must
// leave alone, until a later deletion elsewhere was put right. rootCAFile is the bundle
// both managers were given with --root-ca-file (nil: none, so each
// publishes the CA of its kubeconfig, the cluster's).
//
// Each step is recorded as a state: the namespace, the ConfigMap as it is
// once published again (data with the CA shown as "<root-ca-file>" or
// "<cluster CA>", since each manager runs on a cluster of its own with its
// own CA; annotations, labels, binaryData keys) and how many watch events
// the step took, the scenario's own write included — one more write by a
// controller shows there. Nothing is recorded as objects: the states
// carry everything.
func RootCAScenario(rootCAFile []byte) Scenario {
	return Scenario{
		Name: "root-ca",
		Run: func(ctx context.Context, env *Env) error {
			r := &rootCARun{env: env, file: string(rootCAFile), cluster: string(env.Cluster.Config().TLS.CAData),
				cms: rest.NewResources(env.Client, rest.ConfigMaps, decode.Typed[api.ConfigMap]())}
			r.want = r.cluster
			if rootCAFile != nil {
				r.want = r.file
			}
			return r.run(ctx)
		},
	}
}

// rootCARun is one run of RootCAScenario.
type rootCARun struct {
	env                 *Env
	cms                 *rest.Resources[*api.ConfigMap]
	file, cluster, want string
}

func (r *rootCARun) run(ctx context.Context) error {
	// The namespaces kube-apiserver makes, and the scenario's own.
	r.env.Observer.SetPhase("present")
	for _, ns := range []string{"default", "kube-node-lease", "kube-public", "kube-system", r.env.Namespace} {
		if err := r.step(ctx, ns, "", nil); err != nil {
			return err
		}
	}
	nss := rest.NewResources(r.env.Client, rest.Namespaces, decode.Typed[api.Namespace]())
	names := []string{"difftest-rootca-1", "difftest-rootca-2", "difftest-rootca-3"}
	r.env.Observer.SetPhase("namespace created")
	for _, n := range names {
		err := r.step(ctx, n, "", func() error {
			_, err := nss.Create(ctx, &api.Namespace{ObjectMeta: api.ObjectMeta{Name: n}})
			return err
		})
		if err != nil {
			return err
		}
	}
	// An edit the publisher must leave alone cannot be waited for; it is
	// followed by a barrier: the deletion of names[2]'s ConfigMap, waited
	// for until it is made again. Both publishers run one worker on one
	// FIFO queue, fed by one ConfigMap watch in commit order, so by then
	// the edited namespace's sync is done; the ConfigMap is read and
	// recorded with whether anyone wrote it after the edit.
	edits := []struct {
		phase, ns string
		edit      func(*api.ConfigMap)
		untouched bool
	}{
		{"ca.crt edited, a key, a label and an annotation added", names[0], func(cm *api.ConfigMap) {
			cm.Data = map[string]string{rootCAKey: "not the CA", "extra": "v"}
			cm.Labels = map[string]string{"team": "a"}
			cm.Annotations["note"] = "kept"
		}, false},
		{"binaryData added, ca.crt removed", names[0], func(cm *api.ConfigMap) {
			cm.Data = map[string]string{"other": "v"}
			cm.BinaryData = map[string][]byte{"bin": {1, 2}}
		}, false},
		{"description removed", names[1], func(cm *api.ConfigMap) { delete(cm.Annotations, rootCADescription) }, false},
		{"description changed", names[1], func(cm *api.ConfigMap) { cm.Annotations[rootCADescription] = "mine" }, true},
		{"a label and an annotation added", names[1], func(cm *api.ConfigMap) {
			cm.Labels = map[string]string{"team": "b"}
			cm.Annotations["note"] = "kept"
		}, true},
		{"data emptied", names[1], func(cm *api.ConfigMap) { cm.Data = nil }, false},
	}
	for _, e := range edits {
		r.env.Observer.SetPhase(e.phase)
		var written string // the resourceVersion of the edit
		edit := func() error {
			cm, err := r.cms.InNamespace(e.ns).Get(ctx, rootCAConfigMap)
			if err != nil {
				return err
			}
			if cm.Annotations == nil {
				cm.Annotations = map[string]string{}
			}
			e.edit(cm)
			cm, err = r.cms.InNamespace(e.ns).Update(ctx, cm)
			if err == nil {
				written = cm.ResourceVersion
			}
			return err
		}
		var err error
		if e.untouched {
			err = r.untouched(ctx, e.ns, names[2], edit, &written)
		} else {
			err = r.step(ctx, e.ns, "", edit)
		}
		if err != nil {
			return fmt.Errorf("%s in %s: %w", e.phase, e.ns, err)
		}
	}
	r.env.Observer.SetPhase("deleted")
	old, err := r.cms.InNamespace(names[2]).Get(ctx, rootCAConfigMap)
	if err != nil {
		return err
	}
	return r.step(ctx, names[2], old.UID, func() error {
		return r.cms.InNamespace(names[2]).Delete(ctx, rootCAConfigMap, rest.DeleteOptions{})
	})
}

// step lists kube-root-ca.crt in ns, does act (if any), then reads the
// watch from the list's resourceVersion until the ConfigMap is as the
// publisher leaves it — data exactly {ca.crt: CA}, a non-empty
// description, a UID other than notUID — and records it with the number
// of events that took (not for a step without act).
func (r *rootCARun) step(ctx context.Context, ns, notUID string, act func() error) error {
	cms := r.cms.InNamespace(ns)
	sel := "metadata.name=" + rootCAConfigMap
	list, err := cms.List(ctx, rest.ListOptions{FieldSelector: sel})
	if err != nil {
		return err
	}
	var cur *api.ConfigMap
	if len(list.Items) == 1 {
		cur = list.Items[0]
	}
	if act != nil {
		if err := act(); err != nil {
			return err
		}
	} else if cur != nil && r.published(cur, notUID) {
		r.record(ns, cur, -1)
		return nil
	}
	w, err := cms.Watch(ctx, rest.WatchOptions{ListOptions: rest.ListOptions{
		FieldSelector: sel, ResourceVersion: list.ResourceVersion, TimeoutSeconds: watchTimeoutSeconds}})
	if err != nil {
		return err
	}
	defer w.Close()
	for n := 1; ; n++ {
		ev, err := w.Next()
		if err != nil {
			return fmt.Errorf("waiting for %s/%s to be published: %w; last seen: %s", ns, rootCAConfigMap, err, r.render(cur))
		}
		switch ev.Type {
		case rest.Added, rest.Modified:
			cur = ev.Object
		case rest.Deleted:
			cur = nil
		default:
			n--
			continue
		}
		if cur != nil && r.published(cur, notUID) {
			if act == nil { // how soon it was published is timing, not behaviour
				n = -1
			}
			r.record(ns, cur, n)
			return nil
		}
	}
}

// untouched does edit in ns, then waits for the barrier: barrierNS's
// ConfigMap deleted and made again. It records ns's ConfigMap and whether
// it was written after the edit (its resourceVersion, *written, changed).
func (r *rootCARun) untouched(ctx context.Context, ns, barrierNS string, edit func() error, written *string) error {
	if err := edit(); err != nil {
		return err
	}
	old, err := r.cms.InNamespace(barrierNS).Get(ctx, rootCAConfigMap)
	if err != nil {
		return err
	}
	err = r.step(ctx, barrierNS, old.UID, func() error {
		return r.cms.InNamespace(barrierNS).Delete(ctx, rootCAConfigMap, rest.DeleteOptions{})
	})
	if err != nil {
		return fmt.Errorf("the barrier in %s: %w", barrierNS, err)
	}
	cm, err := r.cms.InNamespace(ns).Get(ctx, rootCAConfigMap)
	if err != nil {
		return err
	}
	r.env.Observer.Record(fmt.Sprintf("%s: %s; written after the edit: %v", ns, r.render(cm), cm.ResourceVersion != *written))
	return nil
}

// published is Kubernetes' rule for a kube-root-ca.crt that needs no
// write (publisher.go syncNamespace).
func (r *rootCARun) published(cm *api.ConfigMap, notUID string) bool {
	return cm.UID != notUID && maps.Equal(cm.Data, map[string]string{rootCAKey: r.want}) && cm.Annotations[rootCADescription] != ""
}

// record records the namespace's ConfigMap and, unless events is -1 (a
// namespace that existed before: whether its ConfigMap was there yet when
// listed is timing), the events the step took.
func (r *rootCARun) record(ns string, cm *api.ConfigMap, events int) {
	st := fmt.Sprintf("%s: %s", ns, r.render(cm))
	if events >= 0 {
		st += fmt.Sprintf("; events: %d", events)
	}
	r.env.Observer.Record(st)
}

// render shows what the publisher decides about a ConfigMap, the CA by
// name.
func (r *rootCARun) render(cm *api.ConfigMap) string {
	if cm == nil {
		return "none"
	}
	var b strings.Builder
	b.WriteString("data {")
	for _, k := range slices.Sorted(maps.Keys(cm.Data)) {
		v := cm.Data[k]
		switch {
		case k == rootCAKey && v == r.file && r.file != "":
			v = "<root-ca-file>"
		case k == rootCAKey && v == r.cluster:
			v = "<cluster CA>"
		default:
			v = fmt.Sprintf("%q", v)
		}
		fmt.Fprintf(&b, " %s=%s", k, v)
	}
	b.WriteString(" } annotations {")
	for _, k := range slices.Sorted(maps.Keys(cm.Annotations)) {
		v := fmt.Sprintf("%q", cm.Annotations[k])
		if k == rootCADescription && cm.Annotations[k] == rootCADescText {
			v = "<description>"
		}
		fmt.Fprintf(&b, " %s=%s", k, v)
	}
	fmt.Fprintf(&b, " } labels %v binaryData %v immutable %v", cm.Labels, slices.Sorted(maps.Keys(cm.BinaryData)), cm.Immutable != nil && *cm.Immutable)
	return b.String()
}
