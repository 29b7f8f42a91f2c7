package difftest

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/kcmlab/kcm/kube/api"
	"github.com/kcmlab/kcm/kube/api/decode"
	"github.com/kcmlab/kcm/kube/rest"
)

// Names of the namespace scenario.
const (
	victimNamespace = "difftest-ns-victim"
	widgetGroup     = "difftest.example.com"
	holdFinalizer   = widgetGroup + "/hold"
)

// NamespaceScenario fills a namespace with a Deployment, a ReplicaSet,
// pods, a ConfigMap, a Secret and two custom resources, one of which
// carries a finalizer of its own, then deletes the namespace. The
// finalizer keeps content in the namespace, so the namespace controller
// reports NamespaceContentRemaining and NamespaceFinalizersRemaining;
// once the scenario removes the finalizer, the controller finishes and
// the namespace disappears. Every distinct state of the namespace seen on
// a watch (phase, spec.finalizers, conditions without their times) is
// recorded and compared, and so are all namespaces left at the end.
func NamespaceScenario() Scenario {
	return Scenario{
		Name:        "namespace",
		Record:      []rest.Resource{rest.Namespaces},
		ClusterWide: true,
		Run:         runNamespaceScenario,
	}
}

func runNamespaceScenario(ctx context.Context, env *Env) error {
	widgets, err := createCRD(ctx, env.Client, widgetGroup, "Widget")
	if err != nil {
		return err
	}
	if err := createNamespace(ctx, env.Client, victimNamespace); err != nil {
		return err
	}
	content := []struct {
		res  rest.Resource
		body string
	}{
		{rest.Deployments, `{"apiVersion":"apps/v1","kind":"Deployment","metadata":{"name":"web"},
			"spec":{"replicas":2,"selector":{"matchLabels":{"app":"web"}},
			"template":{"metadata":{"labels":{"app":"web"}},"spec":{"containers":[{"name":"web","image":"` + ImageV1 + `"}]}}}}`},
		{rest.ReplicaSets, `{"apiVersion":"apps/v1","kind":"ReplicaSet","metadata":{"name":"rs"},
			"spec":{"replicas":1,"selector":{"matchLabels":{"app":"rs"}},
			"template":{"metadata":{"labels":{"app":"rs"}},"spec":{"containers":[{"name":"web","image":"` + ImageV1 + `"}]}}}}`},
		{rest.Pods, `{"apiVersion":"v1","kind":"Pod","metadata":{"name":"p1"},"spec":{"containers":[{"name":"c","image":"` + ImageV1 + `"}]}}`},
		{rest.Pods, `{"apiVersion":"v1","kind":"Pod","metadata":{"name":"p2"},"spec":{"containers":[{"name":"c","image":"` + ImageV1 + `"}]}}`},
		{rest.ConfigMaps, `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"cm"},"data":{"k":"v"}}`},
		{rest.Secrets, `{"apiVersion":"v1","kind":"Secret","metadata":{"name":"s"},"stringData":{"k":"v"}}`},
		{widgets, `{"apiVersion":"` + widgetGroup + `/v1","kind":"Widget","metadata":{"name":"held","finalizers":["` + holdFinalizer + `"]}}`},
		{widgets, `{"apiVersion":"` + widgetGroup + `/v1","kind":"Widget","metadata":{"name":"free"}}`},
	}
	for _, c := range content {
		obj, err := decode.Raw().Decode([]byte(c.body))
		if err != nil {
			return err
		}
		if _, err := rest.NewResources(env.Client, c.res, decode.Raw()).InNamespace(victimNamespace).Create(ctx, obj); err != nil {
			return fmt.Errorf("create %s in %s: %w", c.res, victimNamespace, err)
		}
	}

	f, err := followNamespace(ctx, env, victimNamespace)
	if err != nil {
		return err
	}
	defer f.close()
	env.Observer.SetPhase("deleted")
	nss := rest.NewResources(env.Client, rest.Namespaces, decode.Typed[api.Namespace]())
	if err := nss.Delete(ctx, victimNamespace, rest.DeleteOptions{}); err != nil {
		return err
	}
	err = f.until("NamespaceFinalizersRemaining", func(ns *api.Namespace) bool {
		c := namespaceCondition(ns, "NamespaceFinalizersRemaining")
		return c != nil && c.Status == api.ConditionTrue
	})
	if err != nil {
		return err
	}
	env.Observer.SetPhase("finalizer removed")
	held := rest.NewResources(env.Client, widgets, decode.Raw()).InNamespace(victimNamespace)
	if _, err := held.Patch(ctx, "held", rest.MergePatch, []byte(`{"metadata":{"finalizers":null}}`), rest.PatchOptions{}); err != nil {
		return fmt.Errorf("remove the finalizer of widget held: %w", err)
	}
	if err := f.until("the namespace to disappear", func(ns *api.Namespace) bool { return ns == nil }); err != nil {
		return err
	}
	for _, c := range content {
		list, err := rest.NewResources(env.Client, c.res, decode.Raw()).InNamespace(victimNamespace).List(ctx, rest.ListOptions{})
		if err != nil {
			return err
		}
		if len(list.Items) > 0 {
			return fmt.Errorf("%d %s left in %s after it disappeared", len(list.Items), c.res, victimNamespace)
		}
	}
	return nil
}

