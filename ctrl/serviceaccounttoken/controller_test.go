package serviceaccounttoken

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/kcmlab/kcm/clock"
	"github.com/kcmlab/kcm/ctrl"
	"github.com/kcmlab/kcm/informer"
	"github.com/kcmlab/kcm/internal/testing/resttest"
	"github.com/kcmlab/kcm/kube/api"
	"github.com/kcmlab/kcm/kube/rest"
	"github.com/kcmlab/kcm/queue"
)

// fixture is the sample-controller test shape: the objects in the
// controller's caches, the objects on the recording fake apiserver (the
// same unless a case says otherwise), one sync, and the actions it took.
type fixture struct {
	t               *testing.T
	accounts        []*api.ServiceAccount // the cache
	secrets         []*api.Secret
	serverAccounts  []*api.ServiceAccount // the server; nil: the cache's
	serverSecrets   []*api.Secret
	rootCA          []byte
	clock           clock.Clock
	api             *resttest.Server
	signer          *Signer
	serverDifferent bool
}

const testCA = "-----BEGIN CERTIFICATE-----\nMIIBtest\n-----END CERTIFICATE-----\n"

func newFixture(t *testing.T) *fixture {
	return &fixture{t: t, api: resttest.New(t, resttest.Options{}), rootCA: []byte(testCA), signer: testSigner(t, "rsa-pkcs1.pem")}
}

func (f *fixture) controller() *Controller {
	if !f.serverDifferent {
		f.serverAccounts, f.serverSecrets = f.accounts, f.secrets
	}
	resttest.Add(f.api, rest.ServiceAccounts, f.serverAccounts...)
	resttest.Add(f.api, rest.Secrets, f.serverSecrets...)
	return NewController(informer.ServiceAccountLister{Lister: resttest.Lister("serviceaccounts", f.accounts...)},
		resttest.Lister("secrets", f.secrets...), f.api.Client(), Config{Signer: f.signer, RootCA: f.rootCA, Clock: f.clock})
}

func (f *fixture) syncSecret(key string) ([]resttest.Action, error) {
	f.t.Helper()
	_, err := f.controller().SyncSecret(context.Background(), key)
	return f.api.Actions(), err
}

func (f *fixture) syncAccount(key string) ([]resttest.Action, error) {
	f.t.Helper()
	_, err := f.controller().SyncServiceAccount(context.Background(), key)
	return f.api.Actions(), err
}

func (f *fixture) storedSecret(name string) *api.Secret {
	f.t.Helper()
	s, ok := resttest.Get[*api.Secret](f.api, rest.Secrets, "team-a", name)
	if !ok {
		f.t.Fatalf("secret %s is not on the server", name)
	}
	return s
}

func account(name, uid string, secrets ...string) *api.ServiceAccount {
	sa := &api.ServiceAccount{ObjectMeta: api.ObjectMeta{Namespace: "team-a", Name: name, UID: uid, ResourceVersion: "5"}}
	for _, s := range secrets {
		sa.Secrets = append(sa.Secrets, api.ObjectReference{Name: s})
	}
	return sa
}

// tokenSecret is a token Secret of account saName (saUID "" leaves the
// UID annotation out), with data given as key, value pairs.
func tokenSecret(name, uid, saName, saUID string, data ...string) *api.Secret {
	s := &api.Secret{ObjectMeta: api.ObjectMeta{Namespace: "team-a", Name: name, UID: uid, ResourceVersion: "10",
		Annotations: map[string]string{api.ServiceAccountNameKey: saName}}, Type: api.SecretTypeServiceAccountToken}
	if saUID != "" {
		s.Annotations[api.ServiceAccountUIDKey] = saUID
	}
	if len(data) > 0 {
		s.Data = map[string][]byte{}
		for i := 0; i+1 < len(data); i += 2 {
			s.Data[data[i]] = []byte(data[i+1])
		}
	}
	return s
}

func withAnnotation(s *api.Secret, k, v string) *api.Secret {
	s.Annotations[k] = v
	return s
}

const (
	getSecret     = "get secrets team-a/builder-token"
	updateSecret  = "update secrets team-a/builder-token"
	deleteSecret  = "delete secrets team-a/builder-token uid=s1"
	getAccount    = "get serviceaccounts team-a/builder"
	updateAccount = "update serviceaccounts team-a/builder"
)

var complete = []string{"token", "t0", "namespace", "team-a", "ca.crt", testCA}

