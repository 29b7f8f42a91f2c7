package legacysatokencleaner

import (
	"bytes"
	"context"
	"slices"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/rs/zerolog"

	"github.com/kcmlab/kcm/clock"
	"github.com/kcmlab/kcm/informer"
	"github.com/kcmlab/kcm/internal/testing/resttest"
	"github.com/kcmlab/kcm/kube/api"
	"github.com/kcmlab/kcm/kube/api/decode"
	"github.com/kcmlab/kcm/kube/rest"
)

// now is the fixture's time; with the default one-year period, tokens
// created or used before 2025-12-06 are old enough.
var now = time.Date(2026, 12, 6, 12, 0, 0, 0, time.UTC)

const (
	period   = 365 * 24 * time.Hour
	getCM    = "get configmaps kube-system/kube-apiserver-legacy-service-account-token-tracking"
	markTok  = `patch secrets team-a/tok merge {"kind":"Secret","apiVersion":"v1","metadata":{"name":"tok","namespace":"team-a","uid":"s1","labels":{"kubernetes.io/legacy-token-invalid-since":"2026-12-06"}}}`
	deleteTk = "delete secrets team-a/tok rv=10"
)

// fixture is the sample-controller shape for one pass: the caches, the
// fake apiserver holding the same objects and the tracking ConfigMap, a
// fake clock at now.
type fixture struct {
	t        *testing.T
	accounts []*api.ServiceAccount
	secrets  []*api.Secret
	pods     []*api.Pod
	since    string // the tracking ConfigMap's "since"; "" none
	api      *resttest.Server
	logs     bytes.Buffer // the controller's log, JSON lines
}

func (f *fixture) pass() []resttest.Action {
	f.t.Helper()
	resttest.Add(f.api, rest.ServiceAccounts, f.accounts...)
	resttest.Add(f.api, rest.Secrets, f.secrets...)
	if f.since != "" {
		resttest.Add(f.api, rest.ConfigMaps, &api.ConfigMap{ObjectMeta: api.ObjectMeta{Namespace: "kube-system", Name: TrackingConfigMap},
			Data: map[string]string{TrackingSinceKey: f.since}})
	}
	c, err := NewController(informer.ServiceAccountLister{Lister: resttest.Lister("serviceaccounts", f.accounts...)},
		resttest.Lister("secrets", f.secrets...), informer.PodLister{Lister: resttest.Lister("pods", f.pods...)}, f.api.Client(),
		Config{CleanUpPeriod: period, SyncInterval: DefaultSyncInterval, Clock: clock.NewFake(now), Logger: zerolog.New(&f.logs)})
	if err != nil {
		f.t.Fatal(err)
	}
	res, err := c.Sync(context.Background(), passKey)
	if err != nil || res.RequeueAfter != DefaultSyncInterval {
		f.t.Fatalf("Sync: %+v, %v; want the next pass in 24h", res, err)
	}
	return f.api.Actions()
}

func account(uid string, secrets ...string) *api.ServiceAccount {
	sa := &api.ServiceAccount{ObjectMeta: api.ObjectMeta{Namespace: "team-a", Name: "builder", UID: uid}}
	for _, s := range secrets {
		sa.Secrets = append(sa.Secrets, api.ObjectReference{Name: s})
	}
	return sa
}

// token is Secret team-a/tok of account builder, created on the given day,
// with labels given as key, value pairs.
func token(created string, labelPairs ...string) *api.Secret {
	c, err := time.Parse("2006-01-02", created)
	if err != nil {
		panic(err)
	}
	s := &api.Secret{ObjectMeta: api.ObjectMeta{Namespace: "team-a", Name: "tok", UID: "s1", ResourceVersion: "10",
		CreationTimestamp: api.Time{Time: c}, Annotations: map[string]string{api.ServiceAccountNameKey: "builder", api.ServiceAccountUIDKey: "u1"}},
		Type: api.SecretTypeServiceAccountToken}
	if len(labelPairs) > 0 {
		s.Labels = map[string]string{}
		for i := 0; i+1 < len(labelPairs); i += 2 {
			s.Labels[labelPairs[i]] = labelPairs[i+1]
		}
	}
	return s
}

