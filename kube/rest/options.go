package rest

import (
	"net/url"
	"strconv"
	"time"

	"github.com/kcmlab/kcm/kube/api"
)

// ListOptions are the query parameters of list and watch requests
// (meta/v1 ListOptions).
type ListOptions struct {
	LabelSelector string
	FieldSelector string
	// ResourceVersion: "" = most recent (quorum read), "0" = any (cache),
	// "N" = not older than N (exactly N with Limit/Continue and
	// ResourceVersionMatch "Exact"). For a watch: events after N.
	ResourceVersion      string
	ResourceVersionMatch string // "", "NotOlderThan", "Exact"
	Limit                int64
	Continue             string
	// Watch-only.
	TimeoutSeconds      int64
	AllowWatchBookmarks bool
	SendInitialEvents   *bool
}

// Values encodes the options as a query string.
func (o *ListOptions) Values() url.Values {
	q := url.Values{}
	setNonEmpty(q, "labelSelector", o.LabelSelector)
	setNonEmpty(q, "fieldSelector", o.FieldSelector)
	setNonEmpty(q, "resourceVersion", o.ResourceVersion)
	setNonEmpty(q, "resourceVersionMatch", o.ResourceVersionMatch)
	setNonEmpty(q, "continue", o.Continue)
	if o.Limit > 0 {
		q.Set("limit", strconv.FormatInt(o.Limit, 10))
	}
	if o.TimeoutSeconds > 0 {
		q.Set("timeoutSeconds", strconv.FormatInt(o.TimeoutSeconds, 10))
	}
	if o.AllowWatchBookmarks {
		q.Set("allowWatchBookmarks", "true")
	}
	if o.SendInitialEvents != nil {
		q.Set("sendInitialEvents", strconv.FormatBool(*o.SendInitialEvents))
	}
	return q
}

func setNonEmpty(q url.Values, k, v string) {
	if v != "" {
		q.Set(k, v)
	}
}

// Deletion propagation policies (meta/v1 DeletionPropagation).
const (
	PropagationBackground = "Background"
	PropagationForeground = "Foreground"
	PropagationOrphan     = "Orphan"
)

// DeleteOptions is the body of a delete (meta/v1 DeleteOptions).
type DeleteOptions struct {
	api.TypeMeta       `json:",inline"`
	GracePeriodSeconds *int64         `json:"gracePeriodSeconds,omitempty"`
	Preconditions      *Preconditions `json:"preconditions,omitempty"`
	PropagationPolicy  string         `json:"propagationPolicy,omitempty"`
	DryRun             []string       `json:"dryRun,omitempty"`
}

// Preconditions make a delete fail with 409 unless the object still has this
// UID and/or resourceVersion.
type Preconditions struct {
	UID             *string `json:"uid,omitempty"`
	ResourceVersion *string `json:"resourceVersion,omitempty"`
}

// PatchType is the Content-Type of a patch.
type PatchType string

// Patch types the apiserver accepts. Strategic merge works only for built-in
// kinds (a CRD answers 415 Unsupported Media Type).
const (
	JSONPatch           PatchType = "application/json-patch+json"
	MergePatch          PatchType = "application/merge-patch+json"
	StrategicMergePatch PatchType = "application/strategic-merge-patch+json"
	ApplyPatch          PatchType = "application/apply-patch+yaml"
)

// PatchOptions are the query parameters of a patch.
type PatchOptions struct {
	FieldManager string // required for ApplyPatch
	Force        bool   // apply: take ownership of conflicting fields
}

// ListMeta is what a list response says about itself.
type ListMeta struct {
	ResourceVersion    string `json:"resourceVersion,omitempty"`
	Continue           string `json:"continue,omitempty"`
	RemainingItemCount *int64 `json:"remainingItemCount,omitempty"`
}

// List is one page of a list response.
type List[T api.Object] struct {
	ListMeta
	Items []T
}

// WatchTransport selects how watch events travel.
type WatchTransport int

const (
	// Chunked is the default: one long HTTP response with JSON events back
	// to back (HTTP/2 stream or HTTP/1.1 chunked encoding).
	Chunked WatchTransport = iota
	// WebSocket upgrades an HTTP/1.1 connection; one event per message.
	WebSocket
)

// WatchOptions are ListOptions plus client-side choices for the stream.
type WatchOptions struct {
	ListOptions
	Transport WatchTransport
	// IdleTimeout closes a watch that received no bytes for this long (a
	// dead connection that TCP has not noticed). Zero: no idle timeout.
	IdleTimeout time.Duration
}
