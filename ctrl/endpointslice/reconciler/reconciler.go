package reconciler

import (
	"context"
	"fmt"
	"time"

	"github.com/rs/zerolog"

	"github.com/kcmlab/kcm/ctrl"
	"github.com/kcmlab/kcm/ctrl/endpointslice/topology"
	"github.com/kcmlab/kcm/ctrl/internal/podaddr"
	"github.com/kcmlab/kcm/kube/api"
	"github.com/kcmlab/kcm/kube/api/decode"
	"github.com/kcmlab/kcm/kube/rest"
)

// DefaultMaxEndpointsPerSlice is --max-endpoints-per-slice's default.
const DefaultMaxEndpointsPerSlice = 100

// ReasonFailedToUpdateEndpointSlices is the reason of the Warning Event
// Reconcile records on the Service when it fails (upstream records it in
// syncService; kcm's controller leaves it to Reconcile and must not record
// it again).
const ReasonFailedToUpdateEndpointSlices = "FailedToUpdateEndpointSlices"

// NodeGetter finds a Node by name; informer.Lister[*api.Node] is one. A
// missing node is an error that rest.IsNotFound recognises.
type NodeGetter interface {
	Get(name string) (*api.Node, error)
}

// Config is what a Reconciler works with.
type Config struct {
	// Client writes the slices (discovery.k8s.io/v1 endpointslices).
	Client *rest.Client
	// Nodes gives each endpoint its zone (topology.kubernetes.io/zone).
	// Nil: no zones, and no pod is skipped for a missing node (tests).
	Nodes NodeGetter
	// MaxEndpointsPerSlice is the most endpoints a slice holds; 0 means
	// DefaultMaxEndpointsPerSlice.
	MaxEndpointsPerSlice int32
	// Tracker records the generations of the slices written; nil: a
	// tracker of the Reconciler's own (the controller shares its own).
	Tracker *Tracker
	// Topology serves the topology-mode annotation's hints; nil: the
	// annotation is not served (trafficDistribution hints still are).
	Topology *topology.Cache
	// Recorder records Events on Services; nil records none.
	Recorder ctrl.EventRecorder
	// ControllerName is the managed-by label's value; "" means
	// ControllerName.
	ControllerName string
	// Metrics receives the endpoint_slice_controller_* series; nil
	// records none.
	Metrics *Metrics
	Logger  zerolog.Logger
}

// Reconciler turns a Service's pods and its current slices into the
// creates, updates and deletes that make the slices right
// (k8s.io/endpointslice Reconciler). Safe for concurrent use on
// different Services; one Service must not be reconciled twice at once
// (the controller's queue guarantees it).
type Reconciler struct {
	client         *rest.Resources[*api.EndpointSlice]
	nodes          NodeGetter
	maxPerSlice    int
	tracker        *Tracker
	topology       *topology.Cache
	recorder       ctrl.EventRecorder
	controllerName string
	metrics        *Metrics
	cache          *metricsCache
	log            zerolog.Logger
}

// New returns a Reconciler with cfg's parts, defaults filled in.
func New(cfg Config) *Reconciler {
	if cfg.MaxEndpointsPerSlice <= 0 {
		cfg.MaxEndpointsPerSlice = DefaultMaxEndpointsPerSlice
	}
	if cfg.Tracker == nil {
		cfg.Tracker = NewTracker()
	}
	if cfg.Recorder == nil {
		cfg.Recorder = ctrl.NopRecorder{}
	}
	if cfg.ControllerName == "" {
		cfg.ControllerName = ControllerName
	}
	return &Reconciler{
		client:         rest.NewResources(cfg.Client, rest.EndpointSlices, decode.Typed[api.EndpointSlice]()),
		nodes:          cfg.Nodes,
		maxPerSlice:    int(cfg.MaxEndpointsPerSlice),
		tracker:        cfg.Tracker,
		topology:       cfg.Topology,
		recorder:       cfg.Recorder,
		controllerName: cfg.ControllerName,
		metrics:        cfg.Metrics,
		cache:          newMetricsCache(cfg.Metrics, int(cfg.MaxEndpointsPerSlice)),
		log:            cfg.Logger,
	}
}

// Reconcile makes svc's slices match its pods (Reconcile). existing are
// the slices the controller listed for svc (its service-name label and
// this controller's managed-by label, those being deleted dropped);
// triggerTime, when not zero, is written as the last-change-trigger-time
// annotation of every slice created or updated.
//
// Slices of an address type the Service no longer has are deleted; each
// of its address types is reconciled on its own (reconcileAddressType).
// The errors of every step are aggregated as upstream's are; on error the Warning Event
// FailedToUpdateEndpointSlices is recorded on the Service.
func (r *Reconciler) Reconcile(ctx context.Context, svc *api.Service, pods []*api.Pod, existing []*api.EndpointSlice, triggerTime time.Time) error {
	err := r.reconcile(ctx, svc, pods, existing, triggerTime)
	if err != nil {
		r.recorder.Eventf(ctrl.Ref(rest.Services, svc), "Warning", ReasonFailedToUpdateEndpointSlices,
			"Error updating Endpoint Slices for Service %s/%s: %v", svc.Namespace, svc.Name, err)
	}
	return err
}