// namespaceFollower watches one namespace and records each state it
// takes in the observer's States stream.
type namespaceFollower struct {
	env  *Env
	w    *rest.Watcher[*api.Namespace]
	last *api.Namespace // nil once deleted
	// normalize, if set, rewrites each state before it is recorded.
	normalize func(string) string
}

// followNamespace records the namespace's current state and starts
// watching it from there.
func followNamespace(ctx context.Context, env *Env, name string) (*namespaceFollower, error) {
	nss := rest.NewResources(env.Client, rest.Namespaces, decode.Typed[api.Namespace]())
	sel := "metadata.name=" + name
	list, err := nss.List(ctx, rest.ListOptions{FieldSelector: sel})
	if err != nil {
		return nil, err
	}
	if len(list.Items) != 1 {
		return nil, fmt.Errorf("namespace %s: %d found", name, len(list.Items))
	}
	w, err := nss.Watch(ctx, rest.WatchOptions{ListOptions: rest.ListOptions{
		FieldSelector: sel, ResourceVersion: list.ResourceVersion, TimeoutSeconds: watchTimeoutSeconds}})
	if err != nil {
		return nil, err
	}
	f := &namespaceFollower{env: env, w: w, last: list.Items[0]}
	f.record()
	return f, nil
}

func (f *namespaceFollower) record() {
	st := namespaceState(f.last)
	if f.normalize != nil {
		st = f.normalize(st)
	}
	f.env.Observer.Record(st)
}

// until reads events until cond holds on the namespace (nil: deleted).
func (f *namespaceFollower) until(what string, cond func(*api.Namespace) bool) error {
	for !cond(f.last) {
		ev, err := f.w.Next()
		if err != nil {
			return fmt.Errorf("waiting for %s: %w; last state: %s", what, err, namespaceState(f.last))
		}
		switch ev.Type {
		case rest.Added, rest.Modified:
			f.last = ev.Object
		case rest.Deleted:
			f.last = nil
		default:
			continue
		}
		f.record()
	}
	return nil
}

func (f *namespaceFollower) close() { f.w.Close() }

// namespaceState renders what the namespace controller decides about a
// namespace: phase, spec.finalizers, whether it is being deleted, and each
// condition in the order written, without lastTransitionTime (the
// controllers stamp their own clocks).
func namespaceState(ns *api.Namespace) string {
	if ns == nil {
		return "gone"
	}
	parts := []string{fmt.Sprintf("phase=%s finalizers=%v deleting=%v", ns.Status.Phase, ns.Spec.Finalizers, ns.DeletionTimestamp != nil)}
	for _, c := range ns.Status.Conditions {
		parts = append(parts, fmt.Sprintf("%s=%s %s %q", c.Type, c.Status, c.Reason, c.Message))
	}
	return strings.Join(parts, "; ")
}

func namespaceCondition(ns *api.Namespace, typ string) *api.NamespaceCondition {
	if ns == nil {
		return nil
	}
	for i := range ns.Status.Conditions {
		if ns.Status.Conditions[i].Type == typ {
			return &ns.Status.Conditions[i]
		}
	}
	return nil
}

// createCRD creates a namespaced CustomResourceDefinition for kind in
// group (version v1, any fields kept) and waits until discovery serves
// it: the namespace controllers find content types through discovery.
func createCRD(ctx context.Context, c *rest.Client, group, kind string) (rest.Resource, error) {
	singular := strings.ToLower(kind)
	plural := singular + "s"
	crd, err := api.NewRawObject(map[string]any{
		"apiVersion": "apiextensions.k8s.io/v1", "kind": "CustomResourceDefinition",
		"metadata": map[string]any{"name": plural + "." + group},
		"spec": map[string]any{
			"group": group, "scope": "Namespaced",
			"names": map[string]any{"plural": plural, "singular": singular, "kind": kind, "listKind": kind + "List"},
			"versions": []any{map[string]any{"name": "v1", "served": true, "storage": true,
				"schema": map[string]any{"openAPIV3Schema": map[string]any{"type": "object",
					"x-kubernetes-preserve-unknown-fields": true}}}},
		},
	})
	if err != nil {
		return rest.Resource{}, err
	}
	if _, err := rest.NewResources(c, rest.CRDs, decode.Raw()).Create(ctx, crd); err != nil {
		return rest.Resource{}, fmt.Errorf("create CRD %s.%s: %w", plural, group, err)
	}
	// Discovery offers nothing to watch: poll it.
	tick := time.NewTicker(100 * time.Millisecond)
	defer tick.Stop()
	for {
		res, err := c.ResourceForKind(ctx, group+"/v1", kind)
		if err == nil {
			return res, nil
		}
		select {
		case <-ctx.Done():
			return rest.Resource{}, fmt.Errorf("CRD %s.%s never served: %w", plural, group, err)
		case <-tick.C:
		}
	}
}

