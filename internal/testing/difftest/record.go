package difftest

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/rs/zerolog"

	"github.com/kcmlab/kcm/kube/api"
	"github.com/kcmlab/kcm/kube/api/decode"
	"github.com/kcmlab/kcm/kube/rest"
	"github.com/kcmlab/kcm/testenv"
)

// Env is what a scenario runs with.
type Env struct {
	Cluster *testenv.Cluster
	Client  *rest.Client
	// Namespace is the scenario's own namespace (named after it), created
	// by the harness with its default ServiceAccount, which pods need.
	Namespace string
	// Observer watches the namespace's Deployments, ReplicaSets and pods.
	Observer *Observer
}

// Scenario is one thing to do to a cluster and the objects to record
// afterwards.
type Scenario struct {
	// Name is also the namespace the scenario runs in.
	Name string
	// Run drives the scenario to its end.
	Run func(ctx context.Context, env *Env) error
	// Record lists the resources whose objects are recorded: in the
	// scenario's namespace, or in all namespaces when ClusterWide.
	Record      []rest.Resource
	ClusterWide bool
	// Check returns the timeline's invariant violations for one side
	// ("A" or "B"); nil for scenarios without a timeline property.
	Check func(side string, tl Timeline) []Difference
	// CompareDeletions compares the order of deletions (by phase and
	// kind) between the sides, for the garbage collector's scenarios.
	CompareDeletions bool
	// Timeout bounds the scenario, recording included; zero means
	// scenarioTimeout.
	Timeout time.Duration
}

// Recording is what one scenario left behind under one manager.
type Recording struct {
	Manager  string
	Scenario string
	Objects  Snapshot
	Timeline Timeline
	// Writes counts the successful writes in the scenario's namespace
	// (and to the namespace itself) by each controller's ServiceAccount,
	// from the cluster's audit log; nil when the cluster keeps none.
	Writes map[string]int
}

// scenarioTimeout bounds one scenario, recording included.
const scenarioTimeout = 90 * time.Second

// RunScenarios starts m on c, runs each scenario in turn, records what it
// left, stops m, and returns the recordings by scenario name. A scenario
// failure stops the run; its error carries the manager's diagnosis. On a
// cluster with an audit log (testenv.Options.AuditWrites), a manager
// whose controllers act as their own ServiceAccounts (Identities) must
// have made every write as the right identity (CheckWrites), or the run
// fails naming each write that was not.
func RunScenarios(ctx context.Context, c *testenv.Cluster, m Manager, scenarios ...Scenario) (map[string]*Recording, error) {
	cfg := c.Config()
	cfg.UserAgent = harnessUserAgent
	client, err := rest.NewClient(cfg)
	if err != nil {
		return nil, err
	}
	defer client.CloseIdleConnections()
	stop, err := m.Start(ctx, c)
	if err != nil {
		return nil, fmt.Errorf("difftest: start %s: %w", m.Name(), err)
	}
	out := map[string]*Recording{}
	for _, sc := range scenarios {
		rec, err := runScenario(ctx, c, client, sc)
		if err != nil {
			if d, ok := m.(Diagnoser); ok {
				err = fmt.Errorf("%w\n%s", err, d.Diagnose())
			}
			return nil, errors.Join(fmt.Errorf("difftest: scenario %s under %s: %w", sc.Name, m.Name(), err), stop())
		}
		rec.Manager = m.Name()
		out[sc.Name] = rec
	}
	if err := stop(); err != nil {
		return nil, fmt.Errorf("difftest: stop %s: %w", m.Name(), err)
	}
	if err := checkAudit(c, m, out); err != nil {
		return nil, err
	}
	return out, nil
}

// harnessUserAgent is the User-Agent of the harness's own requests, which
// no manager's Identities claims.
const harnessUserAgent = "difftest"

// checkAudit checks the writes of m's clients in c's audit log and counts
// each recording's writes by account.
func checkAudit(c *testenv.Cluster, m Manager, recs map[string]*Recording) error {
	var namespaces []string
	for name := range recs {
		namespaces = append(namespaces, name)
	}
	writes, err := AuditWrites(c, m, namespaces...)
	if err != nil {
		return err
	}
	for name, rec := range recs {
		rec.Writes = writes[name]
	}
	return nil
}

// AuditWrites checks, on a cluster with an audit log, that every write by
// m's clients so far was made as the right identity (CheckWrites), and
// returns the successful writes by ServiceAccount in each of namespaces.
// It does nothing for a cluster without an audit log or a manager that is
// not Identities.
func AuditWrites(c *testenv.Cluster, m Manager, namespaces ...string) (map[string]map[string]int, error) {
	ids, ok := m.(Identities)
	if !ok || c.AuditLogPath() == "" {
		return nil, nil
	}
	events, err := c.AuditEvents()
	if err != nil {
		return nil, fmt.Errorf("difftest: %s: %w", m.Name(), err)
	}
	problems, writes := CheckWrites(events, ids, namespaces)
	if len(problems) > 0 {
		return nil, fmt.Errorf("difftest: %s wrote as the wrong identity (%d writes):\n  %s", m.Name(), len(problems),
			strings.Join(problems, "\n  "))
	}
	return writes, nil
}

