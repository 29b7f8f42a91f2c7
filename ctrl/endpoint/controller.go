package endpoint

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"strings"
	"time"

	"github.com/rs/zerolog"

	"github.com/kcmlab/kcm/ctrl"
	"github.com/kcmlab/kcm/ctrl/internal/endpointsubsets"
	"github.com/kcmlab/kcm/ctrl/internal/podaddr"
	"github.com/kcmlab/kcm/ctrl/internal/triggertime"
	"github.com/kcmlab/kcm/informer"
	"github.com/kcmlab/kcm/kube/api"
	"github.com/kcmlab/kcm/kube/api/decode"
	"github.com/kcmlab/kcm/kube/labels"
	"github.com/kcmlab/kcm/kube/rest"
	"github.com/kcmlab/kcm/processor"
)

// Name is the controller's canonical name, kube-controller-manager's.
const Name = "endpoints-controller"

// ClientName names the controller's client as kube-controller-manager
// does, and so its ServiceAccount under --use-service-account-credentials:
// kube-system/endpoint-controller, bound to the bootstrap ClusterRole
// system:controller:endpoint-controller.
const ClientName = "endpoint-controller"

// Component is the name the controller's Events carry as their source
// (upstream's ControllerName, also the managed-by label's value).
const Component = ManagedByValue

// The controller's flags, with kube-controller-manager's defaults.
const (
	ConcurrencyFlagName = "concurrent-endpoint-syncs"
	DefaultConcurrency  = 5
	BatchPeriodFlag     = "endpoint-updates-batch-period"
	// MaxRetries is how often a failing Service is retried before it is
	// dropped until its next event (upstream's maxRetries).
	MaxRetries = 15
)

// Event reasons of failed writes.
const (
	ReasonFailedToCreateEndpoint = "FailedToCreateEndpoint"
	ReasonFailedToUpdateEndpoint = "FailedToUpdateEndpoint"
)

// ErrStaleEndpoints: the cached Endpoints is the version this controller's
// last update replaced; the sync is retried once the cache catches up.
var ErrStaleEndpoints = errors.New("endpoints informer cache is out of date")

// Descriptor registers the controller: on by default, with the alias
// "endpoint", --concurrent-endpoint-syncs workers and
// --endpoint-updates-batch-period.
func Descriptor() *ctrl.ControllerDescriptor {
	return &ctrl.ControllerDescriptor{
		Name: Name, Aliases: []string{"endpoint"},
		Concurrency: &ctrl.ConcurrencyFlag{Name: ConcurrencyFlagName, Default: DefaultConcurrency,
			Usage: "The number of endpoint syncing operations that will be done concurrently. Larger number = faster endpoint updating, but more CPU (and network) load"},
		Flags: []ctrl.ControllerFlag{ctrl.DurationFlag(BatchPeriodFlag, 0,
			"The length of endpoint updates batching period. Processing of pod changes will be delayed by this duration to join them with potential upcoming updates and reduce the overall number of endpoints updates. Larger number = higher endpoint programming latency, but lower number of endpoints revision generated")},
		Constructor: New,
	}
}

// Controller holds what Sync reads and writes; it has no goroutines (the
// ctrl.Loop runs it).
type Controller struct {
	services  informer.ServiceLister
	pods      informer.PodLister
	endpoints informer.EndpointsLister
	client    *rest.Resources[*api.Endpoints]
	recorder  ctrl.EventRecorder
	log       zerolog.Logger
	triggers  *triggertime.Tracker
	stale     *staleEndpoints
}

// Config holds the controller's optional parts.
type Config struct {
	// Recorder records the failed-write Events; nil records none.
	Recorder ctrl.EventRecorder
	Logger   zerolog.Logger
}

// NewController returns the controller's state on the given listers and
// client (tests build it directly).
func NewController(services informer.ServiceLister, pods informer.PodLister, endpoints informer.EndpointsLister, client *rest.Client, cfg Config) *Controller {
	if cfg.Recorder == nil {
		cfg.Recorder = ctrl.NopRecorder{}
	}
	return &Controller{services: services, pods: pods, endpoints: endpoints,
		client:   rest.NewResources(client, rest.Endpoints, decode.Typed[api.Endpoints]()),
		recorder: cfg.Recorder, log: cfg.Logger, triggers: triggertime.New(), stale: newStaleEndpoints()}
}

