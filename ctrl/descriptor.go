package ctrl

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"slices"
)

// Controller is what a constructor returns and the manager runs: a name
// for logs and metrics, and Run, which blocks running workers until ctx
// ends and returns only when they have stopped (kube-controller-manager's
// app.Controller). A *Loop is one.
type Controller interface {
	Name() string
	Run(ctx context.Context, workers int) error
}

// Debuggable is a controller that serves pages for people debugging it:
// the manager mounts its handler under /debug/controllers/<name>/, the
// prefix stripped (k8s.io/controller-manager's controller.Debuggable).
// The garbage collector serves its graph there.
type Debuggable interface {
	DebuggingHandler() http.Handler
}

// ControllerConstructor builds a controller from the shared context: it
// takes its informers from cc.InformerFactory, registers its handlers and
// returns the controller, which does not run yet. A nil Controller with a
// nil error means "nothing to run" (kube-controller-manager's convention
// for a controller that is disabled by its configuration).
type ControllerConstructor func(ctx context.Context, cc ControllerContext, name string) (Controller, error)

// ConcurrencyFlag is a controller's --concurrent-<x>-syncs flag: how many
// workers it runs. A controller without one runs DefaultWorkers.
type ConcurrencyFlag struct {
	// Name is the flag name without dashes, as kube-controller-manager
	// spells it: "concurrent-replicaset-syncs".
	Name string
	// Default is kube-controller-manager's default for the flag.
	Default int
	// Usage is the flag's help text.
	Usage string
	// Min and Max bound the value where kube-controller-manager validates
	// it (the EndpointSlice controllers: 1..50); zero means no bound (a
	// negative count is refused either way).
	Min, Max int
}

// DefaultWorkers is the worker count of a controller without a
// concurrency flag (kube-controller-manager starts the serviceaccount
// controller with one worker, hard-coded).
const DefaultWorkers = 1

// ControllerDescriptor is the static description of one controller: the
// row of the registry that --controllers, --help and the manager's start-up
// read (kube-controller-manager's app.ControllerDescriptor).
type ControllerDescriptor struct {
	// Name is the canonical name, e.g. "replicaset-controller".
	Name string
	// Aliases are older names --controllers still accepts, e.g.
	// "replicaset". kube-controller-manager never removes one.
	Aliases []string
	// DisabledByDefault keeps the controller off under "*"; only its name
	// in --controllers turns it on.
	DisabledByDefault bool
	// Concurrency is the controller's worker-count flag, if it has one.
	Concurrency *ConcurrencyFlag
	// Flags are the controller's other flags, kube-controller-manager's
	// per-controller options (--enable-garbage-collector); the
	// constructor reads them with ControllerContext.BoolFlag and
	// DurationFlag.
	Flags []ControllerFlag
	// Constructor builds the controller.
	Constructor ControllerConstructor
	// RootCredentials: the constructor's context keeps the manager's own
	// credentials under --use-service-account-credentials
	// (ControllerContext.WithRootCredentials), as kube-controller-manager
	// builds the serviceaccount-token controller with its root client
	// builder (its descriptor's RequiresSpecialHandling).
	RootCredentials bool
}

// Errors of the registry and of --controllers.
var (
	// ErrInvalidDescriptor: a descriptor without a name or constructor,
	// or whose name or alias is already taken.
	ErrInvalidDescriptor = errors.New("ctrl: invalid controller descriptor")
	// ErrUnknownController: --controllers names a controller nobody
	// registered.
	ErrUnknownController = errors.New("not in the list of known controllers")
)

// Descriptors is the registry: every controller kcm knows, in
// registration order, with their names and aliases checked to be unique
// (kube-controller-manager's NewControllerDescriptors). Build it once with
// NewDescriptors; it is read-only afterwards.
type Descriptors struct {
	list []*ControllerDescriptor
	// byName maps canonical names and aliases to their descriptor.
	byName map[string]*ControllerDescriptor
}

// NewDescriptors checks and indexes ds. A descriptor without a name or a
// constructor, a name registered twice, an alias that collides with a
// name or another alias, or a flag that two descriptors declare
// differently (usage, type or default) is an ErrInvalidDescriptor.
func NewDescriptors(ds ...*ControllerDescriptor) (*Descriptors, error) {
	r := &Descriptors{byName: make(map[string]*ControllerDescriptor, len(ds))}
	flags := sharedFlags{}
	for _, d := range ds {
		if d == nil || d.Name == "" {
			return nil, fmt.Errorf("%w: a descriptor has no name", ErrInvalidDescriptor)
		}
		if d.Constructor == nil {
			return nil, fmt.Errorf("%w: %q has no constructor", ErrInvalidDescriptor, d.Name)
		}
		for _, n := range append([]string{d.Name}, d.Aliases...) {
			if _, taken := r.byName[n]; taken {
				return nil, fmt.Errorf("%w: %q (of %q) is registered twice", ErrInvalidDescriptor, n, d.Name)
			}
			r.byName[n] = d
		}
		for _, f := range d.Flags {
			if err := flags.add(d.Name, f); err != nil {
				return nil, err
			}
		}
		r.list = append(r.list, d)
	}
	return r, nil
}

// All returns the descriptors in registration order.
func (r *Descriptors) All() []*ControllerDescriptor { return slices.Clone(r.list) }

// Lookup finds a descriptor by canonical name or alias.
func (r *Descriptors) Lookup(name string) (*ControllerDescriptor, bool) {
	d, ok := r.byName[name]
	return d, ok
}

// KnownControllers returns every canonical name, sorted.
func (r *Descriptors) KnownControllers() []string {
	names := make([]string, 0, len(r.list))
	for _, d := range r.list {
		names = append(names, d.Name)
	}
	slices.Sort(names)
	return names
}

// ControllersDisabledByDefault returns the canonical names that "*" leaves
// off, sorted.
func (r *Descriptors) ControllersDisabledByDefault() []string {
	var names []string
	for _, d := range r.list {
		if d.DisabledByDefault {
			names = append(names, d.Name)
		}
	}
	slices.Sort(names)
	return names
}

// ControllerAliases maps every alias to its canonical name.
func (r *Descriptors) ControllerAliases() map[string]string {
	m := map[string]string{}
	for _, d := range r.list {
		for _, a := range d.Aliases {
			m[a] = d.Name
		}
	}
	return m
}