// TestSyncSecret follows upstream's TestTokenCreation cases for a token
// Secret's sync: what is filled in, when the Secret is deleted, when the
// account's reference to it is dropped (tokens_controller.go syncSecret,
// generateTokenIfNeeded, removeSecretReference).
func TestSyncSecret(t *testing.T) {
	builder := account("builder", "u1")
	for _, tc := range []struct {
		name             string
		accounts         []*api.ServiceAccount
		secrets          []*api.Secret
		server           func(f *fixture) // changes the server's objects
		key              string           // default: the cached builder-token's
		rootCA           string           // "-" for none
		want             []string
		check            func(t *testing.T, f *fixture)
		wantAccountLists []string // the server's builder.secrets afterwards, when set
	}{
		{name: "new token secret: token, namespace, ca.crt and the account's UID filled in, other annotations kept",
			accounts: []*api.ServiceAccount{builder}, secrets: []*api.Secret{withAnnotation(tokenSecret("builder-token", "s1", "builder", ""), "team", "a")},
			want: []string{getSecret, updateSecret},
			check: func(t *testing.T, f *fixture) {
				s := f.storedSecret("builder-token")
				if string(s.Data["namespace"]) != "team-a" || string(s.Data["ca.crt"]) != testCA || s.Annotations[api.ServiceAccountUIDKey] != "u1" ||
					s.Annotations[api.ServiceAccountNameKey] != "builder" || s.Annotations["team"] != "a" {
					t.Fatalf("stored secret %+v", s)
				}
				_, claims := verify(t, string(s.Data["token"]), f.signer.Public())
				if claims["sub"] != "system:serviceaccount:team-a:builder" || claims["kubernetes.io/serviceaccount/service-account.uid"] != "u1" ||
					claims["kubernetes.io/serviceaccount/secret.name"] != "builder-token" || claims["iss"] != LegacyIssuer {
					t.Fatalf("claims %v", claims)
				}
			}},
		{name: "complete secret: nothing written", accounts: []*api.ServiceAccount{builder},
			secrets: []*api.Secret{tokenSecret("builder-token", "s1", "builder", "u1", complete...)}},
		{name: "stale ca.crt: replaced, the token kept", accounts: []*api.ServiceAccount{builder},
			secrets: []*api.Secret{tokenSecret("builder-token", "s1", "builder", "u1", "token", "t0", "namespace", "team-a", "ca.crt", "old")},
			want:    []string{getSecret, updateSecret},
			check: func(t *testing.T, f *fixture) {
				if s := f.storedSecret("builder-token"); string(s.Data["ca.crt"]) != testCA || string(s.Data["token"]) != "t0" {
					t.Fatalf("stored data %q", s.Data)
				}
			}},
		{name: "no CA configured: a secret without ca.crt is complete", accounts: []*api.ServiceAccount{builder}, rootCA: "-",
			secrets: []*api.Secret{tokenSecret("builder-token", "s1", "builder", "u1", "token", "t0", "namespace", "team-a")}},
		{name: "no CA configured: a ca.crt already there is left alone", accounts: []*api.ServiceAccount{builder}, rootCA: "-",
			secrets: []*api.Secret{tokenSecret("builder-token", "s1", "builder", "u1", "token", "t0", "namespace", "team-a", "ca.crt", "old")}},
		{name: "missing namespace only: filled in", accounts: []*api.ServiceAccount{builder},
			secrets: []*api.Secret{tokenSecret("builder-token", "s1", "builder", "u1", "token", "t0", "ca.crt", testCA)},
			want:    []string{getSecret, updateSecret},
			check: func(t *testing.T, f *fixture) {
				if s := f.storedSecret("builder-token"); string(s.Data["namespace"]) != "team-a" || string(s.Data["token"]) != "t0" {
					t.Fatalf("stored data %q", s.Data)
				}
			}},
		{name: "account not cached yet: read from the server", secrets: []*api.Secret{tokenSecret("builder-token", "s1", "builder", "u1")},
			server: func(f *fixture) { f.serverAccounts = []*api.ServiceAccount{builder} },
			want:   []string{getAccount, getSecret, updateSecret}},
		{name: "account gone: the token deleted with its UID precondition",
			secrets: []*api.Secret{tokenSecret("builder-token", "s1", "builder", "u1", complete...)},
			want:    []string{getAccount, deleteSecret},
			check: func(t *testing.T, f *fixture) {
				if _, ok := resttest.Get[*api.Secret](f.api, rest.Secrets, "team-a", "builder-token"); ok {
					t.Fatal("the token is still there")
				}
			}},
		{name: "account re-created with another UID: the old one's token deleted", accounts: []*api.ServiceAccount{builder},
			secrets: []*api.Secret{tokenSecret("builder-token", "s1", "builder", "u0", complete...)},
			want:    []string{getAccount, deleteSecret}},
		{name: "the cache is behind the server: nothing written (the next event brings it back)", accounts: []*api.ServiceAccount{builder},
			secrets: []*api.Secret{tokenSecret("builder-token", "s1", "builder", "u1")},
			server: func(f *fixture) {
				s := tokenSecret("builder-token", "s1", "builder", "u1")
				s.ResourceVersion = "11"
				f.serverSecrets = []*api.Secret{s}
			},
			want: []string{getSecret}},
		{name: "the server's copy is already complete: nothing written", accounts: []*api.ServiceAccount{builder},
			secrets: []*api.Secret{tokenSecret("builder-token", "s1", "builder", "u1")},
			server: func(f *fixture) {
				f.serverSecrets = []*api.Secret{tokenSecret("builder-token", "s1", "builder", "u1", complete...)}
			},
			want: []string{getSecret}},
		{name: "secret deleted: dropped from the account's secrets",
			accounts: []*api.ServiceAccount{account("builder", "u1", "other", "builder-token", "last")},
			key:      SecretKey(tokenSecret("builder-token", "s1", "builder", "u1")),
			want:     []string{getAccount, updateAccount}, wantAccountLists: []string{"other", "last"}},
		{name: "secret deleted, not listed by the account: nothing written",
			accounts: []*api.ServiceAccount{account("builder", "u1", "other")},
			key:      SecretKey(tokenSecret("builder-token", "s1", "builder", "u1")),
			want:     []string{getAccount}, wantAccountLists: []string{"other"}},
		{name: "secret deleted, its account too: nothing to do",
			key: SecretKey(tokenSecret("builder-token", "s1", "builder", "u1"))},
		{name: "secret deleted, the account re-created with another UID: nothing to do",
			accounts: []*api.ServiceAccount{account("builder", "u2", "builder-token")},
			key:      SecretKey(tokenSecret("builder-token", "s1", "builder", "u1")), wantAccountLists: []string{"builder-token"}},
		{name: "secret deleted, the server's account re-created with another UID (the cache is behind): nothing written",
			accounts: []*api.ServiceAccount{account("builder", "u1", "builder-token")},
			key:      SecretKey(tokenSecret("builder-token", "s1", "builder", "u1")),
			server:   func(f *fixture) { f.serverAccounts = []*api.ServiceAccount{account("builder", "u2", "builder-token")} },
			want:     []string{getAccount}, wantAccountLists: []string{"builder-token"}},
		{name: "secret re-created with another UID: the old one is gone",
			accounts: []*api.ServiceAccount{account("builder", "u1", "builder-token")},
			secrets:  []*api.Secret{tokenSecret("builder-token", "s2", "builder", "u1", complete...)},
			key:      SecretKey(tokenSecret("builder-token", "s1", "builder", "u1")),
			want:     []string{getAccount, updateAccount}, wantAccountLists: []string{}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := newFixture(t)
			f.accounts, f.secrets = tc.accounts, tc.secrets
			if tc.rootCA == "-" {
				f.rootCA = nil
			}
			if tc.server != nil {
				f.serverAccounts, f.serverSecrets = f.accounts, f.secrets
				f.serverDifferent = true
				tc.server(f)
			}
			key := tc.key
			if key == "" {
				key = SecretKey(tc.secrets[0])
			}
			got, err := f.syncSecret(key)
			if err != nil || !resttest.Expect(t, got, tc.want...) {
				t.Fatalf("actions %q err %v; want %q", resttest.Lines(got), err, tc.want)
			}
			if tc.check != nil {
				tc.check(t, f)
			}
			if tc.wantAccountLists != nil {
				sa, _ := resttest.Get[*api.ServiceAccount](f.api, rest.ServiceAccounts, "team-a", "builder")
				var names []string
				for _, r := range sa.Secrets {
					names = append(names, r.Name)
				}
				if !slices.Equal(names, tc.wantAccountLists) && !(len(names) == 0 && len(tc.wantAccountLists) == 0) {
					t.Fatalf("account's secrets %q, want %q", names, tc.wantAccountLists)
				}
			}
		})
	}
}