// New is the ControllerConstructor: it watches Services, pods and
// Endpoints through the shared factory with the handlers that feed the
// loop, and gives the controller its own client and event broadcaster.
func New(_ context.Context, cc ctrl.ControllerContext, name string) (ctrl.Controller, error) {
	client := cc.ClientFor(ClientName)
	events := cc.NewBroadcaster(client)
	w := cc.Wire(name, ctrl.LoopOptions{Events: events, MaxRetries: MaxRetries})
	h := &handlers{q: w.Queue(), batch: cc.DurationFlag(BatchPeriodFlag, 0)}
	services := ctrl.Watch(w, rest.Services, processor.HandlerFuncs[*api.Service]{
		AddFunc: h.serviceAdded, UpdateFunc: h.serviceUpdated, DeleteFunc: h.serviceDeleted,
	})
	pods := ctrl.Watch(w, rest.Pods, processor.HandlerFuncs[*api.Pod]{
		AddFunc: h.podAdded, UpdateFunc: h.podUpdated, DeleteFunc: h.podDeleted,
	})
	endpoints := ctrl.Watch(w, rest.Endpoints, processor.HandlerFuncs[*api.Endpoints]{
		AddFunc: h.endpointsAdded, DeleteFunc: h.endpointsDeleted,
	})
	h.services = informer.ServiceLister{Lister: services}
	c := NewController(h.services, informer.PodLister{Lister: pods}, informer.EndpointsLister{Lister: endpoints}, client,
		Config{Recorder: events.NewRecorder(Component), Logger: cc.LoggerFor(name)})
	return w.Build(c.Sync)
}

// Sync makes the Endpoints of the Service named key ("namespace/name")
// match its pods (upstream's syncService):
//
//  1. the Service is gone: delete its Endpoints;
//  2. an ExternalName Service, or one without a selector: nothing (a
//     selector-less Service's Endpoints are its owner's);
//  3. every selected pod that should be in Endpoints gives one address
//     per service port its targetPort resolves to, ready or not ready;
//     the subsets are repacked into the canonical layout;
//  4. nothing is written when the cached Endpoints has these subsets
//     (directly or once repacked), the right labels and no stale
//     over-capacity annotation;
//  5. otherwise the Endpoints is created or updated with the Service's
//     labels, the managed-by and headless labels, the trigger-time
//     annotation and, past MaxCapacity addresses, the truncation.
func (c *Controller) Sync(ctx context.Context, key string) (ctrl.Result, error) {
	ns, name, ok := strings.Cut(key, "/")
	if !ok {
		c.log.Error().Str("key", key).Msg("Service key is not namespace/name; dropping it")
		return ctrl.Result{}, nil
	}
	svc, err := c.services.Services(ns).Get(name)
	if rest.IsNotFound(err) {
		// The Service is gone: so go its Endpoints. (A Service deleted
		// while no manager ran is found by the start-up pass instead.)
		if err := c.client.InNamespace(ns).Delete(ctx, name, rest.DeleteOptions{}); err != nil && !rest.IsNotFound(err) {
			return ctrl.Result{}, fmt.Errorf("deleting Endpoints %s: %w", key, err)
		}
		c.triggers.Forget(key)
		c.stale.forget(key)
		return ctrl.Result{}, nil
	}
	if err != nil {
		return ctrl.Result{}, err
	}
	if svc.Spec.Type == api.ServiceTypeExternalName || svc.Spec.Selector == nil {
		return ctrl.Result{}, nil
	}
	pods := c.pods.Pods(ns).List(labels.SelectorFromSet(svc.Spec.Selector))
	// Computed before the no-op check, so that the tracker moves on even
	// when nothing is written.
	trigger := c.triggers.Compute(key, svc, pods)
	subsets := endpointsubsets.Repack(c.subsets(svc, pods))

	cur, err := c.endpoints.Endpoints(ns).Get(name)
	switch {
	case rest.IsNotFound(err):
		cur = &api.Endpoints{ObjectMeta: api.ObjectMeta{Name: name, Labels: svc.Labels}}
	case err != nil:
		return ctrl.Result{}, err
	case c.stale.isStale(key, cur.ResourceVersion):
		return ctrl.Result{}, fmt.Errorf("%w: resourceVersion %s of %s was already replaced", ErrStaleEndpoints, cur.ResourceVersion, key)
	}
	create := cur.ResourceVersion == ""
	if !create &&
		(subsetsEqual(cur.Subsets, subsets) || subsetsEqual(endpointsubsets.Repack(cur.Subsets), subsets)) &&
		labelsCorrect(cur.Labels, svc.Labels) && capacityAnnotationCorrect(cur.Annotations, cur.Subsets) {
		return ctrl.Result{}, nil
	}
	next, err := c.desired(cur, create, svc, subsets, trigger)
	if err != nil {
		return ctrl.Result{}, err
	}
	if create {
		_, err = c.client.InNamespace(ns).Create(ctx, next)
		if err == nil || rest.IsNamespaceTerminating(err) {
			return ctrl.Result{}, nil // a namespace being deleted refuses creates: drop the key
		}
		c.recorder.Eventf(ctrl.Ref(rest.Endpoints, next), "Warning", ReasonFailedToCreateEndpoint,
			"Failed to create endpoint for service %v/%v: %v", ns, name, err)
		return ctrl.Result{}, fmt.Errorf("creating Endpoints %s: %w", key, err)
	}
	updated, err := c.client.InNamespace(ns).Update(ctx, next)
	if err != nil {
		c.recorder.Eventf(ctrl.Ref(rest.Endpoints, next), "Warning", ReasonFailedToUpdateEndpoint,
			"Failed to update endpoint %v/%v: %v", ns, name, err)
		return ctrl.Result{}, fmt.Errorf("updating Endpoints %s: %w", key, err)
	}
	if updated.ResourceVersion != cur.ResourceVersion {
		c.stale.markStale(key, cur.ResourceVersion)
	}
	return ctrl.Result{}, nil
}

