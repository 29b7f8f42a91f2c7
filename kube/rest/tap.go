package rest

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/kcmlab/kcm/kube/api"
	"github.com/kcmlab/kcm/tap"
)

// WithTap makes the client report every write it answers (create,
// update, patch, delete) at the tap.Write stage of the pipeline view,
// named after its User-Agent, while someone watches. Clients made with
// WithOptions report under their own User-Agent. A write made in a sync's
// context (tap.WithSync) carries that sync's number.
func WithTap(t *tap.Tap) Option { return func(c *Client) { c.tap = t } }

// TapName is the name the pipeline view gives a resource: "pods",
// "replicasets.apps" (the informer factory names its informers the same
// way).
func TapName(r Resource) string {
	if r.Group == "" {
		return r.Resource
	}
	return r.Resource + "." + r.Group
}

// writeReport is one write on its way to the tap; the zero value (nobody
// watching) reports nothing.
type writeReport struct {
	on    bool
	start time.Time
	op    string
	ns    string
	name  string
}

// startWrite opens the report of a write op ("POST", "PUT status", ...)
// of the object ns/name, if anyone watches.
func (c *Client) startWrite(op, ns, name string) writeReport {
	if !c.write.On() {
		return writeReport{}
	}
	return writeReport{on: true, start: c.write.Now(), op: op, ns: ns, name: name}
}

// finish reports the write's outcome: the object as the server returned
// it (nil for a delete or a failure) or the error.
func (w writeReport) finish(ctx context.Context, c *Client, res Resource, meta *api.ObjectMeta, err error) {
	if !w.on {
		return
	}
	e := tap.Event{Op: w.op, Resource: TapName(res), Key: w.name}
	if w.ns != "" {
		e.Key = w.ns + "/" + w.name
	}
	if meta != nil {
		e.Key, e.RV, e.UID = meta.Key(), meta.ResourceVersion, meta.UID
	}
	e.Sync, _ = tap.SyncOf(ctx)
	e.At = c.write.Now()
	e.Took = e.At.Sub(w.start)
	if err != nil {
		e.Err = writeError(err)
	}
	c.write.Emit(e)
}

// writeError is how the view shows a failed write: the Status code and
// reason for an API error (never its message, which may quote the
// object), else the error.
func writeError(err error) string {
	var se *StatusError
	if errors.As(err, &se) {
		return fmt.Sprintf("%d %s", se.Status.Code, se.Status.Reason)
	}
	return err.Error()
}

// requestName is the name a write of obj asks for: its name, or its
// generateName followed by "*" when the server picks the name.
func requestName(m *api.ObjectMeta) string {
	if m.Name == "" && m.GenerateName != "" {
		return m.GenerateName + "*"
	}
	return m.Name
}
