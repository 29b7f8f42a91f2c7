package serviceaccount

import (
	"context"
	"fmt"

	"github.com/kcmlab/kcm/ctrl"
	"github.com/kcmlab/kcm/informer"
	"github.com/kcmlab/kcm/kube/api"
	"github.com/kcmlab/kcm/kube/api/decode"
	"github.com/kcmlab/kcm/kube/rest"
	"github.com/kcmlab/kcm/processor"
	"github.com/kcmlab/kcm/queue"
)

// Name is the controller's canonical name, kube-controller-manager's.
const Name = "serviceaccount-controller"

// ClientName names the controller's client as kube-controller-manager
// does, and so its ServiceAccount under --use-service-account-credentials:
// kube-system/service-account-controller, bound to the bootstrap ClusterRole
// system:controller:service-account-controller.
const ClientName = "service-account-controller"

// DefaultServiceAccount is the account every active namespace gets.
const DefaultServiceAccount = "default"

// Descriptor registers the controller: on by default, one worker (as
// kube-controller-manager runs it; it has no --concurrent-*-syncs flag).
func Descriptor() *ctrl.ControllerDescriptor {
	return &ctrl.ControllerDescriptor{Name: Name, Aliases: []string{"serviceaccount"}, Constructor: New}
}

// Controller holds what sync reads and writes; it has no goroutines (the
// ctrl.Loop runs it).
type Controller struct {
	namespaces informer.Lister[*api.Namespace]
	accounts   informer.ServiceAccountLister
	client     *rest.Resources[*api.ServiceAccount]
}

// NewController returns the controller's state on the given listers and
// client (tests build it directly).
func NewController(namespaces informer.Lister[*api.Namespace], accounts informer.ServiceAccountLister, client *rest.Client) *Controller {
	return &Controller{namespaces: namespaces, accounts: accounts,
		client: rest.NewResources(client, rest.ServiceAccounts, decode.Typed[api.ServiceAccount]())}
}

// New is the ControllerConstructor: it watches namespaces and
// ServiceAccounts through the shared factory, with the handlers that feed
// the loop; the loop waits for both handlers' registrations.
func New(_ context.Context, cc ctrl.ControllerContext, name string) (ctrl.Controller, error) {
	w := cc.Wire(name, ctrl.LoopOptions{})
	h := handlers{q: w.Queue()}
	namespaces := ctrl.Watch(w, rest.Namespaces, processor.HandlerFuncs[*api.Namespace]{
		AddFunc: h.namespaceAdded, UpdateFunc: h.namespaceUpdated,
	})
	accounts := ctrl.Watch(w, rest.ServiceAccounts, processor.HandlerFuncs[*api.ServiceAccount]{
		DeleteFunc: h.serviceAccountDeleted,
	})
	c := NewController(namespaces, informer.ServiceAccountLister{Lister: accounts}, cc.ClientFor(ClientName))
	return w.Build(c.Sync)
}

// handlers turn informer notifications into namespace keys
// (kube-controller-manager's namespaceAdded, namespaceUpdated and
// serviceAccountDeleted).
type handlers struct{ q *queue.Queue[string] }

func (h handlers) namespaceAdded(ns *api.Namespace, _ bool) { h.q.Add(ns.Name) }
func (h handlers) namespaceUpdated(_, ns *api.Namespace)    { h.q.Add(ns.Name) }
func (h handlers) serviceAccountDeleted(sa *api.ServiceAccount, _ bool) {
	if sa.Name == DefaultServiceAccount {
		h.q.Add(sa.Namespace)
	}
}

// Sync ensures the namespace named key has its default ServiceAccount.
func (c *Controller) Sync(ctx context.Context, key string) (ctrl.Result, error) {
	ns, err := c.namespaces.Get(key)
	if rest.IsNotFound(err) {
		return ctrl.Result{}, nil // deleted: nothing to do
	}
	if err != nil {
		return ctrl.Result{}, err
	}
	if ns.Status.Phase != api.NamespaceActive {
		return ctrl.Result{}, nil // terminating: creating would be refused
	}
	_, err = c.accounts.ServiceAccounts(key).Get(DefaultServiceAccount)
	if err == nil {
		return ctrl.Result{}, nil
	}
	if !rest.IsNotFound(err) {
		return ctrl.Result{}, err
	}
	sa := &api.ServiceAccount{ObjectMeta: api.ObjectMeta{Name: DefaultServiceAccount, Namespace: key}}
	_, err = c.client.Create(ctx, sa)
	if err == nil || rest.IsAlreadyExists(err) || rest.IsNamespaceTerminating(err) {
		return ctrl.Result{}, nil
	}
	return ctrl.Result{}, fmt.Errorf("creating ServiceAccount %s/%s: %w", key, DefaultServiceAccount, err)
}
