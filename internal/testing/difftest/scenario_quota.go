package difftest

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"strings"
	"time"

	"github.com/kcmlab/kcm/clock"
	"github.com/kcmlab/kcm/ctrl/resourcequota/quota"
	"github.com/kcmlab/kcm/kube/api"
	"github.com/kcmlab/kcm/kube/api/decode"
	"github.com/kcmlab/kcm/kube/api/resource"
	"github.com/kcmlab/kcm/kube/rest"
)

// The quota scenario's resources and names.
var (
	resourceQuotas         = rest.Resource{Version: "v1", Resource: "resourcequotas", Kind: "ResourceQuota", Namespaced: true}
	replicationControllers = rest.Resource{Version: "v1", Resource: "replicationcontrollers", Kind: "ReplicationController", Namespaced: true}
	priorityClasses        = rest.Resource{Group: "scheduling.k8s.io", Version: "v1", Resource: "priorityclasses", Kind: "PriorityClass"}
)

const quotaPriorityClass = "difftest-high"

// QuotaScenario fills a namespace under nine ResourceQuotas — one
// unscoped with every object count, storage (per class too), node ports,
// load balancers, ephemeral storage, hugepages and an extended resource;
// the others scoped (BestEffort, NotBestEffort, Terminating,
// NotTerminating) or selecting by scopeSelector (PriorityClass In and
// DoesNotExist, CrossNamespacePodAffinity, and scopes with a NotIn
// selector) — with pods in each state: best-effort, burstable with an
// init container and a sidecar, with an active deadline, of a priority
// class, with cross-namespace affinity, with pod-level resources, bound to
// a node (so that its deletion waits out a grace period), and one that
// turns Succeeded; Services of each type, claims with and without a
// storage class, ConfigMaps, a Secret, a Deployment and a
// ReplicationController. Then a pod turns terminal, then objects of each
// kind are deleted. First it waits until the resource quota controller
// runs (waitQuotaController). After each step it waits until every
// quota's status.used is what package quota computes from the objects,
// and records status.hard and status.used of every quota, as written, as
// one state; the quotas are recorded at the end.
func QuotaScenario() Scenario {
	return Scenario{
		Name:    "quota",
		Record:  []rest.Resource{resourceQuotas},
		Run:     runQuotaScenario,
		Timeout: 3 * time.Minute,
	}
}

// quotaSpecs are the scenario's quotas (names and specs).
var quotaSpecs = []string{
	`{"metadata":{"name":"counts"},"spec":{"hard":{"pods":"50","count/pods":"50","services":"10","count/services":"10",
	"services.nodeports":"10","services.loadbalancers":"5","persistentvolumeclaims":"10","count/persistentvolumeclaims":"10",
	"requests.storage":"100Gi","gold.storageclass.storage.k8s.io/requests.storage":"50Gi",
	"gold.storageclass.storage.k8s.io/persistentvolumeclaims":"5","configmaps":"10","count/configmaps":"10","secrets":"10",
	"count/secrets":"10","resourcequotas":"20","replicationcontrollers":"5","count/replicationcontrollers":"5",
	"count/deployments.apps":"5","requests.ephemeral-storage":"10Gi","limits.ephemeral-storage":"20Gi","ephemeral-storage":"10Gi",
	"requests.hugepages-2Mi":"1Gi","requests.example.com/gpu":"4"}}}`,
	`{"metadata":{"name":"compute"},"spec":{"scopes":["NotBestEffort"],"hard":{"pods":"50","cpu":"20","memory":"40Gi",
	"requests.cpu":"20","requests.memory":"40Gi","limits.cpu":"40","limits.memory":"80Gi"}}}`,
	`{"metadata":{"name":"besteffort"},"spec":{"scopes":["BestEffort"],"hard":{"pods":"20"}}}`,
	`{"metadata":{"name":"terminating"},"spec":{"scopes":["Terminating"],"hard":{"pods":"10","requests.cpu":"10","limits.memory":"10Gi"}}}`,
	`{"metadata":{"name":"not-terminating"},"spec":{"scopes":["NotTerminating"],"hard":{"pods":"50"}}}`,
	`{"metadata":{"name":"priority"},"spec":{"scopeSelector":{"matchExpressions":[{"scopeName":"PriorityClass","operator":"In",
	"values":["` + quotaPriorityClass + `"]}]},"hard":{"pods":"10","requests.cpu":"10","requests.memory":"10Gi"}}}`,
	`{"metadata":{"name":"no-priority"},"spec":{"scopeSelector":{"matchExpressions":[{"scopeName":"PriorityClass",
	"operator":"DoesNotExist"}]},"hard":{"pods":"50"}}}`,
	`{"metadata":{"name":"cross-namespace"},"spec":{"scopeSelector":{"matchExpressions":[{"scopeName":"CrossNamespacePodAffinity",
	"operator":"Exists"}]},"hard":{"pods":"5"}}}`,
	`{"metadata":{"name":"mixed"},"spec":{"scopes":["NotTerminating","NotBestEffort"],"scopeSelector":{"matchExpressions":[
	{"scopeName":"PriorityClass","operator":"NotIn","values":["` + quotaPriorityClass + `"]}]},
	"hard":{"pods":"50","requests.cpu":"20","limits.memory":"80Gi"}}}`,
}

