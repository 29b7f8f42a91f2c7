// Package monitorset keeps a controller's monitors: one informer per
// resource discovery serves (the shared factory's where it has one, else
// a metadata-only one of the set's own), made, started and stopped as
// discovery changes. Two controllers watch "every resource there is"
// rather than a fixed list, and both need the same machinery:
//
//   - the garbage collector (ctrl/garbagecollector) monitors every
//     resource that supports list, watch and delete; its handler feeds
//     the ownerReference graph, and it keeps no index of its own in the
//     monitors' stores (the graph is the index);
//   - the resource quota controller (ctrl/resourcequota) monitors every
//     namespaced resource that supports create, list, watch and delete
//     (but the ones it reads through typed informers); its handler signals
//     deletions for replenishment, and its count/<resource>.<group>
//     evaluators count a monitor's store by its namespace index.
//
// The life of a set, driven by the owner's discovery loop:
//
//	discovery ──resources──▶ KeepFailedGroups (a group that failed keeps what it had)
//	          ──Diff──▶ the resync's log line
//	          ──Sync──▶ new key: make a monitor (start it once Start ran):
//	                      the shared factory has the resource ─▶ its handler joins that informer
//	                      else ─▶ a metadata-only informer of its own
//	                    key gone or served at another resource: stop it, wait
//	Start(ctx) ─▶ every monitor runs: LIST+WATCH ─▶ store ─▶ owner's handler
//	Synced / ResourceSynced ◀── each monitor's handler registration
//	StopAll ─▶ every monitor stops; none starts again
//
// A Set is keyed: Options.Key maps a resource to its identity in the set.
// The collector keys by the exact resource (ByResource); the quota
// controller by group-resource, so that what it counts under
// count/<resource>.<group> follows the group's preferred version, and a
// group that switches versions replaces the monitor instead of keeping
// two. Lookup tells apart a key that was never monitored from one whose
// monitor Sync stopped because discovery dropped it (gone): the quota
// controller counts a gone resource's objects as 0, since a deleted CRD
// takes its custom resources with it.
//
// # Guarantees
//
//   - After Sync, exactly the keys of the given resources have monitors,
//     but those whose monitor could not be made (reported in the joined
//     error); a stopped monitor's Run has returned before Sync returns.
//   - A monitor made before Start waits for it (a shared one joins its
//     informer only then); after StopAll no monitor runs and none starts,
//     and no shared informer has the owner's handler any more; StopAll returns when every Run has returned
//     (each bounded by Options.ShutdownTimeout for the handler).
//   - Synced is false without monitors, and true only when every monitor
//     has synced; a monitor has synced when its handler has taken the
//     informer's whole initial list (the registration's HasSynced), not
//     merely when the informer has listed.
//   - Every method is safe for concurrent use; Resources' channel is
//     closed at the next Sync, so a caller can wait for a change without
//     polling.
//
// # Kubernetes counterparts
//
// pkg/controller/garbagecollector's GraphBuilder (monitors, monitor,
// syncMonitors, startMonitors, IsSynced) and
// pkg/controller/resourcequota's QuotaMonitor (SyncMonitors,
// StartMonitors, IsSynced), each fed by its controller's Sync, which
// keeps the resources of the group versions discovery failed to read
// (discovery.GroupDiscoveryFailedErrorGroups): KeepFailedGroups; the
// collector keeps only those whose monitor had synced, the quota
// controller all of them. In Kubernetes both sets take their informers
// from the InformerFactory (ObjectOrMetadataInformerFactory.ForResource:
// the shared typed informer of every built-in resource, made if no
// controller asked for it yet, a metadata-only one for the rest). Here a
// set with Options.Shared does the same for the resources the shared
// factory already runs (informer.Factory.Existing: a controller reads
// them), so that pods are listed and watched once, not once more for the
// collector; its monitor adds its handler to that informer at Start and
// removes it at stop, and never runs or stops the informer. Deliberate
// difference: a resource no controller reads gets a metadata-only
// informer of the set's own rather than a new typed one in the factory
// (its objects cost a fraction of a typed cache, and each owner decodes
// only what it reads, Options.Codec), so that a monitor stopped because
// a CRD went really stops watching.
//
// One concept per file: monitor.go (one monitor: its informer, own or
// shared, its registration, its synced rule), set.go (the keyed set: Sync, Start,
// StopAll, Synced, Lookup, Resources), discovery.go (KeepFailedGroups and
// Diff, what a resync does with discovery's answer before Sync).
package monitorset
