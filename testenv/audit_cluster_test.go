//go:build !nocluster

package testenv

import (
	"net/http"
	"testing"

	"github.com/rs/zerolog"
)

// TestAuditWrites: a cluster started with Options.AuditWrites records
// each write, with its user and answer, as soon as the answer is back
// (blocking mode), and no read; one started without has no log to read.
func TestAuditWrites(t *testing.T) {
	ctx := testContext(t)
	c, err := Start(ctx, Options{Logger: zerolog.New(zerolog.NewTestWriter(t)), AuditWrites: true})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(c.Stop)
	cl := clientFromConfig(t, c)
	cm := map[string]any{"apiVersion": "v1", "kind": "ConfigMap", "metadata": map[string]any{"name": "audited"}}
	if err := cl.do(ctx, http.MethodPost, "/api/v1/namespaces/default/configmaps", cm, nil); err != nil {
		t.Fatal(err)
	}
	if err := cl.do(ctx, http.MethodPost, "/api/v1/namespaces/default/configmaps", cm, nil); err == nil {
		t.Fatal("a second create of the same ConfigMap succeeded")
	}
	if err := cl.do(ctx, http.MethodGet, "/api/v1/namespaces/default/configmaps/audited", nil, nil); err != nil {
		t.Fatal(err)
	}
	events, err := c.AuditEvents()
	if err != nil {
		t.Fatal(err)
	}
	var codes []int
	for _, e := range events {
		if e.ObjectRef.Resource == "configmaps" && e.ObjectRef.Name == "audited" {
			if e.Verb != "create" || e.ObjectRef.Namespace != "default" || e.User.Username != adminUser {
				t.Errorf("event %+v: want a create in default by %s", e, adminUser)
			}
			codes = append(codes, e.ResponseStatus.Code)
		}
	}
	if len(codes) != 2 || codes[0] != http.StatusCreated || codes[1] != http.StatusConflict {
		t.Errorf("the ConfigMap's events answered %v, want [201 409] (the GET not recorded)", codes)
	}

	shared := Shared(t)
	if shared.AuditLogPath() != "" {
		t.Errorf("a cluster without AuditWrites has an audit log %q", shared.AuditLogPath())
	}
	if _, err := shared.AuditEvents(); err == nil {
		t.Error("AuditEvents on a cluster without AuditWrites: no error")
	}
}