// res is a container's resources: requests and limits as JSON members.
func res(req, lim string) string {
	return `"resources":{"requests":{` + req + `},"limits":{` + lim + `}}`
}

// quotaObjects are the objects of the "objects created" step.
var quotaObjects = []struct {
	res  rest.Resource
	body string
}{
	{rest.Pods, `{"metadata":{"name":"be"},"spec":{"containers":[{"name":"c","image":"` + ImageV1 + `"}]}}`},
	{rest.Pods, `{"metadata":{"name":"web"},"spec":{"initContainers":[
	{"name":"proxy","image":"` + ImageV1 + `","restartPolicy":"Always",` + res(`"cpu":"100m","memory":"64Mi"`, `"cpu":"100m","memory":"64Mi"`) + `},
	{"name":"setup","image":"` + ImageV1 + `",` + res(`"cpu":"1","memory":"128Mi"`, `"cpu":"1","memory":"128Mi"`) + `}],
	"containers":[{"name":"web","image":"` + ImageV1 + `",` +
		res(`"cpu":"250m","memory":"256Mi","ephemeral-storage":"1Gi"`, `"cpu":"500m","memory":"512Mi","ephemeral-storage":"2Gi"`) + `}]}}`},
	{rest.Pods, `{"metadata":{"name":"job"},"spec":{"activeDeadlineSeconds":600,"restartPolicy":"Never","containers":[{"name":"c","image":"` + ImageV1 + `",` +
		res(`"cpu":"100m","memory":"100Mi"`, `"cpu":"200m","memory":"200Mi"`) + `}]}}`},
	{rest.Pods, `{"metadata":{"name":"hi"},"spec":{"priorityClassName":"` + quotaPriorityClass + `","containers":[{"name":"c","image":"` + ImageV1 + `",` +
		res(`"cpu":"500m","memory":"1Gi","hugepages-2Mi":"4Mi","example.com/gpu":"1"`, `"cpu":"1","memory":"1Gi","hugepages-2Mi":"4Mi","example.com/gpu":"1"`) + `}]}}`},
	{rest.Pods, `{"metadata":{"name":"cross"},"spec":{"affinity":{"podAffinity":{"requiredDuringSchedulingIgnoredDuringExecution":[
	{"labelSelector":{"matchLabels":{"app":"db"}},"namespaces":["default"],"topologyKey":"zone"}]}},
	"containers":[{"name":"c","image":"` + ImageV1 + `"}]}}`},
	{rest.Pods, `{"metadata":{"name":"done"},"spec":{"restartPolicy":"Never","containers":[{"name":"c","image":"` + ImageV1 + `",` +
		res(`"cpu":"2","memory":"1Gi"`, `"cpu":"2","memory":"1Gi"`) + `}]}}`},
	{rest.Pods, `{"metadata":{"name":"bound"},"spec":{"nodeName":"difftest-node","terminationGracePeriodSeconds":3600,
	"containers":[{"name":"c","image":"` + ImageV1 + `",` + res(`"cpu":"300m","memory":"300Mi"`, `"cpu":"300m","memory":"300Mi"`) + `}]}}`},
	{rest.Pods, `{"metadata":{"name":"podlevel"},"spec":{"resources":{"requests":{"cpu":"1","memory":"1Gi"},"limits":{"cpu":"2","memory":"2Gi"}},
	"containers":[{"name":"c","image":"` + ImageV1 + `"}]}}`},
	{rest.Services, `{"metadata":{"name":"plain"},"spec":{"ports":[{"port":80}]}}`},
	{rest.Services, `{"metadata":{"name":"np"},"spec":{"type":"NodePort","ports":[{"name":"a","port":80},{"name":"b","port":81}]}}`},
	{rest.Services, `{"metadata":{"name":"lb"},"spec":{"type":"LoadBalancer","ports":[{"port":80}]}}`},
	{rest.Services, `{"metadata":{"name":"lb-no-nodeports"},"spec":{"type":"LoadBalancer","allocateLoadBalancerNodePorts":false,"ports":[{"port":80}]}}`},
	{rest.PersistentVolumeClaims, `{"metadata":{"name":"gold"},"spec":{"storageClassName":"gold","accessModes":["ReadWriteOnce"],
	"resources":{"requests":{"storage":"1Gi"}}}}`},
	{rest.PersistentVolumeClaims, `{"metadata":{"name":"plain"},"spec":{"accessModes":["ReadWriteOnce"],"resources":{"requests":{"storage":"500Mi"}}}}`},
	{rest.ConfigMaps, `{"metadata":{"name":"cm1"},"data":{"k":"v"}}`},
	{rest.ConfigMaps, `{"metadata":{"name":"cm2"},"data":{"k":"v"}}`},
	{rest.Secrets, `{"metadata":{"name":"s1"},"stringData":{"k":"v"}}`},
	{rest.Deployments, `{"metadata":{"name":"d"},"spec":{"replicas":0,"selector":{"matchLabels":{"app":"d"}},
	"template":{"metadata":{"labels":{"app":"d"}},"spec":{"containers":[{"name":"c","image":"` + ImageV1 + `"}]}}}}`},
	{replicationControllers, `{"metadata":{"name":"rc"},"spec":{"replicas":0,"selector":{"app":"rc"},
	"template":{"metadata":{"labels":{"app":"rc"}},"spec":{"containers":[{"name":"c","image":"` + ImageV1 + `"}]}}}}`},
}

