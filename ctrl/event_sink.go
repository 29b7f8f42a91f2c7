package ctrl

import (
	"context"

	"github.com/kcmlab/kcm/kube/api"
	"github.com/kcmlab/kcm/kube/api/decode"
	"github.com/kcmlab/kcm/kube/rest"
)

// EventSink is where the broadcaster writes Events (client-go's
// EventSink). Both calls act in the event's own namespace.
type EventSink interface {
	// Create creates the event and returns the server's copy.
	Create(ctx context.Context, e *api.CoreEvent) (*api.CoreEvent, error)
	// Patch applies a strategic merge patch to the existing event named
	// e.Name and returns the server's copy.
	Patch(ctx context.Context, e *api.CoreEvent, patch []byte) (*api.CoreEvent, error)
}

// ClientSink writes events with a rest client: a controller's own, so
// that its events go through its rate limiter under its User-Agent.
type ClientSink struct {
	events *rest.Resources[*api.CoreEvent]
}

// NewClientSink returns a sink writing through c.
func NewClientSink(c *rest.Client) ClientSink {
	return ClientSink{events: rest.NewResources(c, rest.Events, decode.Typed[api.CoreEvent]())}
}

// Create POSTs the event to its namespace.
func (s ClientSink) Create(ctx context.Context, e *api.CoreEvent) (*api.CoreEvent, error) {
	return s.events.Create(ctx, e)
}

// Patch PATCHes the event in its namespace.
func (s ClientSink) Patch(ctx context.Context, e *api.CoreEvent, patch []byte) (*api.CoreEvent, error) {
	return s.events.InNamespace(e.Namespace).Patch(ctx, e.Name, rest.StrategicMergePatch, patch, rest.PatchOptions{})
}