// TestSyncSecretRetries: upstream's retry decisions — a failure to read
// the cache or to write is retried (the loop backs off, up to
// MaxRetries); a conflict or a Secret gone is success (the next event
// comes); a secret vanished on the server between cache and GET, and a
// failure to drop a reference, are logged and not retried (terminal).
func TestSyncSecretRetries(t *testing.T) {
	fresh := func() []*api.Secret { return []*api.Secret{tokenSecret("builder-token", "s1", "builder", "u1")} }
	for _, tc := range []struct {
		name      string
		fail      resttest.Match
		status    rest.Status
		accounts  []*api.ServiceAccount
		secrets   []*api.Secret
		key       string
		want      []string
		wantErr   bool
		wantRetry bool
	}{
		{"update conflict: success", resttest.On("update", "secrets"), rest.Status{Code: 409, Reason: "Conflict"},
			[]*api.ServiceAccount{account("builder", "u1")}, fresh(), "", []string{getSecret, updateSecret}, false, false},
		{"update not found: success", resttest.On("update", "secrets"), rest.Status{Code: 404, Reason: "NotFound"},
			[]*api.ServiceAccount{account("builder", "u1")}, fresh(), "", []string{getSecret, updateSecret}, false, false},
		{"update failure: retried", resttest.On("update", "secrets"), rest.Status{Code: 500, Reason: "InternalError"},
			[]*api.ServiceAccount{account("builder", "u1")}, fresh(), "", []string{getSecret, updateSecret}, true, true},
		{"get failure: retried", resttest.On("get", "secrets"), rest.Status{Code: 500, Reason: "InternalError"},
			[]*api.ServiceAccount{account("builder", "u1")}, fresh(), "", []string{getSecret}, true, true},
		{"get not found: not retried", resttest.On("get", "secrets"), rest.Status{Code: 404, Reason: "NotFound"},
			[]*api.ServiceAccount{account("builder", "u1")}, fresh(), "", []string{getSecret}, true, false},
		{"delete not found: success", resttest.On("delete", "secrets"), rest.Status{Code: 404, Reason: "NotFound"},
			nil, fresh(), "", []string{getAccount, deleteSecret}, false, false},
		{"delete precondition conflict: success", resttest.On("delete", "secrets"), rest.Status{Code: 409, Reason: "Conflict"},
			nil, fresh(), "", []string{getAccount, deleteSecret}, false, false},
		{"delete failure: retried", resttest.On("delete", "secrets"), rest.Status{Code: 500, Reason: "InternalError"},
			nil, fresh(), "", []string{getAccount, deleteSecret}, true, true},
		{"account read failure: retried", resttest.On("get", "serviceaccounts"), rest.Status{Code: 500, Reason: "InternalError"},
			nil, fresh(), "", []string{getAccount}, true, true},
		{"reference removal failure: not retried", resttest.On("update", "serviceaccounts"), rest.Status{Code: 500, Reason: "InternalError"},
			[]*api.ServiceAccount{account("builder", "u1", "builder-token")}, nil, SecretKey(fresh()[0]), []string{getAccount, updateAccount}, true, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := newFixture(t)
			f.accounts, f.secrets = tc.accounts, tc.secrets
			f.api.Fail(tc.fail, tc.status)
			key := tc.key
			if key == "" {
				key = SecretKey(tc.secrets[0])
			}
			got, err := f.syncSecret(key)
			if !resttest.Expect(t, got, tc.want...) || (err != nil) != tc.wantErr || (err != nil && ctrl.IsTerminal(err) == tc.wantRetry) {
				t.Fatalf("actions %q err %v (terminal %v); want %q, error %v, retried %v", resttest.Lines(got), err, ctrl.IsTerminal(err), tc.want, tc.wantErr, tc.wantRetry)
			}
		})
	}
}

