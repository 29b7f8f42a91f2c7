package manager

import (
	"context"
	"testing"
	"testing/synctest"
)

// TestAbortOnLoss: the leader's context ending on its own (the lease was
// lost) aborts the syncs in flight; the campaign ending (SIGTERM, which
// ends the leader's context with it) does not — they drain.
func TestAbortOnLoss(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		campaign, stopCampaign := context.WithCancel(context.Background())
		defer stopCampaign()
		lctx, lose := context.WithCancel(campaign)
		ctx, aborted, stop := abortOnLoss(campaign, lctx)
		defer stop()
		if ctx.Err() != nil || aborted.Err() != nil {
			t.Fatal("aborted before anything ended")
		}
		lose()
		synctest.Wait()
		if aborted.Err() == nil {
			t.Fatal("leadership lost, campaign going on: not aborted")
		}
	})
	synctest.Test(t, func(t *testing.T) {
		campaign, stopCampaign := context.WithCancel(context.Background())
		lctx, lose := context.WithCancel(campaign)
		defer lose()
		_, aborted, stop := abortOnLoss(campaign, lctx)
		stopCampaign()
		synctest.Wait()
		if lctx.Err() == nil {
			t.Fatal("the leader's context outlived the campaign")
		}
		if aborted.Err() != nil {
			t.Fatal("shutdown aborted the in-flight syncs instead of draining them")
		}
		stop()
		if aborted.Err() == nil {
			t.Fatal("stop did not release the abort context")
		}
	})
}
