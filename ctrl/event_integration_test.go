//go:build !nocluster

package ctrl

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/rs/zerolog"

	"github.com/kcmlab/kcm/kube/api"
	"github.com/kcmlab/kcm/kube/api/decode"
	"github.com/kcmlab/kcm/kube/rest"
	"github.com/kcmlab/kcm/testenv"
)

// TestEventsOnRealAPIServer: a controller's recorder writes Events that
// kube-apiserver accepts and stores as kube-controller-manager's look —
// name "<object>.<hex ns>", source and reportingComponent the controller's
// — and a repeat is a patch that raises the count of the same Event.
func TestEventsOnRealAPIServer(t *testing.T) {
	cl := testenv.Shared(t)
	ns := cl.Namespace(t)
	base, err := rest.NewClient(cl.ManagerConfig())
	if err != nil {
		t.Fatal(err)
	}
	defer base.CloseIdleConnections()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()

	cms := rest.NewResources(base, rest.ConfigMaps, decode.Typed[api.ConfigMap]()).InNamespace(ns)
	cm, err := cms.Create(ctx, &api.ConfigMap{ObjectMeta: api.ObjectMeta{Name: "involved"}})
	if err != nil {
		t.Fatal(err)
	}
	events := rest.NewResources(base, rest.Events, decode.Typed[api.CoreEvent]()).InNamespace(ns)
	list, err := events.List(ctx, rest.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	w, err := events.Watch(ctx, rest.WatchOptions{ListOptions: rest.ListOptions{ResourceVersion: list.ResourceVersion, TimeoutSeconds: 110}})
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()

	cc, err := CreateControllerContext(base, Config{Version: "vtest", Logger: zerolog.Nop()})
	if err != nil {
		t.Fatal(err)
	}
	b := cc.NewBroadcaster(cc.ClientFor("replicaset-controller"))
	runCtx, stop := context.WithCancel(ctx)
	done := make(chan struct{})
	go func() { defer close(done); b.Run(runCtx) }()
	defer func() { stop(); <-done }()
	rec := b.NewRecorder("replicaset-controller")
	ref := Ref(rest.ConfigMaps, cm)
	rec.Event(ref, api.EventTypeWarning, ReasonFailedCreate, "Error creating: quota exceeded")

	ev, err := w.Next()
	if err != nil {
		t.Fatal(err)
	}
	e := ev.Object
	if ev.Type != rest.Added || !strings.HasPrefix(e.Name, "involved.") || e.Count != 1 || e.Type != api.EventTypeWarning ||
		e.Source.Component != "replicaset-controller" || e.ReportingController != "replicaset-controller" ||
		e.InvolvedObject.UID != cm.UID || e.InvolvedObject.Kind != "ConfigMap" || e.InvolvedObject.APIVersion != "v1" {
		t.Fatalf("created event %s %+v", ev.Type, e)
	}
	rec.Event(ref, api.EventTypeWarning, ReasonFailedCreate, "Error creating: quota exceeded")
	ev, err = w.Next()
	if err != nil {
		t.Fatal(err)
	}
	if ev.Type != rest.Modified || ev.Object.Name != e.Name || ev.Object.Count != 2 || !ev.Object.FirstTimestamp.Equal(e.FirstTimestamp.Time) ||
		ev.Object.Message != "Error creating: quota exceeded" {
		t.Fatalf("repeat: %s %+v, want the count of %s raised to 2", ev.Type, ev.Object, e.Name)
	}
}
