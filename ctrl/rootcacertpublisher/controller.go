package rootcacertpublisher

import (
	"context"
	"fmt"

	"github.com/rs/zerolog"

	"github.com/kcmlab/kcm/clock"
	"github.com/kcmlab/kcm/ctrl"
	"github.com/kcmlab/kcm/informer"
	"github.com/kcmlab/kcm/kube/api"
	"github.com/kcmlab/kcm/kube/api/decode"
	"github.com/kcmlab/kcm/kube/rest"
	"github.com/kcmlab/kcm/processor"
	"github.com/kcmlab/kcm/queue"
)

// Name is the controller's canonical name, kube-controller-manager's.
const Name = "root-ca-certificate-publisher-controller"

// ClientName names the controller's client as kube-controller-manager
// does, and so its ServiceAccount under --use-service-account-credentials:
// kube-system/root-ca-cert-publisher, bound to the bootstrap ClusterRole
// system:controller:root-ca-cert-publisher.
const ClientName = "root-ca-cert-publisher"

// What the controller writes, kube-controller-manager's constants.
const (
	// ConfigMapName is the ConfigMap every namespace gets.
	ConfigMapName = "kube-root-ca.crt"
	// CAKey is its one data key.
	CAKey = "ca.crt"
	// DescriptionAnnotation is the annotation that says what it is for.
	DescriptionAnnotation = "kubernetes.io/description"
	// Description is that annotation's value.
	Description = "Contains a CA bundle that can be used to verify the kube-apiserver when using internal endpoints " +
		"such as the internal service IP or kubernetes.default.svc. " +
		"No other usage is guaranteed across distributions of Kubernetes clusters."
)

// Descriptor registers the controller: on by default, alias
// "root-ca-cert-publisher", --root-ca-file, one worker (kube-controller-manager
// runs it with one and has no --concurrent-*-syncs flag for it).
func Descriptor() *ctrl.ControllerDescriptor {
	return &ctrl.ControllerDescriptor{
		Name: Name, Aliases: []string{"root-ca-cert-publisher"},
		Flags:       []ctrl.ControllerFlag{ctrl.RootCAFile()},
		Constructor: New,
	}
}

// Config holds what a Controller needs besides its lister and client.
type Config struct {
	// RootCA is the bundle published as ca.crt (nil publishes "").
	RootCA []byte
	// Clock times the syncs for the metrics; nil means real.
	Clock clock.Clock
	// Logger gets each sync's outcome at debug level.
	Logger zerolog.Logger
	// Metrics counts and times the syncs; nil records none.
	Metrics *Metrics
}

// Controller holds what Sync reads and writes; it has no goroutines (a
// ctrl.Loop runs it).
type Controller struct {
	configMaps informer.Lister[*api.ConfigMap]
	client     *rest.Resources[*api.ConfigMap]
	rootCA     string
	clock      clock.Clock
	log        zerolog.Logger
	metrics    *Metrics
}

// NewController returns the controller on the given ConfigMap lister and
// client (tests build it directly; New wires it to the informers).
func NewController(configMaps informer.Lister[*api.ConfigMap], client *rest.Client, cfg Config) *Controller {
	if cfg.Clock == nil {
		cfg.Clock = clock.Real{}
	}
	return &Controller{configMaps: configMaps,
		client: rest.NewResources(client, rest.ConfigMaps, decode.Typed[api.ConfigMap]()),
		rootCA: string(cfg.RootCA), clock: cfg.Clock, log: cfg.Logger, metrics: cfg.Metrics}
}

// New is the ControllerConstructor: it reads the CA (--root-ca-file, else
// the client's; a bad file fails the start, as in kube-controller-manager),
// watches namespaces and ConfigMaps through the shared factory, and the
// loop waits for both handlers' registrations.
func New(_ context.Context, cc ctrl.ControllerContext, name string) (ctrl.Controller, error) {
	rootCA, err := cc.RootCA()
	if err != nil {
		return nil, err
	}
	cfg := Config{RootCA: rootCA, Clock: cc.Clock, Logger: cc.LoggerFor(name)}
	if reg := cc.Metrics.Registerer(); reg != nil {
		if cfg.Metrics, err = NewMetrics(reg); err != nil {
			return nil, err
		}
	}
	w := cc.Wire(name, ctrl.LoopOptions{})
	h := handlers{q: w.Queue()}
	ctrl.Watch(w, rest.Namespaces, processor.HandlerFuncs[*api.Namespace]{
		AddFunc: h.namespaceAdded, UpdateFunc: h.namespaceUpdated,
	})
	configMaps := ctrl.Watch(w, rest.ConfigMaps, processor.HandlerFuncs[*api.ConfigMap]{
		UpdateFunc: h.configMapUpdated, DeleteFunc: h.configMapDeleted,
	})
	c := NewController(configMaps, cc.ClientFor(ClientName), cfg)
	loop, err := w.Build(c.Sync)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	return loop, nil
}

// handlers turn informer notifications into namespace keys
// (kube-controller-manager's namespaceAdded, namespaceUpdated,
// configMapUpdated and configMapDeleted).
type handlers struct{ q *queue.Queue[string] }

// namespaceAdded enqueues every namespace the informer sees.
func (h handlers) namespaceAdded(ns *api.Namespace, _ bool) { h.q.Add(ns.Name) }

// namespaceUpdated enqueues an Active namespace; a terminating one is
// left alone (its create would be refused).
func (h handlers) namespaceUpdated(_, ns *api.Namespace) {
	if ns.Status.Phase == api.NamespaceActive {
		h.q.Add(ns.Name)
	}
}

// configMapUpdated enqueues the namespace of an edited kube-root-ca.crt.
func (h handlers) configMapUpdated(_, cm *api.ConfigMap) {
	if cm.Name == ConfigMapName {
		h.q.Add(cm.Namespace)
	}
}

// configMapDeleted enqueues the namespace of a deleted kube-root-ca.crt,
// a tombstone's too.
func (h handlers) configMapDeleted(cm *api.ConfigMap, _ bool) {
	if cm.Name == ConfigMapName {
		h.q.Add(cm.Namespace)
	}
}
