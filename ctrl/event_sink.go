package ctrl

import (
	"context"

	"github.com/kcmlab/kcm/kube"
)

// EventSink is where the broadcaster writes Events (client-go's
// EventSink). Both calls act in the event's own namespace.
type EventSink interface {
	// Create creates the event and returns the server's copy.
	Create(ctx context.Context, e *kube.CoreEvent) (*kube.CoreEvent, error)
	// Patch applies a strategic merge patch to the existing event named
	// e.Name and returns the server's copy.
	Patch(ctx context.Context, e *kube.CoreEvent, patch []byte) (*kube.CoreEvent, error)
}

// ClientSink writes events with a kube client: a controller's own, so
// that its events go through its rate limiter under its User-Agent.
type ClientSink struct {
	events *kube.Resources[*kube.CoreEvent]
}

// NewClientSink returns a sink writing through c.
func NewClientSink(c *kube.Client) ClientSink {
	return ClientSink{events: kube.NewResources(c, kube.Events, kube.Typed[kube.CoreEvent]())}
}

// Create POSTs the event to its namespace.
func (s ClientSink) Create(ctx context.Context, e *kube.CoreEvent) (*kube.CoreEvent, error) {
	return s.events.Create(ctx, e)
}

// Patch PATCHes the event in its namespace.
func (s ClientSink) Patch(ctx context.Context, e *kube.CoreEvent, patch []byte) (*kube.CoreEvent, error) {
	return s.events.InNamespace(e.Namespace).Patch(ctx, e.Name, kube.StrategicMergePatch, patch, kube.PatchOptions{})
}
