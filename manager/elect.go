package manager

import (
	"context"
	"time"

	"github.com/kcmlab/kcm/clock"
	"github.com/kcmlab/kcm/ctrl"
	"github.com/kcmlab/kcm/kube/rest"
	"github.com/kcmlab/kcm/lease"
)

// LeaderElectionCheckName is the /healthz check of leader election, named
// as kube-controller-manager names it.
const LeaderElectionCheckName = "leaderElection"

// leaderElectionClient is the controller name of the elector's client
// (kube-controller-manager's "leader-election" user agent).
const leaderElectionClient = "leader-election"

// newElector returns the elector of the --leader-elect-* flags, on a
// client of its own, that runs the controllers while it leads
// (kube-controller-manager's leaderElectAndRun). It releases the lease
// when ctx ends (client-go's ReleaseOnCancel), so a standby takes over at
// once after a clean shutdown instead of after the lease duration.
func (m *manager) newElector(ctx context.Context) (*lease.Elector, error) {
	l := m.o.LeaderElection
	return lease.New(m.electionClient(), lease.Config{
		Namespace: l.ResourceNamespace, Name: l.ResourceName, Identity: m.cfg.Identity,
		LeaseDuration: l.LeaseDuration, RenewDeadline: l.RenewDeadline, RetryPeriod: l.RetryPeriod,
		ReleaseOnCancel: true,
		Clock:           m.cfg.Clock, Logger: m.log, Registerer: m.reg,
		Callbacks: lease.Callbacks{
			OnStartedLeading: func(lctx context.Context) { m.lead(ctx, lctx) },
		},
	})
}

// electionClient is the elector's client: the manager's, with the
// "leader-election" User-Agent and limits of its own, and its content type
// (kube-controller-manager's resourcelock.NewFromKubeconfig copies the
// manager's kubeconfig, ContentType included).
func (m *manager) electionClient() *rest.Client {
	return m.client.WithOptions(ctrl.UserAgent(GetVersion(), leaderElectionClient), m.o.KubeAPIQPS, int(m.o.KubeAPIBurst))
}

// lead runs the controllers for as long as this instance leads. campaign
// is the context of the whole Run, lctx the leader's.
func (m *manager) lead(campaign, lctx context.Context) {
	ctx, _, stop := abortOnLoss(campaign, lctx)
	defer stop()
	m.runControllers(ctx)
}

// abortOnLoss returns lctx carrying an abort context (ctrl.WithAbort)
// that ends when lctx ends while campaign goes on: leadership was lost, so
// the syncs in flight are cancelled at once rather than drained, since
// another instance may take over LeaseDuration − RenewDeadline later.
// When campaign itself ends (SIGTERM), lctx ends with it and the syncs
// drain. aborted is the abort context; stop releases the resources.
func abortOnLoss(campaign, lctx context.Context) (ctx, aborted context.Context, stop func()) {
	abortCtx, abort := context.WithCancel(context.WithoutCancel(lctx))
	unhook := context.AfterFunc(lctx, func() {
		if campaign.Err() == nil {
			abort()
		}
	})
	return ctrl.WithAbort(lctx, abortCtx), abortCtx, func() { unhook(); abort() }
}

// leaderElectionCheck is the /healthz check of leader election
// (client-go's HealthzAdaptor): it fails when this instance believes it
// leads but has not renewed for the lease duration plus the tolerance
// (lease.DefaultHealthTolerance, kube-controller-manager's 20 s), measured
// on clk. A standby always passes.
func leaderElectionCheck(e interface{ Check(now time.Time) error }, clk clock.Clock) HealthCheck {
	return NamedCheck(LeaderElectionCheckName, func() error { return e.Check(clk.Now()) })
}
