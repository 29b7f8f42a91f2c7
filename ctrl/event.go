package ctrl

import (
	"encoding/json"
	"fmt"
	"time"

	"github.com/kcmlab/kcm/kube/api"
	"github.com/kcmlab/kcm/kube/rest"
)

// Event reasons kube-controller-manager's controllers use, so that
// `kubectl describe` and alerts read the same under kcm.
const (
	ReasonSuccessfulCreate  = "SuccessfulCreate"
	ReasonFailedCreate      = "FailedCreate"
	ReasonSuccessfulDelete  = "SuccessfulDelete"
	ReasonFailedDelete      = "FailedDelete"
	ReasonScalingReplicaSet = "ScalingReplicaSet"
)

// EventRecorder is what a controller records events with (client-go's
// EventRecorder, the part controllers call): *Recorder is the real one,
// NopRecorder drops them, and a test's fake records them.
type EventRecorder interface {
	Eventf(ref api.ObjectReference, eventType, reason, format string, args ...any)
}

// NopRecorder drops every event: the recorder of a controller built
// without one.
type NopRecorder struct{}

// Eventf does nothing.
func (NopRecorder) Eventf(api.ObjectReference, string, string, string, ...any) {}

var (
	_ EventRecorder = (*Recorder)(nil)
	_ EventRecorder = NopRecorder{}
)

// Recorder records core/v1 Events about objects on behalf of one source
// component (client-go's EventRecorder). Event never blocks and never
// fails: the event is queued for the broadcaster's goroutine, or dropped
// and counted when the queue is full.
type Recorder struct {
	b      *Broadcaster
	source api.EventSource
}

// Ref is the ObjectReference an Event names as its involvedObject, built
// the way client-go's reference.GetReference does: kind and apiVersion
// from the resource, then namespace, name, uid and resourceVersion.
func Ref(res rest.Resource, obj api.Object) api.ObjectReference {
	m := obj.GetObjectMeta()
	return api.ObjectReference{
		Kind: res.Kind, APIVersion: res.GroupVersion(),
		Namespace: m.Namespace, Name: m.Name, UID: m.UID, ResourceVersion: m.ResourceVersion,
	}
}

// Event records that something of type eventType (api.EventTypeNormal or
// api.EventTypeWarning) happened to the referenced object. An event of
// another type is dropped, as client-go drops it.
func (r *Recorder) Event(ref api.ObjectReference, eventType, reason, message string) {
	if eventType != api.EventTypeNormal && eventType != api.EventTypeWarning {
		r.b.log.Error().Str("type", eventType).Str("reason", reason).Msg("unsupported event type; event not recorded")
		return
	}
	r.b.enqueue(makeEvent(ref, r.source, r.b.clock.Now(), eventType, reason, message))
}

// Eventf is Event with a fmt.Sprintf message.
func (r *Recorder) Eventf(ref api.ObjectReference, eventType, reason, format string, args ...any) {
	r.Event(ref, eventType, reason, fmt.Sprintf(format, args...))
}

// makeEvent builds the Event client-go's recorder builds: named
// "<object name>.<hex nanoseconds>", in the object's namespace ("default"
// for a cluster-scoped object), count 1, first and last timestamp now,
// the source also given as reportingComponent and reportingInstance.
func makeEvent(ref api.ObjectReference, source api.EventSource, now time.Time, eventType, reason, message string) *api.CoreEvent {
	ns := ref.Namespace
	if ns == "" {
		ns = "default"
	}
	return &api.CoreEvent{
		TypeMeta:            api.TypeMeta{APIVersion: "v1", Kind: "Event"},
		ObjectMeta:          api.ObjectMeta{Name: eventName(ref.Name, now), Namespace: ns},
		InvolvedObject:      ref,
		Reason:              reason,
		Message:             message,
		Source:              source,
		FirstTimestamp:      api.Time{Time: now},
		LastTimestamp:       api.Time{Time: now},
		Count:               1,
		Type:                eventType,
		ReportingController: source.Component,
		ReportingInstance:   source.Host,
	}
}

// eventName is client-go's Event name: unique per object and nanosecond.
func eventName(object string, now time.Time) string {
	return fmt.Sprintf("%s.%x", object, now.UnixNano())
}

func jsonString(s string) ([]byte, error) { return json.Marshal(s) }
