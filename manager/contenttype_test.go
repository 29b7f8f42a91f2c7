package manager

import (
	"context"
	"testing"
	"time"

	"github.com/rs/zerolog"

	"github.com/kcmlab/kcm/clock"
	"github.com/kcmlab/kcm/ctrl"
	"github.com/kcmlab/kcm/ctrl/clientbuilder"
	"github.com/kcmlab/kcm/kube/rest"
)

// TestEveryClientHasTheContentType: --kube-api-content-type is the
// content type of every client the manager builds, as
// kube-controller-manager sets it on the one kubeconfig all its clients
// come from (cmd/kube-controller-manager/app/options Config): the base
// client, leader election's, each controller's, the shared informers',
// and a controller's under --use-service-account-credentials. The
// Config.REST handed in says nothing about it (JSON): the flag decides,
// whatever the kubeconfig.
func TestEveryClientHasTheContentType(t *testing.T) {
	for _, ct := range []string{ContentTypeProtobuf, ContentTypeJSON} {
		t.Run(ct, func(t *testing.T) {
			o := NewOptions(NewControllerDescriptors())
			o.KubeAPIContentType = ct
			for _, restCT := range []string{"", rest.ContentTypeJSON, rest.ContentTypeProtobuf} {
				c := Config{Options: o, REST: &rest.Config{Host: "https://127.0.0.1:1", ContentType: restCT},
					Clock: clock.Real{}, Logger: zerolog.Nop()}
				client, _, err := newClient(c)
				if err != nil {
					t.Fatal(err)
				}
				m := &manager{cfg: c, o: o, client: client}
				cc, err := ctrl.CreateControllerContext(client, ctrl.Config{Options: o.Controllers, Logger: zerolog.Nop()})
				if err != nil {
					t.Fatal(err)
				}
				accounts := clientbuilder.New(client, clientbuilder.Options{Logger: zerolog.Nop()})
				sa, err := ctrl.CreateControllerContext(client, ctrl.Config{Options: o.Controllers, Logger: zerolog.Nop(),
					ServiceAccounts: accounts})
				if err != nil {
					t.Fatal(err)
				}
				for name, cl := range map[string]*rest.Client{
					"base":            client,
					"leader-election": m.electionClient(),
					"controller":      cc.ClientFor("replicaset-controller"),
					"shared-informers": cc.WithRootCredentials().
						ClientFor(ctrl.SharedInformersName),
					"service-account credentials": sa.ClientFor("replicaset-controller"),
				} {
					if got := cl.ContentType(); got != ct {
						t.Errorf("REST content type %q: the %s client's content type is %q, want %q", restCT, name, got, ct)
					}
				}
				cc.InformerFactory.Shutdown()
				sa.InformerFactory.Shutdown()
				accounts.Close()
				client.CloseIdleConnections()
			}
		})
	}
}

// TestRunRefusesAnInvalidContentType: Run validates the flag before
// building anything (a value parse would have refused). The context's
// deadline only bounds a broken Run, which would otherwise campaign for
// the lease of an apiserver that never answers.
func TestRunRefusesAnInvalidContentType(t *testing.T) {
	o := NewOptions(NewControllerDescriptors())
	o.KubeAPIContentType = "application/yaml"
	o.Serving.SecurePort = 0
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	err := Run(ctx, Config{Options: o, REST: &rest.Config{Host: "https://127.0.0.1:1"}})
	want := `invalid flags: --kube-api-content-type "application/yaml": want application/json or application/vnd.kubernetes.protobuf`
	if err == nil || err.Error() != want {
		t.Fatalf("Run = %v, want %q", err, want)
	}
}