// subsets are the one-address subsets of svc's pods, before repacking.
func (c *Controller) subsets(svc *api.Service, pods []*api.Pod) []api.EndpointSubset {
	publish := svc.Spec.PublishNotReadyAddresses
	var out []api.EndpointSubset
	for _, pod := range pods {
		if !podaddr.ShouldBeInEndpoints(pod, publish) {
			continue
		}
		addr, err := podAddress(svc, pod)
		if err != nil {
			c.log.Debug().Err(err).Str("service", svc.Key()).Msg("pod left out of Endpoints")
			continue
		}
		if podaddr.ShouldSetHostname(pod, svc) {
			addr.Hostname = pod.Spec.Hostname
		}
		if len(svc.Spec.Ports) == 0 {
			// Only a headless Service may have no ports: its addresses
			// then carry none.
			if svc.Spec.ClusterIP == api.ClusterIPNone {
				s, _ := subsetOf(pod, addr, nil, publish)
				out = append(out, s)
			}
			continue
		}
		for i := range svc.Spec.Ports {
			sp := &svc.Spec.Ports[i]
			num, err := podaddr.FindPort(pod, sp)
			if err != nil {
				c.log.Debug().Err(err).Str("service", svc.Key()).Msg("pod serves no address on this port")
				continue
			}
			p := endpointPort(sp, num)
			s, _ := subsetOf(pod, addr, &p, publish)
			out = append(out, s)
		}
	}
	return out
}

// desired is cur with the computed subsets, the Service's labels plus the
// controller's, and the annotations.
func (c *Controller) desired(cur *api.Endpoints, create bool, svc *api.Service, subsets []api.EndpointSubset, trigger time.Time) (*api.Endpoints, error) {
	next := cur
	if !create {
		var err error
		if next, err = api.DeepCopy(cur); err != nil {
			return nil, err
		}
	}
	next.Subsets = subsets
	next.Labels = maps.Clone(svc.Labels)
	if next.Labels == nil {
		next.Labels = map[string]string{}
	}
	if next.Annotations == nil {
		next.Annotations = map[string]string{}
	}
	if !trigger.IsZero() {
		next.Annotations[AnnotationLastChangeTriggerTime] = trigger.UTC().Format(time.RFC3339Nano)
	} else {
		delete(next.Annotations, AnnotationLastChangeTriggerTime)
	}
	if truncate(next.Subsets) {
		next.Annotations[AnnotationOverCapacity] = truncated
	} else {
		delete(next.Annotations, AnnotationOverCapacity)
	}
	if svc.Spec.ClusterIP == "" || svc.Spec.ClusterIP == api.ClusterIPNone {
		next.Labels[LabelHeadless] = ""
	}
	next.Labels[LabelManagedBy] = ManagedByValue
	return next, nil
}