// quotaDeletions are the objects of the "deleted" step: a pod that waits
// out its grace period (still counted), a pod that goes at once, a
// LoadBalancer Service, a claim (held by its protection finalizer: still
// counted), a ConfigMap, a Secret, the Deployment.
var quotaDeletions = []struct {
	res  rest.Resource
	name string
}{
	{rest.Pods, "bound"}, {rest.Pods, "be"}, {rest.Services, "lb"}, {rest.PersistentVolumeClaims, "gold"},
	{rest.ConfigMaps, "cm1"}, {rest.Secrets, "s1"}, {rest.Deployments, "d"},
}

func runQuotaScenario(ctx context.Context, env *Env) error {
	ns := env.Namespace
	raw := func(r rest.Resource) *rest.Resources[*api.RawObject] {
		x := rest.NewResources(env.Client, r, decode.Raw())
		if r.Namespaced {
			x = x.InNamespace(ns)
		}
		return x
	}
	create := func(r rest.Resource, body string) error {
		obj, err := decode.Raw().Decode([]byte(body))
		if err != nil {
			return err
		}
		if _, err := raw(r).Create(ctx, obj); err != nil && !(r == priorityClasses && rest.IsAlreadyExists(err)) {
			return fmt.Errorf("create %s: %w", r.Resource, err)
		}
		return nil
	}
	if err := waitQuotaController(ctx, env); err != nil {
		return err
	}
	if err := create(priorityClasses, `{"metadata":{"name":"`+quotaPriorityClass+`"},"value":1000}`); err != nil {
		return err
	}
	env.Observer.SetPhase("quotas created")
	// The unscoped quota, which counts resourcequotas, comes last: a
	// quota's creation syncs that quota only (upstream replenishes counts
	// on deletion, and admission charges creations), so created first it
	// would keep a stale count until the full resync.
	for _, q := range append(slices.Clone(quotaSpecs[1:]), quotaSpecs[0]) {
		if err := create(resourceQuotas, q); err != nil {
			return err
		}
	}
	if err := settleQuotas(ctx, env); err != nil {
		return err
	}
	env.Observer.SetPhase("objects created")
	for _, o := range quotaObjects {
		if err := create(o.res, o.body); err != nil {
			return err
		}
	}
	if err := settleQuotas(ctx, env); err != nil {
		return err
	}
	env.Observer.SetPhase("pod succeeded")
	status := `{"status":{"phase":"Succeeded","conditions":[{"type":"Ready","status":"False","reason":"PodCompleted"}]}}`
	if _, err := raw(rest.Pods).Patch(ctx, "done", rest.MergePatch, []byte(status), rest.PatchOptions{}, "status"); err != nil {
		return fmt.Errorf("mark pod done Succeeded: %w", err)
	}
	if err := settleQuotas(ctx, env); err != nil {
		return err
	}
	env.Observer.SetPhase("deleted")
	for _, d := range quotaDeletions {
		if err := raw(d.res).Delete(ctx, d.name, rest.DeleteOptions{}); err != nil {
			return fmt.Errorf("delete %s %s: %w", d.res.Resource, d.name, err)
		}
	}
	return settleQuotas(ctx, env)
}