func podJSON(t testing.TB, js string) *api.Pod {
	t.Helper()
	p, err := decode.Compact[api.Pod]().Decode([]byte(js))
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// TestPass follows upstream's TestLegacyServiceAccountTokenCleanUp cases
// (legacy_serviceaccount_token_cleaner.go evaluateSATokens): which token
// Secrets are labelled invalid-since today, which are deleted, which are
// kept.
func TestPass(t *testing.T) {
	old := "2025-01-01" // before now - period
	deleting := token(old)
	deleting.DeletionTimestamp = &api.Time{Time: now}
	opaque := token(old)
	opaque.Type = api.SecretTypeOpaque
	noUIDAnnotation := token(old)
	delete(noUIDAnnotation.Annotations, api.ServiceAccountUIDKey)
	referenced := account("u1", "other", "tok")
	mountedBy := func(spec string) []*api.Pod {
		return []*api.Pod{podJSON(t, `{"apiVersion":"v1","kind":"Pod","metadata":{"namespace":"team-a","name":"p"},"spec":`+spec+`}`)}
	}
	for _, tc := range []struct {
		name     string
		since    string
		accounts []*api.ServiceAccount
		secret   *api.Secret
		pods     []*api.Pod
		want     []string
	}{
		{"unused, referenced, unmounted: marked invalid today", "2024-01-01", []*api.ServiceAccount{referenced}, token(old), nil, []string{getCM, markTok}},
		{"tracking began within the period: nothing", "2026-01-01", []*api.ServiceAccount{referenced}, token(old), nil, []string{getCM}},
		{"tracking began the day before the period: nothing (tracked from the next day)", "2025-12-06", []*api.ServiceAccount{referenced}, token(old), nil, []string{getCM}},
		{"tracking began two days before: marked", "2025-12-05", []*api.ServiceAccount{referenced}, token(old), nil, []string{getCM, markTok}},
		{"no tracking ConfigMap: nothing", "", []*api.ServiceAccount{referenced}, token(old), nil, []string{getCM}},
		{"malformed tracking date: nothing", "yesterday", []*api.ServiceAccount{referenced}, token(old), nil, []string{getCM}},
		{"invalid since before the period: deleted", "2024-01-01", []*api.ServiceAccount{referenced}, token(old, InvalidSinceLabelKey, "2025-12-05"), nil, []string{getCM, deleteTk}},
		{"invalid since within the period: kept", "2024-01-01", []*api.ServiceAccount{referenced}, token(old, InvalidSinceLabelKey, "2025-12-06"), nil, []string{getCM}},
		{"malformed invalid-since: marked again", "2024-01-01", []*api.ServiceAccount{referenced}, token(old, InvalidSinceLabelKey, "soon"), nil, []string{getCM, markTok}},
		{"used within the period: kept", "2024-01-01", []*api.ServiceAccount{referenced}, token(old, LastUsedLabelKey, "2025-12-06"), nil, []string{getCM}},
		{"last used before the period: marked", "2024-01-01", []*api.ServiceAccount{referenced}, token(old, LastUsedLabelKey, "2025-12-05"), nil, []string{getCM, markTok}},
		{"malformed last-used: kept", "2024-01-01", []*api.ServiceAccount{referenced}, token(old, LastUsedLabelKey, "2025-1-5"), nil, []string{getCM}},
		{"created within the period: kept", "2024-01-01", []*api.ServiceAccount{referenced}, token("2025-12-07"), nil, []string{getCM}},
		{"being deleted: kept", "2024-01-01", []*api.ServiceAccount{referenced}, deleting, nil, []string{getCM}},
		{"not a token: kept", "2024-01-01", []*api.ServiceAccount{referenced}, opaque, nil, []string{getCM}},
		{"account does not list it: kept", "2024-01-01", []*api.ServiceAccount{account("u1", "other")}, token(old), nil, []string{getCM}},
		{"account gone: kept", "2024-01-01", nil, token(old), nil, []string{getCM}},
		{"account of another UID: kept", "2024-01-01", []*api.ServiceAccount{account("u2", "tok")}, token(old), nil, []string{getCM}},
		{"no UID annotation, account lists it: marked", "2024-01-01", []*api.ServiceAccount{referenced}, noUIDAnnotation, nil, []string{getCM, markTok}},
		{"mounted as a secret volume: kept", "2024-01-01", []*api.ServiceAccount{referenced}, token(old),
			mountedBy(`{"containers":[{"name":"c"}],"volumes":[{"name":"v","secret":{"secretName":"tok"}}]}`), []string{getCM}},
		{"a pod uses another secret: marked", "2024-01-01", []*api.ServiceAccount{referenced}, token(old),
			mountedBy(`{"containers":[{"name":"c"}],"volumes":[{"name":"v","secret":{"secretName":"other"}}]}`), []string{getCM, markTok}},
		{"an env var of an ephemeral container reads it: kept", "2024-01-01", []*api.ServiceAccount{referenced}, token(old),
			mountedBy(`{"containers":[{"name":"c"}],"ephemeralContainers":[{"name":"e","env":[{"name":"T","valueFrom":{"secretKeyRef":{"name":"tok","key":"token"}}}]}]}`), []string{getCM}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := &fixture{t: t, accounts: tc.accounts, secrets: []*api.Secret{tc.secret}, pods: tc.pods, since: tc.since,
				api: resttest.New(t, resttest.Options{})}
			if got := f.pass(); !resttest.Expect(t, got, tc.want...) {
				t.Fatalf("actions %q, want %q", resttest.Lines(got), tc.want)
			}
		})
	}
}

