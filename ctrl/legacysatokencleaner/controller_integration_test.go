//go:build !nocluster

package legacysatokencleaner

import (
	"context"
	"maps"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/rs/zerolog"
	"github.com/spf13/pflag"

	"github.com/kcmlab/kcm/clock"
	"github.com/kcmlab/kcm/ctrl"
	"github.com/kcmlab/kcm/informer"
	"github.com/kcmlab/kcm/kube/api"
	"github.com/kcmlab/kcm/kube/api/decode"
	"github.com/kcmlab/kcm/kube/rest"
	"github.com/kcmlab/kcm/testenv"
)

// TestCleanerOnRealAPIServer runs the cleaner as the manager does, with
// --legacy-service-account-token-clean-up-period=1h, on kube-apiserver,
// whose legacy-token tracking ConfigMap says tracking began today. A
// first run with its clock three days ahead labels an unused
// auto-generated token invalid-since that day (the merge patch
// kube-apiserver accepts) and leaves a token a pod mounts alone; a second
// run two days later deletes the labelled token. The informers are
// limited to the test's namespace: the clock is not the cluster's.
func TestCleanerOnRealAPIServer(t *testing.T) {
	cl := testenv.Shared(t)
	base, err := rest.NewClient(cl.ManagerConfig())
	if err != nil {
		t.Fatal(err)
	}
	defer base.CloseIdleConnections()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	ns := cl.Namespace(t)

	accounts := rest.NewResources(base, rest.ServiceAccounts, decode.Typed[api.ServiceAccount]()).InNamespace(ns)
	secrets := rest.NewResources(base, rest.Secrets, decode.Typed[api.Secret]()).InNamespace(ns)
	pods := rest.NewResources(base, rest.Pods, decode.Raw()).InNamespace(ns)
	for _, name := range []string{"unused", "mounted"} {
		if _, err := secrets.Create(ctx, &api.Secret{ObjectMeta: api.ObjectMeta{Name: name,
			Annotations: map[string]string{api.ServiceAccountNameKey: "builder"}}, Type: api.SecretTypeServiceAccountToken}); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := accounts.Create(ctx, &api.ServiceAccount{ObjectMeta: api.ObjectMeta{Name: "builder"},
		Secrets: []api.ObjectReference{{Name: "unused"}, {Name: "mounted"}}}); err != nil {
		t.Fatal(err)
	}
	pod, err := api.NewRawObject(map[string]any{"apiVersion": "v1", "kind": "Pod", "metadata": map[string]any{"name": "user"},
		"spec": map[string]any{"serviceAccountName": "builder", "automountServiceAccountToken": false,
			"containers": []any{map[string]any{"name": "c", "image": "registry.example/c:1"}},
			"volumes":    []any{map[string]any{"name": "t", "secret": map[string]any{"secretName": "mounted"}}}}})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := pods.Create(ctx, pod); err != nil {
		t.Fatal(err)
	}
	list, err := secrets.List(ctx, rest.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	w, err := secrets.Watch(ctx, rest.WatchOptions{ListOptions: rest.ListOptions{ResourceVersion: list.ResourceVersion, TimeoutSeconds: 110}})
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	waitFor := func(what string, ok func(rest.WatchEvent[*api.Secret]) bool) {
		t.Helper()
		for {
			ev, err := w.Next()
			if err != nil {
				t.Fatalf("waiting for %s: %v", what, err)
			}
			if ok(ev) {
				return
			}
		}
	}

	began := time.Now().UTC().Add(72 * time.Hour)
	stop := runCleaner(t, ctx, base, ns, ahead{72 * time.Hour})
	waitFor("the invalid-since label", func(ev rest.WatchEvent[*api.Secret]) bool {
		day := ev.Object.Labels[InvalidSinceLabelKey]
		ended := time.Now().UTC().Add(72 * time.Hour)
		return ev.Type == rest.Modified && ev.Object.Name == "unused" && (day == began.Format("2006-01-02") || day == ended.Format("2006-01-02"))
	})
	stop()

	stop = runCleaner(t, ctx, base, ns, ahead{120 * time.Hour})
	waitFor("the deletion", func(ev rest.WatchEvent[*api.Secret]) bool {
		return ev.Type == rest.Deleted && ev.Object.Name == "unused"
	})
	stop()
	m, err := secrets.Get(ctx, "mounted")
	if err != nil {
		t.Fatalf("the token a pod mounts: %v", err)
	}
	if m.Labels[InvalidSinceLabelKey] != "" {
		t.Fatalf("the token a pod mounts was marked: labels %v", m.Labels)
	}
}

// ahead is the real clock, its Now moved ahead by a fixed duration: the
// controller's passes see a later day while timers and cache waits run
// in real time.
type ahead struct{ by time.Duration }

func (a ahead) Now() time.Time                         { return time.Now().Add(a.by) }
func (a ahead) Since(t time.Time) time.Duration        { return a.Now().Sub(t) }
func (a ahead) NewTimer(d time.Duration) clock.Timer   { return clock.Real{}.NewTimer(d) }
func (a ahead) After(d time.Duration) <-chan time.Time { return clock.Real{}.After(d) }
func (a ahead) NewTicker(d time.Duration) clock.Ticker { return clock.Real{}.NewTicker(d) }

// runCleaner builds the controller from its descriptor with a one-hour
// clean-up period and clk, its informers limited to ns, and runs it until
// the returned stop.
func runCleaner(t *testing.T, ctx context.Context, base *rest.Client, ns string, clk clock.Clock) (stop func()) {
	t.Helper()
	ds, err := ctrl.NewDescriptors(Descriptor())
	if err != nil {
		t.Fatal(err)
	}
	o := ds.NewOptions()
	fs := pflag.NewFlagSet("kcm", pflag.ContinueOnError)
	ds.AddFlags(fs, o)
	if err := fs.Parse([]string{"--legacy-service-account-token-clean-up-period=1h"}); err != nil {
		t.Fatal(err)
	}
	cc, err := ctrl.CreateControllerContext(base, ctrl.Config{Version: "vtest", Options: o, Clock: clk, Logger: zerolog.Nop(),
		Factory: informer.FactoryOptions{Namespace: ns}})
	if err != nil {
		t.Fatal(err)
	}
	c, err := Descriptor().Constructor(ctx, cc, Name)
	if err != nil {
		t.Fatal(err)
	}
	runCtx, cancel := context.WithCancel(ctx)
	done := make(chan error, 1)
	cc.InformerFactory.Start(runCtx)
	go func() { done <- c.Run(runCtx, 1) }()
	return func() {
		cancel()
		if err := <-done; err != nil {
			t.Errorf("Run: %v", err)
		}
		cc.InformerFactory.Shutdown()
	}
}

// TestPodSecretNamesFromProtobuf: a pod read as protobuf (kcm's typed
// pods on a protobuf client, the manager's default) names the same
// Secrets as its JSON, the ones kcm's api.Pod does not model included:
// secretsPod is created on kube-apiserver and read back through a
// protobuf client, so the field numbers of podRefs are checked against
// the server's own encoding.
func TestPodSecretNamesFromProtobuf(t *testing.T) {
	cl := testenv.Shared(t)
	cfg := cl.Config()
	cfg.ContentType = rest.ContentTypeProtobuf
	client, err := rest.NewClient(cfg)
	if err != nil {
		t.Fatal(err)
	}
	defer client.CloseIdleConnections()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	ns := cl.Namespace(t)
	// secretsPod made valid: images, the volumes' required members, and
	// the ephemeral container added through its subresource afterwards
	// (the apiserver refuses one on create).
	valid := strings.NewReplacer(`"namespace":"ns"`, `"namespace":"`+ns+`"`,
		`"name":"i",`, `"name":"i","image":"i",`, `"name":"c",`, `"name":"c","image":"c",`,
		`"name":"e",`, `"name":"e","image":"e",`, `"system":"s",`, `"system":"s","volumeName":"v",`,
		`"iqn":"q"`, `"iqn":"iqn.2001-04.com.example:t"`, `"storageos":{`, `"storageos":{"volumeName":"v",`).Replace(secretsPod)
	i, j := strings.Index(valid, `"ephemeralContainers":`), strings.Index(valid, `"volumes":`)
	create := valid[:i] + valid[j:]
	raw, err := decode.Raw().Decode([]byte(create))
	if err != nil {
		t.Fatal(err)
	}
	pods := rest.NewResources(client, rest.Pods, decode.Raw()).InNamespace(ns) // JSON: Raw reads no protobuf
	created, err := pods.Create(ctx, raw)
	if err != nil {
		t.Fatal(err)
	}
	withEphemeral, err := decode.Raw().Decode([]byte(strings.Replace(valid, `"name":"p"`,
		`"name":"p","resourceVersion":"`+created.ResourceVersion+`"`, 1)))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := pods.UpdateSubresource(ctx, withEphemeral, "ephemeralcontainers"); err != nil {
		t.Fatal(err)
	}
	for _, codec := range []decode.Codec[*api.Pod]{decode.Typed[api.Pod](), decode.StrippingManagedFields(decode.Compact[api.Pod]())} {
		p, err := rest.NewResources(client, rest.Pods, codec).InNamespace(ns).Get(ctx, "p")
		if err != nil {
			t.Fatal(err)
		}
		if !p.IsProto() {
			t.Fatalf("%T: the pod was not read as protobuf", codec)
		}
		names := map[string]bool{}
		if err := podSecretNames(p, names); err != nil {
			t.Fatal(err)
		}
		got := slices.Sorted(maps.Keys(names))
		if !slices.Equal(got, secretsPodNames) {
			t.Errorf("%T: secret names %q, want %q", codec, got, secretsPodNames)
		}
	}
}
