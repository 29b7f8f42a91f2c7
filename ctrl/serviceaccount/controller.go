package serviceaccount

import (
	"context"
	"errors"
	"fmt"

	"github.com/kcmlab/kcm/ctrl"
	"github.com/kcmlab/kcm/informer"
	"github.com/kcmlab/kcm/kube"
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
	namespaces informer.Lister[*kube.Namespace]
	accounts   informer.ServiceAccountLister
	client     *kube.Resources[*kube.ServiceAccount]
}

// NewController returns the controller's state on the given listers and
// client (tests build it directly).
func NewController(namespaces informer.Lister[*kube.Namespace], accounts informer.ServiceAccountLister, client *kube.Client) *Controller {
	return &Controller{namespaces: namespaces, accounts: accounts,
		client: kube.NewResources(client, kube.ServiceAccounts, kube.Typed[kube.ServiceAccount]())}
}

// New is the ControllerConstructor: it takes the namespace and
// ServiceAccount informers from the shared factory and registers the
// handlers that feed the loop.
func New(_ context.Context, cc ctrl.ControllerContext, name string) (ctrl.Controller, error) {
	nsInf := informer.For[kube.Namespace](cc.InformerFactory, kube.Namespaces)
	saInf := informer.For[kube.ServiceAccount](cc.InformerFactory, kube.ServiceAccounts)
	c := NewController(nsInf.Lister(), informer.ServiceAccountLister{Lister: saInf.Lister()}, cc.ClientFor(name))
	loop := cc.NewLoop(name, c.Sync, ctrl.LoopOptions{Synced: []informer.Synced{nsInf, saInf}})
	h := handlers{q: loop.Queue()}
	_, err := nsInf.AddEventHandler(processor.HandlerFuncs[*kube.Namespace]{
		AddFunc: h.namespaceAdded, UpdateFunc: h.namespaceUpdated,
	}, processor.HandlerOptions{Name: name})
	if err != nil {
		return nil, fmt.Errorf("%s: namespace handler: %w", name, err)
	}
	_, err = saInf.AddEventHandler(processor.HandlerFuncs[*kube.ServiceAccount]{
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

func (h handlers) namespaceAdded(ns *kube.Namespace, _ bool) { h.q.Add(ns.Name) }
func (h handlers) namespaceUpdated(_, ns *kube.Namespace)    { h.q.Add(ns.Name) }
func (h handlers) serviceAccountDeleted(sa *kube.ServiceAccount, _ bool) {
	if sa.Name == DefaultServiceAccount {
		h.q.Add(sa.Namespace)
	}
}

// Sync ensures the namespace named key has its default ServiceAccount.
func (c *Controller) Sync(ctx context.Context, key string) (ctrl.Result, error) {
	ns, err := c.namespaces.Get(key)
	if kube.IsNotFound(err) {
		return ctrl.Result{}, nil // deleted: nothing to do
	}
	if err != nil {
		return ctrl.Result{}, err
	}
	if ns.Status.Phase != kube.NamespaceActive {
		return ctrl.Result{}, nil // terminating: creating would be refused
	}
	_, err = c.accounts.ServiceAccounts(key).Get(DefaultServiceAccount)
	if err == nil {
		return ctrl.Result{}, nil
	}
	if !kube.IsNotFound(err) {
		return ctrl.Result{}, err
	}
	sa := &kube.ServiceAccount{ObjectMeta: kube.ObjectMeta{Name: DefaultServiceAccount, Namespace: key}}
	_, err = c.client.Create(ctx, sa)
	if err == nil || kube.IsAlreadyExists(err) || namespaceTerminating(err) {
		return ctrl.Result{}, nil
	}
	return ctrl.Result{}, fmt.Errorf("creating ServiceAccount %s/%s: %w", key, DefaultServiceAccount, err)
}

// namespaceTerminating reports whether err is the apiserver refusing a
// create because the namespace is being deleted.
func namespaceTerminating(err error) bool {
	var se *kube.StatusError
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
