//go:build !nocluster

package ctrl

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/rs/zerolog"

	"github.com/kcmlab/kcm/kube"
	"github.com/kcmlab/kcm/testenv"
)

// TestEventsOnRealAPIServer: a controller's recorder writes Events that
// kube-apiserver accepts and stores as kube-controller-manager's look —
// name "<object>.<hex ns>", source and reportingComponent the controller's
// — and a repeat is a patch that raises the count of the same Event.
func TestEventsOnRealAPIServer(t *testing.T) {
	cl := testenv.Shared(t)
	ns := cl.Namespace(t)
	base, err := kube.NewClient(cl.Config())
	if err != nil {
		t.Fatal(err)
	}
	defer base.CloseIdleConnections()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()

	cms := kube.NewResources(base, kube.ConfigMaps, kube.Typed[kube.ConfigMap]()).InNamespace(ns)
	cm, err := cms.Create(ctx, &kube.ConfigMap{ObjectMeta: kube.ObjectMeta{Name: "involved"}})
	if err != nil {
		t.Fatal(err)
	}
	events := kube.NewResources(base, kube.Events, kube.Typed[kube.CoreEvent]()).InNamespace(ns)
	list, err := events.List(ctx, kube.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	w, err := events.Watch(ctx, kube.WatchOptions{ListOptions: kube.ListOptions{ResourceVersion: list.ResourceVersion, TimeoutSeconds: 110}})
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
	ref := Ref(kube.ConfigMaps, cm)
	rec.Event(ref, kube.EventTypeWarning, ReasonFailedCreate, "Error creating: quota exceeded")

	ev, err := w.Next()
	if err != nil {
		t.Fatal(err)
	}
	e := ev.Object
	if ev.Type != kube.Added || !strings.HasPrefix(e.Name, "involved.") || e.Count != 1 || e.Type != kube.EventTypeWarning ||
		e.Source.Component != "replicaset-controller" || e.ReportingController != "replicaset-controller" ||
		e.InvolvedObject.UID != cm.UID || e.InvolvedObject.Kind != "ConfigMap" || e.InvolvedObject.APIVersion != "v1" {
		t.Fatalf("created event %s %+v", ev.Type, e)
	}
	rec.Event(ref, kube.EventTypeWarning, ReasonFailedCreate, "Error creating: quota exceeded")
	ev, err = w.Next()
	if err != nil {
		t.Fatal(err)
	}
	if ev.Type != kube.Modified || ev.Object.Name != e.Name || ev.Object.Count != 2 || !ev.Object.FirstTimestamp.Equal(e.FirstTimestamp.Time) ||
		ev.Object.Message != "Error creating: quota exceeded" {
		t.Fatalf("repeat: %s %+v, want the count of %s raised to 2", ev.Type, ev.Object, e.Name)
	}
}
