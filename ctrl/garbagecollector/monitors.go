package garbagecollector

import (
	"time"

	"github.com/rs/zerolog"

	"github.com/kcmlab/kcm/clock"
	"github.com/kcmlab/kcm/ctrl/internal/monitorset"
	"github.com/kcmlab/kcm/informer"
	"github.com/kcmlab/kcm/kube/api"
	"github.com/kcmlab/kcm/kube/rest"
	"github.com/kcmlab/kcm/processor"
	"github.com/kcmlab/kcm/store"
)

// monitorShutdownTimeout bounds how long a stopping monitor waits for
// the graph's handler.
const monitorShutdownTimeout = 30 * time.Second

// newMonitors makes the collector's set of monitors (Kubernetes'
// GraphBuilder monitors, syncMonitors, startMonitors, stopMonitors), one
// per exact resource: the graph's handler, handler(resource), added to
// the shared factory's informer of the resource where shared has one
// (the informer a controller reads the resource through: pods, ReplicaSets
// and Deployments are listed and watched once for the whole manager, as in
// kube-controller-manager), else a metadata-only LIST and WATCH of every
// object of the resource, decoded with metaCodec and cached without
// indexes (the graph is the index). A monitor has synced when the graph's
// handler has (its registration's HasSynced: the informer listed and the
// graph took every object of that list), not merely its informer; the
// set has synced when there is at least one monitor and every one has
// (Kubernetes' IsSynced asks the informers).
func newMonitors(client *rest.Client, handler func(rest.Resource) processor.Handler[*api.RawObject], shared func(rest.Resource) (informer.Metadata, bool), clk clock.Clock, log zerolog.Logger) *monitorset.Set[rest.Resource] {
	return monitorset.New(monitorset.Options[rest.Resource]{
		Client:          client,
		Key:             monitorset.ByResource,
		Codec:           metaCodec{},
		Indexers:        store.Indexers[*api.RawObject]{}, // the graph is the index
		Handler:         handler,
		Shared:          shared,
		Owner:           "garbage-collector",
		HandlerName:     Name,
		ShutdownTimeout: monitorShutdownTimeout,
		Clock:           clk,
		Logger:          log,
	})
}