// TestPassGoesOnAfterFailures: a failed patch or delete is logged and the
// pass continues with the next Secret; a delete's conflict (the Secret
// changed since the cache saw it) is not an error.
func TestPassGoesOnAfterFailures(t *testing.T) {
	a := token("2025-01-01")
	b := token("2025-01-01", InvalidSinceLabelKey, "2025-01-01")
	b.Name, b.UID = "tok2", "s2"
	f := &fixture{t: t, accounts: []*api.ServiceAccount{account("u1", "tok", "tok2")}, secrets: []*api.Secret{a, b}, since: "2024-01-01",
		api: resttest.New(t, resttest.Options{})}
	f.api.Fail(resttest.On("patch", "secrets"), rest.Status{Code: 500, Reason: "InternalError"})
	f.api.Fail(resttest.On("delete", "secrets").Nth(1), rest.Status{Code: 409, Reason: "Conflict"})
	f.api.Fail(resttest.On("delete", "secrets").Nth(2), rest.Status{Code: 500, Reason: "InternalError"})
	got := resttest.Lines(f.pass())
	if len(got) != 3 || got[0] != getCM || got[1] != markTok || got[2] != "delete secrets team-a/tok2 rv=10" {
		t.Fatalf("actions %q", got)
	}
	if logs := f.logs.String(); strings.Count(logs, `"level":"error"`) != 1 || !strings.Contains(logs, "failed to label legacy service account token secret") {
		t.Fatalf("one error (the patch's) should be logged, the conflict not:\n%s", logs)
	}
	// A second pass: the delete fails with 500, which is logged.
	f.logs.Reset()
	f.api = resttest.New(t, resttest.Options{})
	f.api.Fail(resttest.On("patch", "secrets"), rest.Status{Code: 500, Reason: "InternalError"})
	f.api.Fail(resttest.On("delete", "secrets"), rest.Status{Code: 500, Reason: "InternalError"})
	f.pass()
	if logs := f.logs.String(); strings.Count(logs, `"level":"error"`) != 2 || !strings.Contains(logs, "deleting legacy service account token") {
		t.Fatalf("the patch's and the delete's errors should be logged:\n%s", logs)
	}
}

