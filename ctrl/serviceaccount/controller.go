package serviceaccount

import (
	"context"
	"errors"
	"fmt"

	"github.com/kcmlab/kcm/ctrl"
	"github.com/kcmlab/kcm/informer"
	"github.com/kcmlab/kcm/kube/api"
	"github.com/kcmlab/kcm/kube/rest"
	"github.com/kcmlab/kcm/processor"
	"github.com/kcmlab/kcm/queue"
)

// Name is the controller's canonical name, kube-controller-manager's.
const Name = "serviceaccount-controller"

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
		client: rest.NewResources(client, rest.ServiceAccounts, api.Typed[api.ServiceAccount]())}
}

// New is the ControllerConstructor: it takes the namespace and
// ServiceAccount informers from the shared factory and registers the
// handlers that feed the loop.
func New(_ context.Context, cc ctrl.ControllerContext, name string) (ctrl.Controller, error) {
	nsInf := informer.For[api.Namespace](cc.InformerFactory, rest.Namespaces)
	saInf := informer.For[api.ServiceAccount](cc.InformerFactory, rest.ServiceAccounts)
	c := NewController(nsInf.Lister(), informer.ServiceAccountLister{Lister: saInf.Lister()}, cc.ClientFor(name))
	loop := cc.NewLoop(name, c.Sync, ctrl.LoopOptions{Synced: []informer.Synced{nsInf, saInf}})
	h := handlers{q: loop.Queue()}
	_, err := nsInf.AddEventHandler(processor.HandlerFuncs[*api.Namespace]{
		AddFunc: h.namespaceAdded, UpdateFunc: h.namespaceUpdated,
	}, processor.HandlerOptions{Name: name})
	if err != nil {
		return nil, fmt.Errorf("%s: namespace handler: %w", name, err)
	}
	_, err = saInf.AddEventHandler(processor.HandlerFuncs[*api.ServiceAccount]{
		DeleteFunc: h.serviceAccountDeleted,
	}, processor.HandlerOptions{Name: name})
	if err != nil {
		return nil, fmt.Errorf("%s: serviceaccount handler: %w", name, err)
	}
	return loop, nil
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
	if err == nil || rest.IsAlreadyExists(err) || namespaceTerminating(err) {
		return ctrl.Result{}, nil
	}
	return ctrl.Result{}, fmt.Errorf("creating ServiceAccount %s/%s: %w", key, DefaultServiceAccount, err)
}

// namespaceTerminating reports whether err is the apiserver refusing a
// create because the namespace is being deleted.
func namespaceTerminating(err error) bool {
	var se *rest.StatusError
	if !errors.As(err, &se) || se.Status.Details == nil {
		return false
	}
	for _, c := range se.Status.Details.Causes {
		if c.Type == "NamespaceTerminating" {
			return true
		}
	}
	return false
}
