//go:build !nocluster

package rootcacertpublisher

import (
	"context"
	"maps"
	"testing"
	"time"

	"github.com/rs/zerolog"

	"github.com/kcmlab/kcm/ctrl"
	"github.com/kcmlab/kcm/internal/testing/ctrltest"
	"github.com/kcmlab/kcm/kube/api"
	"github.com/kcmlab/kcm/kube/api/decode"
	"github.com/kcmlab/kcm/kube/rest"
	"github.com/kcmlab/kcm/testenv"
)

// TestOnRealAPIServer runs the controller the way the manager does —
// built by its descriptor from a ControllerContext that carries the CA of
// the manager's client, the factory started, the loop run — and checks on
// kube-apiserver that a new namespace gets kube-root-ca.crt with that CA
// and the description, and that an edit of its data, the removal of the
// annotation and its deletion are each undone, while what the controller
// does not own (a label) survives its update.
func TestOnRealAPIServer(t *testing.T) {
	cl := testenv.Shared(t)
	cfg := cl.ManagerConfig()
	base, err := rest.NewClient(cfg)
	if err != nil {
		t.Fatal(err)
	}
	defer base.CloseIdleConnections()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	ca := string(cfg.TLS.CAData)
	if ca == "" {
		t.Fatal("testenv's config has no CA")
	}

	ctrltest.StartWithConfig(t, ctx, base, ctrl.Config{Logger: zerolog.Nop(), APIServerCAData: cfg.TLS.CAData}, Descriptor(), 1)

	namespaces := rest.NewResources(base, rest.Namespaces, decode.Typed[api.Namespace]())
	ns, err := namespaces.Create(ctx, &api.Namespace{ObjectMeta: api.ObjectMeta{GenerateName: "root-ca-"}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = namespaces.Delete(context.Background(), ns.Name, rest.DeleteOptions{})
	})
	cms := rest.NewResources(base, rest.ConfigMaps, decode.Typed[api.ConfigMap]()).InNamespace(ns.Name)
	w, err := cms.Watch(ctx, rest.WatchOptions{ListOptions: rest.ListOptions{ResourceVersion: ns.ResourceVersion, TimeoutSeconds: 110}})
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	// published waits for an event of kube-root-ca.crt that shows it as
	// the controller publishes it.
	published := func(want rest.EventType) *api.ConfigMap {
		t.Helper()
		for {
			ev, err := w.Next()
			if err != nil {
				t.Fatalf("waiting for kube-root-ca.crt to be %s as published: %v", want, err)
			}
			cm := ev.Object
			if ev.Type == want && cm.Name == ConfigMapName &&
				maps.Equal(cm.Data, map[string]string{CAKey: ca}) && cm.Annotations[DescriptionAnnotation] == Description {
				return cm
			}
		}
	}
	first := published(rest.Added)

	// An edit of the data (ca.crt changed, a key added) is reverted; a
	// label the controller does not own is kept.
	edit := first
	edit.Data = map[string]string{CAKey: "not the CA", "extra": "v"}
	edit.Labels = map[string]string{"mine": "yes"}
	if _, err := cms.Update(ctx, edit); err != nil {
		t.Fatal(err)
	}
	if got := published(rest.Modified); got.Labels["mine"] != "yes" {
		t.Errorf("the controller's update dropped a label: %q", got.Labels)
	}

	// The description annotation removed: put back.
	cur, err := cms.Get(ctx, ConfigMapName)
	if err != nil {
		t.Fatal(err)
	}
	delete(cur.Annotations, DescriptionAnnotation)
	if _, err := cms.Update(ctx, cur); err != nil {
		t.Fatal(err)
	}
	published(rest.Modified)

	// Deleted: created again.
	if err := cms.Delete(ctx, ConfigMapName, rest.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	if again := published(rest.Added); again.UID == first.UID {
		t.Fatal("the re-created ConfigMap has the deleted one's UID")
	}
}