// TestRemoveReferenceRetriesConflicts: a conflict on the account's update
// is retried after RemoveReferenceDelay (plus jitter) on the controller's
// clock, with a fresh read, as client-go's RetryOnConflict with
// RemoveTokenBackoff does; the sync returns once the update goes through.
func TestRemoveReferenceRetriesConflicts(t *testing.T) {
	f := newFixture(t)
	clk := clock.NewFake(time.Unix(1700000000, 0))
	f.clock = clk
	f.accounts = []*api.ServiceAccount{account("builder", "u1", "builder-token", "other")}
	f.api.Fail(resttest.On("update", "serviceaccounts").Times(2), rest.Status{Code: 409, Reason: "Conflict"})
	c := f.controller()
	done := make(chan error, 1)
	go func() {
		_, err := c.SyncSecret(context.Background(), SecretKey(tokenSecret("builder-token", "s1", "builder", "u1")))
		done <- err
	}()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	for i := range 2 {
		if err := clk.BlockUntilWaiters(ctx, 1); err != nil {
			t.Fatal(err)
		}
		clk.Step(RemoveReferenceDelay - time.Nanosecond) // the least the jittered delay can be: not yet
		if clk.Waiters() != 1 {
			t.Fatalf("retry %d's delay ended before RemoveReferenceDelay", i+1)
		}
		clk.Step(RemoveReferenceDelay + time.Nanosecond) // the most it can be, 2 × RemoveReferenceDelay, has passed
	}
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	want := []string{getAccount, updateAccount, getAccount, updateAccount, getAccount, updateAccount}
	if got := f.api.Actions(); !resttest.Expect(t, got, want...) {
		t.Fatalf("actions %q, want %q", resttest.Lines(got), want)
	}
	sa, _ := resttest.Get[*api.ServiceAccount](f.api, rest.ServiceAccounts, "team-a", "builder")
	if len(sa.Secrets) != 1 || sa.Secrets[0].Name != "other" {
		t.Fatalf("account's secrets %+v", sa.Secrets)
	}
}

