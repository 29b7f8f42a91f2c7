package resourcequota

import (
	"strings"
	"testing"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/testutil"

	"github.com/kcmlab/kcm/clock"
	"github.com/kcmlab/kcm/ctrl"
	"github.com/kcmlab/kcm/internal/testing/resttest"
	"github.com/kcmlab/kcm/kube/api"
)

// TestQueueMetrics: the three queues report client-go's workqueue series
// under kube-controller-manager's queue names (resourcequota_primary,
// resourcequota_priority, resource_quota_controller_resource_changes).
func TestQueueMetrics(t *testing.T) {
	reg := prometheus.NewRegistry()
	m, err := ctrl.NewMetrics(reg)
	if err != nil {
		t.Fatal(err)
	}
	srv := resttest.New(t, resttest.Options{})
	c := build(srv.Client(), listers{
		quotas:   resttest.Lister[*api.ResourceQuota]("resourcequotas"),
		pods:     resttest.Lister[*api.Pod]("pods"),
		services: resttest.Lister[*api.Service]("services"),
		claims:   resttest.Lister[*api.PersistentVolumeClaim]("persistentvolumeclaims"),
	}, Options{Clock: clock.NewFake(t0), Metrics: m})
	defer c.shutDownQueues()
	c.addQuota(rq("new", list("pods", "1")))
	c.addQuota(rq("done", list("pods", "1"), synced(list("pods", "0"))))
	c.resourceChanged(podsGR, "ns")
	want := `
# HELP workqueue_adds_total Number of adds that made a key pending (duplicates of a pending key are not counted).
# TYPE workqueue_adds_total counter
workqueue_adds_total{name="resource_quota_controller_resource_changes"} 1
workqueue_adds_total{name="resourcequota_primary"} 1
workqueue_adds_total{name="resourcequota_priority"} 1
`
	if err := testutil.GatherAndCompare(reg, strings.NewReader(want), "workqueue_adds_total"); err != nil {
		t.Error(err)
	}
}