// readyQuota is the quota waitQuotaController creates, in a namespace of
// its own.
const readyQuota = `{"metadata":{"name":"ready"},"spec":{"hard":{"pods":"1"}}}`

// waitQuotaController waits until the resource quota controller runs its
// workers: it creates readyQuota in the namespace env.Namespace+"-ready"
// and waits until the controller has written its status.
//
// The manager starts as the scenario does, and the controller's workers
// start once its caches have synced. A quota that exists by then is
// queued twice, by its informer's add (the priority queue) and by the
// full recalculation queued as the workers start (the primary queue); the
// two syncs run at once, one status write conflicts, and its retry, after
// a backoff, may run once the quotas have settled, while the next step's
// pods are being created. Quota admission charges a pod to a quota before
// the pod is stored, so the controller can see the charge before its pod
// cache has the pod; a recalculation then writes a usage without the pod,
// and nothing corrects it before the next full recalculation
// (--resource-quota-sync-period, 5 min, beyond the scenario's timeout).
// kube-controller-manager does the same (resource_quota_controller.go:
// addQuota, Run's enqueueAll, syncResourceQuota). Once a worker has
// written a status, that first full recalculation has been queued (by a
// goroutine started with the workers, long before a sync, its write and
// the watch event showing it are done), before any of the scenario's
// quotas exist: each of them is synced once, when created.
func waitQuotaController(ctx context.Context, env *Env) error {
	ns := env.Namespace + "-ready"
	nss := rest.NewResources(env.Client, rest.Namespaces, decode.Typed[api.Namespace]())
	if _, err := nss.Create(ctx, &api.Namespace{ObjectMeta: api.ObjectMeta{Name: ns}}); err != nil {
		return fmt.Errorf("create namespace %s: %w", ns, err)
	}
	obj, err := decode.Raw().Decode([]byte(readyQuota))
	if err != nil {
		return err
	}
	if _, err := rest.NewResources(env.Client, resourceQuotas, decode.Raw()).InNamespace(ns).Create(ctx, obj); err != nil {
		return fmt.Errorf("create resourcequota %s/ready: %w", ns, err)
	}
	quotas := rest.NewResources(env.Client, resourceQuotas, decode.Typed[api.ResourceQuota]()).InNamespace(ns)
	_, err = waitQuotas(ctx, quotas, func(items []*api.ResourceQuota) string {
		if len(items) != 1 || items[0].Status.Hard == nil || items[0].Status.Used == nil {
			return "quota " + ns + "/ready has no status yet"
		}
		return ""
	})
	if err != nil {
		return fmt.Errorf("waiting for the resource quota controller: %w", err)
	}
	return nil
}

// settleQuotas waits, on a watch of the namespace's quotas, until every
// quota's status.hard is its spec.hard and its status.used is what
// package quota computes from the namespace's objects now, then records
// every quota's status as written.
func settleQuotas(ctx context.Context, env *Env) error {
	want, err := expectedUsage(ctx, env)
	if err != nil {
		return err
	}
	quotas := rest.NewResources(env.Client, resourceQuotas, decode.Typed[api.ResourceQuota]()).InNamespace(env.Namespace)
	items, err := waitQuotas(ctx, quotas, func(items []*api.ResourceQuota) string { return quotaLag(items, want) })
	if err != nil {
		return fmt.Errorf("waiting for the quotas to settle: %w", err)
	}
	env.Observer.Record(quotaState(items))
	return nil
}

// waitQuotas lists quotas, then watches them from the list's
// resourceVersion and lists them again after each event, until lag
// returns "" for the listed quotas, which it returns. An error names what
// lag last returned.
func waitQuotas(ctx context.Context, quotas *rest.Resources[*api.ResourceQuota], lag func([]*api.ResourceQuota) string) ([]*api.ResourceQuota, error) {
	for {
		list, err := quotas.List(ctx, rest.ListOptions{})
		if err != nil {
			return nil, err
		}
		behind := lag(list.Items)
		if behind == "" {
			return list.Items, nil
		}
		w, err := quotas.Watch(ctx, rest.WatchOptions{ListOptions: rest.ListOptions{ResourceVersion: list.ResourceVersion, TimeoutSeconds: watchTimeoutSeconds}})
		if err != nil {
			return nil, err
		}
		_, err = w.Next()
		w.Close()
		if err != nil {
			return nil, fmt.Errorf("%s: %w", behind, err)
		}
	}
}