func (r *Reconciler) reconcile(ctx context.Context, svc *api.Service, pods []*api.Pod, existing []*api.EndpointSlice, triggerTime time.Time) error {
	types := addressTypes(svc)
	supported := func(t string) bool {
		for _, x := range types {
			if x == t {
				return true
			}
		}
		return false
	}
	byType := map[string][]*api.EndpointSlice{}
	var unsupported []*api.EndpointSlice
	for _, s := range existing {
		if !supported(s.AddressType) {
			r.forgetHints(s)
			unsupported = append(unsupported, s)
			continue
		}
		byType[s.AddressType] = append(byType[s.AddressType], s)
	}
	var errs []error
	for _, t := range types {
		if err := r.reconcileAddressType(ctx, svc, pods, byType[t], triggerTime, t); err != nil {
			errs = append(errs, err)
		}
	}
	for _, s := range unsupported {
		if err := r.client.InNamespace(svc.Namespace).Delete(ctx, s.Name, rest.DeleteOptions{}); err != nil {
			errs = append(errs, fmt.Errorf("deleting EndpointSlice %s of Service %s/%s: %w", s.Name, svc.Namespace, svc.Name, err))
			continue
		}
		r.tracker.ExpectDeletion(s)
		r.metrics.change(opDelete)
	}
	return joinErrors(errs)
}

// DeleteService forgets a deleted Service's share of the metrics.
func (r *Reconciler) DeleteService(namespace, name string) {
	r.cache.deleteService(namespace + "/" + name)
}

// ControllerName is the managed-by label value of this Reconciler's slices.
func (r *Reconciler) ControllerName() string { return r.controllerName }

// ManagedByChanged reports whether one of the two slices is managed by
// this controller and the other not: a slice handed to or taken from
// another manager.
func (r *Reconciler) ManagedByChanged(a, b *api.EndpointSlice) bool {
	return r.ManagedByController(a) != r.ManagedByController(b)
}

// ManagedByController reports whether the slice's managed-by label names
// this controller.
func (r *Reconciler) ManagedByController(s *api.EndpointSlice) bool {
	return s.Labels[LabelManagedBy] == r.controllerName
}

// desiredEndpoints groups the endpoints of addressType that svc's pods
// give by their port sets (the first half of reconcileByAddressType). A
// pod whose node is not cached is left out and reported (ErrNodeNotFound),
// unless the Service publishes not-ready addresses; any other node
// lookup error stops the sync.
func (r *Reconciler) desiredEndpoints(svc *api.Service, pods []*api.Pod, addressType string) (map[portMapKey]*portGroup, []portMapKey, []error, error) {
	groups := map[portMapKey]*portGroup{}
	var order []portMapKey
	var errs []error
	for _, pod := range pods {
		if !podaddr.ShouldBeInEndpoints(pod, true) {
			continue
		}
		ports := endpointPorts(r.log, svc, pod)
		key := sortPorts(ports)
		g := groups[key]
		if g == nil {
			g = &portGroup{ports: ports, addressType: addressType, endpoints: newEndpointSet()}
			groups[key] = g
			order = append(order, key)
		}
		var node *api.Node
		if r.nodes != nil {
			n, err := r.nodes.Get(pod.Spec.NodeName)
			switch {
			case err == nil:
				node = n
			case !rest.IsNotFound(err):
				return nil, nil, nil, fmt.Errorf("getting node %q of pod %s/%s: %w", pod.Spec.NodeName, pod.Namespace, pod.Name, err)
			case !svc.Spec.PublishNotReadyAddresses:
				r.log.Info().Str("pod", pod.Namespace+"/"+pod.Name).Str("service", svc.Namespace+"/"+svc.Name).
					Str("node", pod.Spec.NodeName).Msg("skipping Pod for Service, Node not found")
				errs = append(errs, nodeNotFound{pod: pod.Name, namespace: svc.Namespace, service: svc.Name, node: pod.Spec.NodeName})
				continue
			}
		}
		ep := podToEndpoint(pod, node, svc, addressType)
		if len(ep.Addresses) > 0 {
			g.endpoints.insert(&ep)
		}
	}
	return groups, order, errs, nil
}

// portGroup is the desired state of one port set (endpointMeta and its
// EndpointSet).
type portGroup struct {
	ports       []api.EndpointSlicePort
	addressType string
	endpoints   *endpointSet
}