// TestSyncServiceAccount: when an account is gone (or re-created with
// another UID), the token Secrets bound to it — by name, and by UID when
// their annotation has one — are deleted; others stay
// (syncServiceAccount, deleteTokens, apiserver's IsServiceAccountToken).
func TestSyncServiceAccount(t *testing.T) {
	opaque := tokenSecret("builder-opaque", "s9", "builder", "u1")
	opaque.Type = api.SecretTypeOpaque
	secrets := []*api.Secret{
		tokenSecret("builder-token", "s1", "builder", "u1"),
		tokenSecret("builder-token-no-uid", "s2", "builder", ""),
		tokenSecret("builder-token-other-uid", "s3", "builder", "u2"),
		tokenSecret("deployer-token", "s4", "deployer", "u3"),
		opaque,
	}
	deletes := []string{"delete secrets team-a/builder-token uid=s1", "delete secrets team-a/builder-token-no-uid uid=s2"}
	key := AccountKey(account("builder", "u1"))
	for _, tc := range []struct {
		name     string
		accounts []*api.ServiceAccount
		fail     *rest.Status
		want     []string
		wantErr  bool
	}{
		{"account present: nothing", []*api.ServiceAccount{account("builder", "u1")}, nil, nil, false},
		{"account deleted: its tokens deleted", nil, nil, deletes, false},
		{"account re-created with another UID: the old one's tokens deleted", []*api.ServiceAccount{account("builder", "u2")}, nil, deletes, false},
		{"delete conflict: success", nil, &rest.Status{Code: 409, Reason: "Conflict"}, deletes, false},
		{"delete failure: every token tried, retried", nil, &rest.Status{Code: 500, Reason: "InternalError"}, deletes, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := newFixture(t)
			f.accounts, f.secrets = tc.accounts, secrets
			if tc.fail != nil {
				f.api.Fail(resttest.On("delete", "secrets"), *tc.fail)
			}
			got, err := f.syncAccount(key)
			if !resttest.ExpectUnordered(t, got, tc.want...) || (err != nil) != tc.wantErr || ctrl.IsTerminal(err) {
				t.Fatalf("actions %q err %v; want %q error %v", resttest.Lines(got), err, tc.want, tc.wantErr)
			}
		})
	}
}

// TestMalformedKeysAreNotRetried: keys no handler makes (upstream's
// parse errors) fail terminally, as upstream logs and forgets them.
func TestMalformedKeysAreNotRetried(t *testing.T) {
	c := newFixture(t).controller()
	for _, key := range []string{"", "team-a/builder", "team-a//u1", "a/b/c/d"} {
		if _, err := c.SyncServiceAccount(context.Background(), key); !ctrl.IsTerminal(err) {
			t.Errorf("account key %q: %v, want a terminal error", key, err)
		}
	}
	for _, key := range []string{"", "team-a/s/uid/builder", "team-a/s/uid//u1", "team-a/s//builder/u1", "%zz/s/uid/b/u"} {
		if _, err := c.SyncSecret(context.Background(), key); !ctrl.IsTerminal(err) {
			t.Errorf("secret key %q: %v, want a terminal error", key, err)
		}
	}
}