// TestPodSecretNames: every place VisitPodSecretNames looks, modelled by
// kcm's api.Pod or not (read from the pod's JSON), and empty names
// skipped.
// secretsPod names a Secret in every place VisitPodSecretNames looks, and
// secretsPodNames are those names, sorted.
const secretsPod = `{"apiVersion":"v1","kind":"Pod","metadata":{"namespace":"ns","name":"p"},"spec":{
		"imagePullSecrets":[{"name":"pull"},{"name":""}],
		"initContainers":[{"name":"i","envFrom":[{"secretRef":{"name":"init-envfrom"}},{"configMapRef":{"name":"cm"}}]}],
		"containers":[{"name":"c","env":[{"name":"A","valueFrom":{"secretKeyRef":{"name":"env","key":"k"}}},{"name":"B","value":"x"}]}],
		"ephemeralContainers":[{"name":"e","envFrom":[{"secretRef":{"name":"eph"}}]}],
		"volumes":[
			{"name":"1","azureFile":{"secretName":"azure","shareName":"s"}},
			{"name":"2","cephfs":{"monitors":["m"],"secretRef":{"name":"ceph"}}},
			{"name":"3","cinder":{"volumeID":"v","secretRef":{"name":"cinder"}}},
			{"name":"4","flexVolume":{"driver":"d","secretRef":{"name":"flex"}}},
			{"name":"5","projected":{"sources":[{"secret":{"name":"proj"}},{"configMap":{"name":"cm"}},{"serviceAccountToken":{"path":"t"}}]}},
			{"name":"6","rbd":{"monitors":["m"],"image":"i","secretRef":{"name":"rbd"}}},
			{"name":"7","secret":{"secretName":"vol"}},
			{"name":"8","scaleIO":{"gateway":"g","system":"s","secretRef":{"name":"scaleio"}}},
			{"name":"9","iscsi":{"targetPortal":"t","iqn":"q","lun":0,"secretRef":{"name":"iscsi"}}},
			{"name":"10","storageos":{"secretRef":{"name":"storageos"}}},
			{"name":"11","csi":{"driver":"d","nodePublishSecretRef":{"name":"csi"}}},
			{"name":"12","csi":{"driver":"d"}},
			{"name":"13","cephfs":{"monitors":["m"]}},
			{"name":"14","emptyDir":{}}]}}`

var secretsPodNames = []string{"azure", "ceph", "cinder", "csi", "env", "eph", "flex", "init-envfrom", "iscsi", "proj",
	"pull", "rbd", "scaleio", "storageos", "vol"}

func TestPodSecretNames(t *testing.T) {
	p := podJSON(t, secretsPod)
	names := map[string]bool{}
	if err := podSecretNames(p, names); err != nil {
		t.Fatal(err)
	}
	var got []string
	for n := range names {
		got = append(got, n)
	}
	sort.Strings(got)
	if want := secretsPodNames; !slices.Equal(got, want) {
		t.Fatalf("secret names %q, want %q", got, want)
	}
	// A pod built in code (no JSON): its modelled fields.
	built := &api.Pod{ObjectMeta: api.ObjectMeta{Namespace: "ns", Name: "b"}, Spec: api.PodSpec{
		ImagePullSecrets: []api.LocalObjectReference{{Name: "pull"}},
		Volumes:          []api.Volume{{Name: "v", Secret: &api.SecretVolumeSource{SecretName: "vol"}}}}}
	names = map[string]bool{}
	if err := podSecretNames(built, names); err != nil || len(names) != 2 || !names["pull"] || !names["vol"] {
		t.Fatalf("built pod: %v, %v", names, err)
	}
}

// TestNewControllerChecksConfig: both periods must be positive (upstream's
// NewLegacySATokenCleaner); no clock means the real one.
func TestNewControllerChecksConfig(t *testing.T) {
	for _, cfg := range []Config{{CleanUpPeriod: 0, SyncInterval: time.Hour}, {CleanUpPeriod: -time.Hour, SyncInterval: time.Hour},
		{CleanUpPeriod: time.Hour, SyncInterval: 0}, {CleanUpPeriod: time.Hour, SyncInterval: -1}} {
		if _, err := NewController(informer.ServiceAccountLister{}, informer.Lister[*api.Secret]{}, informer.PodLister{}, nil, cfg); err == nil {
			t.Errorf("%+v accepted", cfg)
		}
	}
	c, err := NewController(informer.ServiceAccountLister{}, informer.Lister[*api.Secret]{}, informer.PodLister{}, nil,
		Config{CleanUpPeriod: time.Hour, SyncInterval: time.Hour})
	if err != nil || c.cfg.Clock != (clock.Real{}) {
		t.Fatalf("%v, %v; want the real clock", c, err)
	}
}