// RunOnFreshCluster starts a cluster of its own, runs the scenarios under
// m on it, and stops the cluster.
//
// Each manager gets a fresh cluster because controllers are cluster-wide:
// two managers on one cluster would both reconcile every namespace, and
// one after the other they would not start from the same world (the
// second would find, and act on, what the first left; cluster-scoped
// state such as namespaces and their ServiceAccounts would differ). A
// cluster costs a few seconds to start.
func RunOnFreshCluster(ctx context.Context, m Manager, log zerolog.Logger, scenarios ...Scenario) (map[string]*Recording, error) {
	return RunOnFreshClusterWith(ctx, m, testenv.Options{Logger: log, AuditWrites: true}, scenarios...)
}

// RunOnFreshClusterWith is RunOnFreshCluster on a cluster started with
// opts: with kube-scheduler and kwok nodes (Options.Nodes) for scenarios
// whose pods must run on nodes. The cluster always keeps an audit log of
// writes (Options.AuditWrites), which RunScenarios checks.
func RunOnFreshClusterWith(ctx context.Context, m Manager, opts testenv.Options, scenarios ...Scenario) (map[string]*Recording, error) {
	opts.AuditWrites = true
	c, err := testenv.Start(ctx, opts)
	if err != nil {
		return nil, err
	}
	defer c.Stop()
	return RunScenarios(ctx, c, m, scenarios...)
}

// runScenario creates the scenario's namespace, runs it with an observer,
// and records the objects.
func runScenario(ctx context.Context, c *testenv.Cluster, client *rest.Client, sc Scenario) (*Recording, error) {
	timeout := sc.Timeout
	if timeout <= 0 {
		timeout = scenarioTimeout
	}
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	if err := createNamespace(ctx, client, sc.Name); err != nil {
		return nil, err
	}
	obs, err := Observe(ctx, client, sc.Name)
	if err != nil {
		return nil, err
	}
	defer obs.Stop()
	env := &Env{Cluster: c, Client: client, Namespace: sc.Name, Observer: obs}
	if err := sc.Run(ctx, env); err != nil {
		return nil, err
	}
	ns := sc.Name
	if sc.ClusterWide {
		ns = ""
	}
	objs, err := listObjects(ctx, client, ns, sc.Record)
	if err != nil {
		return nil, err
	}
	snap, err := Normalize(objs)
	if err != nil {
		return nil, err
	}
	return &Recording{Scenario: sc.Name, Objects: snap, Timeline: obs.Timeline()}, nil
}

// createNamespace creates the namespace and its default ServiceAccount.
// The ServiceAccount is made here rather than waited for, so that
// scenarios do not depend on the serviceaccount controller; if the
// controller made it first, that is fine.
func createNamespace(ctx context.Context, client *rest.Client, name string) error {
	nss := rest.NewResources(client, rest.Namespaces, decode.Typed[api.Namespace]())
	if _, err := nss.Create(ctx, &api.Namespace{ObjectMeta: api.ObjectMeta{Name: name}}); err != nil {
		return fmt.Errorf("difftest: create namespace %s: %w", name, err)
	}
	sas := rest.NewResources(client, rest.ServiceAccounts, decode.Typed[api.ServiceAccount]()).InNamespace(name)
	_, err := sas.Create(ctx, &api.ServiceAccount{ObjectMeta: api.ObjectMeta{Name: "default"}})
	if err != nil && !rest.IsAlreadyExists(err) {
		return fmt.Errorf("difftest: create the default ServiceAccount of %s: %w", name, err)
	}
	return nil
}

// listObjects lists each resource in ns ("" = all namespaces) as maps,
// with kind and apiVersion set (list items do not carry them).
func listObjects(ctx context.Context, client *rest.Client, ns string, resources []rest.Resource) ([]Object, error) {
	var out []Object
	for _, res := range resources {
		r := rest.NewResources(client, res, decode.Raw())
		if ns != "" {
			r = r.InNamespace(ns)
		}
		list, err := r.List(ctx, rest.ListOptions{})
		if err != nil {
			return nil, fmt.Errorf("difftest: list %s: %w", res, err)
		}
		for _, item := range list.Items {
			m, err := item.Map()
			if err != nil {
				return nil, err
			}
			m["kind"] = res.Kind
			m["apiVersion"] = res.GroupVersion()
			out = append(out, m)
		}
	}
	return out, nil
}

// Compare returns the differences between two recordings of one
// scenario: the objects (after normalisation, less the allowances), the
// ReplicaSet spec steps, the states the scenario recorded, the order of
// deletions when the scenario asks, and each side's timeline invariants.
func Compare(sc Scenario, a, b *Recording, allow []Allowance) []Difference {
	diffs := DiffSnapshots(a.Objects, b.Objects, allow)
	diffs = append(diffs, DiffSpecs(a.Timeline, b.Timeline)...)
	diffs = append(diffs, DiffStates(a.Timeline, b.Timeline)...)
	if sc.CompareDeletions {
		diffs = append(diffs, DiffDeletions(a.Timeline, b.Timeline)...)
	}
	if sc.Check != nil {
		diffs = append(diffs, sc.Check("A", a.Timeline)...)
		diffs = append(diffs, sc.Check("B", b.Timeline)...)
	}
	return diffs
}