// TestKeys: keys carry every field through, an annotation with a "/"
// included, and read as namespace/name/uid/... for plain names.
func TestKeys(t *testing.T) {
	s := tokenSecret("builder-token", "s1", "we/ird", "u1")
	k, err := parseSecretKey(SecretKey(s))
	if err != nil || k != (secretKey{"team-a", "builder-token", "s1", "we/ird", "u1"}) {
		t.Fatalf("%q parsed as %+v, %v", SecretKey(s), k, err)
	}
	if got := SecretKey(tokenSecret("builder-token", "s1", "builder", "")); got != "team-a/builder-token/s1/builder/" {
		t.Fatalf("key %q", got)
	}
	a, err := parseAccountKey(AccountKey(account("builder", "u1")))
	if err != nil || a != (accountKey{"team-a", "builder", "u1"}) {
		t.Fatalf("account key parsed as %+v, %v", a, err)
	}
}

// TestHandlers: every account event enqueues the account's key; Secret
// events enqueue the Secret's key only for token Secrets (upstream's
// FilteringResourceEventHandler).
func TestHandlers(t *testing.T) {
	accounts, secrets := queue.New(queue.Config[string]{}), queue.New(queue.Config[string]{})
	defer accounts.ShutDown()
	defer secrets.ShutDown()
	h := &handlers{accounts: accounts, secrets: secrets}
	h.accountAdded(account("a", "1"), true)
	h.accountUpdated(account("x", "0"), account("b", "2"))
	h.accountDeleted(account("c", "3"), true)
	opaque := tokenSecret("opaque", "s0", "a", "1")
	opaque.Type = api.SecretTypeOpaque
	h.secretAdded(opaque, false)
	h.secretAdded(tokenSecret("t1", "s1", "a", "1"), false)
	h.secretUpdated(opaque, tokenSecret("t2", "s2", "a", "1"))
	h.secretUpdated(tokenSecret("t9", "s9", "a", "1"), opaque)
	h.secretDeleted(tokenSecret("t3", "s3", "a", ""), true)
	drain := func(q *queue.Queue[string]) []string {
		var got []string
		for q.Len() > 0 {
			k, err := q.Get(context.Background())
			if err != nil {
				t.Fatal(err)
			}
			got = append(got, k)
			q.Done(k)
		}
		return got
	}
	if got, want := drain(accounts), []string{"team-a/a/1", "team-a/b/2", "team-a/c/3"}; !slices.Equal(got, want) {
		t.Errorf("account keys %q, want %q", got, want)
	}
	if got, want := drain(secrets), []string{"team-a/t1/s1/a/1", "team-a/t2/s2/a/1", "team-a/t3/s3/a/"}; !slices.Equal(got, want) {
		t.Errorf("secret keys %q, want %q", got, want)
	}
}

// TestRun: a controller not built by New cannot run; one built by New
// runs its two loops until its context ends and returns without an error
// when it ended before the caches synced.
func TestRun(t *testing.T) {
	if err := newFixture(t).controller().Run(context.Background(), 1); err == nil {
		t.Fatal("Run of a controller without loops: no error")
	}
	c, err := build(t, nil, "--service-account-private-key-file=testdata/rsa-pkcs1.pem")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if err := c.Run(ctx, 2); err != nil {
		t.Fatalf("Run on an ended context: %v", err)
	}
}

// TestNilSignerRenders: a nil *Signer prints and marshals without
// panicking.
func TestNilSignerRenders(t *testing.T) {
	var s *Signer
	if got := fmt.Sprint(s); got != "Signer(nil)" {
		t.Fatalf("%q", got)
	}
	if b, err := json.Marshal(s); err != nil || string(b) != "null" {
		t.Fatalf("%s, %v", b, err)
	}
	var buf bytes.Buffer
	log := zeroLogger(&buf)
	log.Info().Object("signer", s).Msg("")
	if !strings.Contains(buf.String(), `"signer":{}`) {
		t.Fatalf("%s", buf.String())
	}
}