// brokenGroup is the API group of the discovery scenario's APIService,
// whose backing Service does not exist.
const brokenGroup = "broken.difftest.example.com"

var apiServices = rest.Resource{Group: "apiregistration.k8s.io", Version: "v1", Resource: "apiservices", Kind: "APIService"}

// NamespaceDiscoveryScenario registers an aggregated API whose Service
// does not exist, so discovery of its group fails, and deletes a namespace
// holding a ConfigMap: the namespace stays Terminating with
// NamespaceDeletionDiscoveryFailure; once the APIService is deleted, the
// namespace goes.
func NamespaceDiscoveryScenario() Scenario {
	return Scenario{
		Name:        "namespace-discovery",
		Record:      []rest.Resource{rest.Namespaces},
		ClusterWide: true,
		Run: func(ctx context.Context, env *Env) error {
			const victim = "difftest-ns-discovery"
			svc, err := api.NewRawObject(map[string]any{
				"apiVersion": "apiregistration.k8s.io/v1", "kind": "APIService",
				"metadata": map[string]any{"name": "v1." + brokenGroup},
				"spec": map[string]any{"group": brokenGroup, "version": "v1", "groupPriorityMinimum": 1000, "versionPriority": 15,
					"insecureSkipTLSVerify": true, "service": map[string]any{"namespace": "kube-system", "name": "difftest-nothing", "port": 443}},
			})
			if err != nil {
				return err
			}
			svcs := rest.NewResources(env.Client, apiServices, decode.Raw())
			if _, err := svcs.Create(ctx, svc); err != nil {
				return fmt.Errorf("create APIService: %w", err)
			}
			if err := createNamespace(ctx, env.Client, victim); err != nil {
				return err
			}
			cm, err := decode.Raw().Decode([]byte(`{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"cm"}}`))
			if err != nil {
				return err
			}
			if _, err := rest.NewResources(env.Client, rest.ConfigMaps, decode.Raw()).InNamespace(victim).Create(ctx, cm); err != nil {
				return err
			}
			f, err := followNamespace(ctx, env, victim)
			if err != nil {
				return err
			}
			defer f.close()
			f.normalize = normalizeGroupError
			env.Observer.SetPhase("deleted")
			if err := rest.NewResources(env.Client, rest.Namespaces, decode.Raw()).Delete(ctx, victim, rest.DeleteOptions{}); err != nil {
				return err
			}
			err = f.until("NamespaceDeletionDiscoveryFailure", func(ns *api.Namespace) bool {
				c := namespaceCondition(ns, "NamespaceDeletionDiscoveryFailure")
				return c != nil && c.Status == api.ConditionTrue
			})
			if err != nil {
				return err
			}
			env.Observer.SetPhase("APIService deleted")
			if err := svcs.Delete(ctx, "v1."+brokenGroup, rest.DeleteOptions{}); err != nil {
				return err
			}
			return f.until("the namespace to disappear", func(ns *api.Namespace) bool { return ns == nil })
		},
	}
}

// GroupErrorPlaceholder replaces, in the discovery scenario's recorded
// states, the text of the failed group's own error. The rest of the
// NamespaceDeletionDiscoveryFailure message is compared as is.
//
// Deliberate difference: kube-controller-manager v1.34 reads aggregated
// discovery (/apis as one APIGroupDiscoveryList), where kube-apiserver
// marks an unreachable aggregated API "Stale", and client-go reports
// "stale GroupVersion discovery: <group/version>"; kcm reads each group
// version's own APIResourceList and reports the apiserver's answer to it,
// "service unavailable" (a 503). Both name the failed group version.
const GroupErrorPlaceholder = "<the group version's own error>"

// normalizeGroupError puts GroupErrorPlaceholder in place of the error
// text that follows the broken group version in a discovery failure.
func normalizeGroupError(state string) string {
	gv := brokenGroup + "/v1: "
	i := strings.Index(state, gv)
	if i < 0 {
		return state
	}
	rest := state[i+len(gv):]
	end := strings.Index(rest, `"`)
	if end < 0 {
		return state
	}
	return state[:i+len(gv)] + GroupErrorPlaceholder + rest[end:]
}
