package serviceaccounttoken

import (
	"context"
	"fmt"

	"github.com/kcmlab/kcm/ctrl"
	"github.com/kcmlab/kcm/informer"
	"github.com/kcmlab/kcm/kube/api"
	"github.com/kcmlab/kcm/kube/rest"
	"github.com/kcmlab/kcm/processor"
)

// Name is the controller's canonical name, kube-controller-manager's.
const Name = "serviceaccount-token-controller"

// The controller's flags, kube-controller-manager's (SAControllerOptions).
// --root-ca-file (ctrl.RootCAFile) is also root-ca-cert-publisher's: both
// descriptors declare it and the manager registers it once.
const (
	FlagConcurrency    = "concurrent-serviceaccount-token-syncs"
	FlagPrivateKeyFile = "service-account-private-key-file"
	// DefaultConcurrency is --concurrent-serviceaccount-token-syncs'
	// default.
	DefaultConcurrency = 5
)

// Descriptor registers the controller: on by default, with its
// concurrency and the key and CA file flags. kube-controller-manager
// starts it before every other controller (it must mint the tokens
// controllers used to run with); kcm's controllers use kcm's own
// credentials, so it starts in list order.
func Descriptor() *ctrl.ControllerDescriptor {
	return &ctrl.ControllerDescriptor{
		Name: Name, Aliases: []string{"serviceaccount-token"},
		Concurrency: &ctrl.ConcurrencyFlag{Name: FlagConcurrency, Default: DefaultConcurrency,
			Usage: "The number of service account token objects that are allowed to sync concurrently. Larger number = more responsive token generation, but more CPU (and network) load"},
		Flags: []ctrl.ControllerFlag{
			ctrl.StringFlag(FlagPrivateKeyFile, "", "Enables legacy secret-based tokens when set. Filename containing a PEM-encoded private RSA or ECDSA key used to sign service account tokens."),
			ctrl.RootCAFile(),
		},
		// kube-controller-manager builds this controller with its root
		// client builder: under --use-service-account-credentials it keeps
		// the manager's own credentials (the other controllers' tokens are
		// its work).
		RootCredentials: true,
		Constructor:     New,
	}
}

// New is the ControllerConstructor. Without --service-account-private-key-file
// it logs kube-controller-manager's message and runs nothing; a key or CA
// file it cannot use fails the start, naming the file, never its bytes.
func New(_ context.Context, cc ctrl.ControllerContext, name string) (ctrl.Controller, error) {
	log := cc.LoggerFor(name)
	keyFile := cc.StringFlag(FlagPrivateKeyFile, "")
	if keyFile == "" {
		log.Info().Msg("Controller is disabled because there is no private key")
		return nil, nil
	}
	key, err := ReadKeyFile(keyFile)
	if err != nil {
		return nil, fmt.Errorf("error reading key for service account token controller: %w", err)
	}
	signer, err := NewSigner(key)
	if err != nil {
		return nil, fmt.Errorf("failed to build token generator: %w", err)
	}
	rootCA, err := cc.RootCA() // --root-ca-file, else the apiserver CA kcm trusts
	if err != nil {
		return nil, err
	}

	w := cc.Wire(name, ctrl.LoopOptions{MaxRetries: MaxRetries})
	h := &handlers{accounts: w.Queue()} // h.secrets is set below, before the factory starts
	accounts := ctrl.Watch(w, rest.ServiceAccounts, processor.HandlerFuncs[*api.ServiceAccount]{
		AddFunc: h.accountAdded, UpdateFunc: h.accountUpdated, DeleteFunc: h.accountDeleted,
	})
	secrets := ctrl.Watch(w, rest.Secrets, processor.HandlerFuncs[*api.Secret]{
		AddFunc: h.secretAdded, UpdateFunc: h.secretUpdated, DeleteFunc: h.secretDeleted,
	})
	c := NewController(informer.ServiceAccountLister{Lister: accounts}, secrets, cc.ClientFor(name),
		Config{Signer: signer, RootCA: rootCA, Clock: cc.Clock, Logger: log})
	loop, err := w.Build(c.SyncServiceAccount)
	if err != nil {
		return nil, err
	}
	c.accountLoop = loop.(*ctrl.Loop)
	c.secretLoop = cc.NewLoop(name+"-secrets", c.SyncSecret, ctrl.LoopOptions{MaxRetries: MaxRetries, Synced: []informer.Synced{c.accountLoop}})
	h.secrets = c.secretLoop.Queue()
	return c, nil
}