// quotaLag describes the first quota whose status is not yet wanted, or
// returns "".
func quotaLag(items []*api.ResourceQuota, want map[string]resource.List) string {
	if len(items) != len(want) {
		return fmt.Sprintf("%d quotas listed, %d expected", len(items), len(want))
	}
	for _, q := range items {
		hard, err1 := resource.ParseList(q.Spec.Hard)
		statusHard, err2 := resource.ParseList(q.Status.Hard)
		used, err3 := resource.ParseList(q.Status.Used)
		if err1 != nil || err2 != nil || err3 != nil {
			return fmt.Sprintf("quota %s: %v %v %v", q.Name, err1, err2, err3)
		}
		if !quota.Equals(hard, statusHard) || !quota.Equals(used, want[q.Name]) {
			return fmt.Sprintf("quota %s: used %s, want %s", q.Name, listString(q.Status.Used), listString(want[q.Name].Strings()))
		}
	}
	return ""
}

// quotaState renders every quota's status.hard and status.used, as
// written, in name order.
func quotaState(items []*api.ResourceQuota) string {
	slices.SortFunc(items, func(a, b *api.ResourceQuota) int { return strings.Compare(a.Name, b.Name) })
	var b strings.Builder
	for _, q := range items {
		fmt.Fprintf(&b, "%s hard{%s} used{%s}; ", q.Name, listString(q.Status.Hard), listString(q.Status.Used))
	}
	return b.String()
}

func listString(l api.ResourceList) string {
	var parts []string
	for _, k := range slices.Sorted(maps.Keys(l)) {
		parts = append(parts, k+"="+l[k])
	}
	return strings.Join(parts, " ")
}

// expectedUsage computes every quota's usage with package quota from the
// objects the namespace holds now.
func expectedUsage(ctx context.Context, env *Env) (map[string]resource.List, error) {
	ns := env.Namespace
	pods, err := rest.NewResources(env.Client, rest.Pods, decode.Typed[api.Pod]()).InNamespace(ns).List(ctx, rest.ListOptions{})
	if err != nil {
		return nil, err
	}
	svcs, err := rest.NewResources(env.Client, rest.Services, decode.Typed[api.Service]()).InNamespace(ns).List(ctx, rest.ListOptions{})
	if err != nil {
		return nil, err
	}
	pvcs, err := rest.NewResources(env.Client, rest.PersistentVolumeClaims, decode.Typed[api.PersistentVolumeClaim]()).InNamespace(ns).List(ctx, rest.ListOptions{})
	if err != nil {
		return nil, err
	}
	quotas, err := rest.NewResources(env.Client, resourceQuotas, decode.Typed[api.ResourceQuota]()).InNamespace(ns).List(ctx, rest.ListOptions{})
	if err != nil {
		return nil, err
	}
	counts := map[quota.GroupResource]int{{Resource: "resourcequotas"}: len(quotas.Items)}
	deployments := quota.GroupResource{Group: "apps", Resource: "deployments"}
	for gr, r := range map[quota.GroupResource]rest.Resource{
		{Resource: "configmaps"}: rest.ConfigMaps, {Resource: "secrets"}: rest.Secrets,
		{Resource: "replicationcontrollers"}: replicationControllers, deployments: rest.Deployments,
	} {
		l, err := rest.NewResources(env.Client, r, decode.Raw()).InNamespace(ns).List(ctx, rest.ListOptions{})
		if err != nil {
			return nil, err
		}
		counts[gr] = len(l.Items)
	}
	count := func(gr quota.GroupResource) quota.CountFunc {
		return func(string) (int, error) { return counts[gr], nil }
	}
	reg := quota.NewRegistry(
		func(string) ([]*api.Pod, error) { return pods.Items, nil },
		func(string) ([]*api.Service, error) { return svcs.Items, nil },
		func(string) ([]*api.PersistentVolumeClaim, error) { return pvcs.Items, nil },
		count, clock.Real{})
	reg.Add(quota.NewObjectCountEvaluator(deployments, "", count(deployments)))
	want := map[string]resource.List{}
	for _, q := range quotas.Items {
		hard, err := resource.ParseList(q.Spec.Hard)
		if err != nil {
			return nil, err
		}
		scopes := make([]string, len(q.Spec.Scopes))
		for i, s := range q.Spec.Scopes {
			scopes[i] = string(s)
		}
		used, err := quota.CalculateUsage(ns, scopes, hard, reg, q.Spec.ScopeSelector)
		if err != nil {
			return nil, fmt.Errorf("quota %s: %w", q.Name, err)
		}
		want[q.Name] = used
	}
	return want, nil
}
