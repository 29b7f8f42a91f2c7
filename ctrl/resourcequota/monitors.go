package resourcequota

import (
	"fmt"
	"time"

	"github.com/rs/zerolog"

	"github.com/kcmlab/kcm/clock"
	"github.com/kcmlab/kcm/ctrl/internal/monitorset"
	"github.com/kcmlab/kcm/ctrl/resourcequota/quota"
	"github.com/kcmlab/kcm/informer"
	"github.com/kcmlab/kcm/kube/api"
	"github.com/kcmlab/kcm/kube/rest"
	"github.com/kcmlab/kcm/processor"
	"github.com/kcmlab/kcm/store"
)

// monitors is the set of metadata monitors of the quotable resources, by
// group-resource (Kubernetes' QuotaMonitor: SyncMonitors, StartMonitors,
// IsSynced). Each monitor's cache, indexed by namespace only, is what the
// resource's count evaluator counts, and its handler signals deletions
// for replenishment. A group served at another version replaces its
// monitor; a resource discovery no longer serves is gone, and counts 0.
type monitors struct {
	*monitorset.Set[quota.GroupResource]
}

// monitorShutdownTimeout bounds how long a stopping monitor waits for its
// handler.
const monitorShutdownTimeout = 30 * time.Second

func newMonitors(client *rest.Client, changed func(quota.GroupResource, string), shared func(rest.Resource) (informer.Metadata, bool), clk clock.Clock, log zerolog.Logger) *monitors {
	return &monitors{monitorset.New(monitorset.Options[quota.GroupResource]{
		Client:   client,
		Key:      grOf,
		Codec:    countCodec{},
		Indexers: store.BuiltinIndexers[*api.RawObject](store.IndexNamespace),
		Shared:   shared,
		Handler: func(res rest.Resource) processor.Handler[*api.RawObject] {
			gr := grOf(res)
			return processor.HandlerFuncs[*api.RawObject]{
				DeleteFunc: func(obj *api.RawObject, _ bool) { changed(gr, obj.GetObjectMeta().Namespace) },
			}
		},
		Owner:           Name,
		HandlerName:     Name,
		ShutdownTimeout: monitorShutdownTimeout,
		LogPrefix:       "quota ",
		QuietOnStop:     true,
		Clock:           clk,
		Logger:          log,
	})}
}

// count is the number of gr's objects in namespace in its monitor's
// cache. A monitor that has not synced yet answers ErrNotSynced rather
// than a count of the part it listed: the quota's sync fails and is
// retried, instead of writing a usage too low that nothing would correct
// before the next full resync. A resource discovery no longer serves
// counts 0: its objects went with it (a deleted CRD's custom resources).
func (m *monitors) count(gr quota.GroupResource, namespace string) (int, error) {
	mon, gone := m.Lookup(gr)
	if gone {
		return 0, nil
	}
	if mon == nil {
		return 0, fmt.Errorf("%w: %s", ErrNotMonitored, gr.Resource+"."+gr.Group)
	}
	if !mon.Synced() {
		return 0, fmt.Errorf("%w: %s", ErrNotSynced, mon.Resource())
	}
	return mon.Source().IndexLen(store.IndexNamespace, namespace)
}

// grOf is a resource's group-resource.
func grOf(r rest.Resource) quota.GroupResource {
	return quota.GroupResource{Group: r.Group, Resource: r.Resource}
}
