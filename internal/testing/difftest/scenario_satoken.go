package difftest

import (
	"bytes"
	"context"
	"crypto"
	"crypto/rsa"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"slices"
	"sort"
	"strings"

	"github.com/kcmlab/kcm/kube/api"
	"github.com/kcmlab/kcm/kube/api/decode"
	"github.com/kcmlab/kcm/kube/rest"
)

// Names of the service-account token scenario.
const (
	saTokenScenario = "serviceaccount-token"
	// staleUID is the account UID annotation of a token minted for an
	// earlier "builder": no account ever has it.
	staleUID = "00000000-dead-beef-0000-000000000000"
)

// ServiceAccountTokenScenario drives the serviceaccount-token controller,
// which both managers run with the same --service-account-private-key-file
// (an RSA key whose public half is pub) and --root-ca-file (caPEM; nil
// when neither has one, and ca.crt must be the CA of the cluster's
// kubeconfig):
//
//   - "created": accounts builder and deployer (deployer listing
//     deployer-token in its secrets) and token Secrets: two of builder
//     (one without, one with its UID annotation), one with a stale UID, one
//     of an account that does not exist, one of deployer, one of builder
//     with a token and a namespace already set, and an Opaque Secret that
//     names builder. The controller fills the first two and deployer's
//     (token, ca.crt, namespace, the UID annotation), adds only ca.crt to
//     the pre-filled one, deletes the stale and the orphaned ones, leaves
//     the Opaque one alone.
//   - "account deleted": builder goes; its three tokens go with it.
//   - "token deleted": deployer-token is deleted; deployer's secrets no
//     longer list it.
//
// After each phase every Secret's state is recorded — its data keys, its
// namespace entry, whether ca.crt is the expected CA, its annotations with
// the account UID named by account, and its token decoded: header, claims
// (the account UID likewise named) and whether the signature verifies
// with pub — so the two managers' tokens are compared claim by claim
// though each cluster gives the accounts their own UIDs. Secrets and
// ServiceAccounts are recorded at the end too.
func ServiceAccountTokenScenario(pub *rsa.PublicKey, caPEM []byte) Scenario {
	return Scenario{
		Name:   saTokenScenario,
		Record: []rest.Resource{rest.Secrets, rest.ServiceAccounts},
		Run:    func(ctx context.Context, env *Env) error { return runSATokenScenario(ctx, env, pub, caPEM) },
	}
}

func runSATokenScenario(ctx context.Context, env *Env, pub *rsa.PublicKey, caPEM []byte) error {
	caName := "the --root-ca-file bundle"
	if caPEM == nil { // no --root-ca-file: the CA each manager's kubeconfig trusts, its cluster's
		caPEM, caName = env.Cluster.Config().TLS.CAData, "<cluster CA>"
	}
	accounts := rest.NewResources(env.Client, rest.ServiceAccounts, decode.Typed[api.ServiceAccount]()).InNamespace(env.Namespace)
	secrets := rest.NewResources(env.Client, rest.Secrets, decode.Typed[api.Secret]()).InNamespace(env.Namespace)
	builder, err := accounts.Create(ctx, &api.ServiceAccount{ObjectMeta: api.ObjectMeta{Name: "builder"}})
	if err != nil {
		return err
	}
	deployer, err := accounts.Create(ctx, &api.ServiceAccount{ObjectMeta: api.ObjectMeta{Name: "deployer"},
		Secrets: []api.ObjectReference{{Name: "deployer-token"}}})
	if err != nil {
		return err
	}
	uids := map[string]string{builder.UID: "<uid of builder>", deployer.UID: "<uid of deployer>"}
	token := func(name, sa, saUID string, data map[string][]byte) *api.Secret {
		s := &api.Secret{ObjectMeta: api.ObjectMeta{Name: name, Annotations: map[string]string{api.ServiceAccountNameKey: sa}},
			Type: api.SecretTypeServiceAccountToken, Data: data}
		if saUID != "" {
			s.Annotations[api.ServiceAccountUIDKey] = saUID
		}
		return s
	}
	plain := token("plain", "builder", "", map[string][]byte{"k": []byte("v")})
	plain.Type = api.SecretTypeOpaque
	for _, s := range []*api.Secret{
		token("builder-token", "builder", "", nil),
		token("builder-token-uid", "builder", builder.UID, nil),
		token("builder-token-stale", "builder", staleUID, nil),
		token("ghost-token", "ghost", "", nil),
		token("deployer-token", "deployer", "", nil),
		token("prefilled", "builder", "", map[string][]byte{"token": []byte("preset"), "namespace": []byte("elsewhere")}),
		plain,
	} {
		if _, err := secrets.Create(ctx, s); err != nil {
			return fmt.Errorf("create secret %s: %w", s.Name, err)
		}
	}
	// The controller writes token, ca.crt, namespace and the UID annotation
	// in one update: the annotation (the pre-filled Secret has a token
	// already) marks it; what was written is compared in the states.
	filled := func(s *api.Secret) bool {
		return s != nil && len(s.Data["token"]) > 0 && s.Annotations[api.ServiceAccountUIDKey] != ""
	}
	state, err := waitUntil(ctx, secrets, "tokens filled, stale and orphaned ones deleted", func(m map[string]*api.Secret) bool {
		return filled(m["builder-token"]) && filled(m["builder-token-uid"]) && filled(m["deployer-token"]) && filled(m["prefilled"]) &&
			m["builder-token-stale"] == nil && m["ghost-token"] == nil
	})
	if err != nil {
		return err
	}
	recordSecrets(env, state, uids, pub, caPEM, caName)

	env.Observer.SetPhase("account deleted")
	if err := accounts.Delete(ctx, "builder", rest.DeleteOptions{}); err != nil {
		return err
	}
	state, err = waitUntil(ctx, secrets, "builder's tokens deleted", func(m map[string]*api.Secret) bool {
		return m["builder-token"] == nil && m["builder-token-uid"] == nil && m["prefilled"] == nil
	})
	if err != nil {
		return err
	}
	recordSecrets(env, state, uids, pub, caPEM, caName)

	env.Observer.SetPhase("token deleted")
	if err := secrets.Delete(ctx, "deployer-token", rest.DeleteOptions{}); err != nil {
		return err
	}
	sas, err := waitUntil(ctx, accounts, "deployer-token dropped from deployer's secrets", func(m map[string]*api.ServiceAccount) bool {
		d := m["deployer"]
		return d != nil && !slices.ContainsFunc(d.Secrets, func(r api.ObjectReference) bool { return r.Name == "deployer-token" })
	})
	if err != nil {
		return err
	}
	env.Observer.Record(fmt.Sprintf("deployer's secrets: %v", sas["deployer"].Secrets))
	return nil
}

// waitUntil lists r and follows it with a watch until cond holds on the
// objects by name, and returns them.
func waitUntil[T api.Object](ctx context.Context, r *rest.Resources[T], what string, cond func(map[string]T) bool) (map[string]T, error) {
	list, err := r.List(ctx, rest.ListOptions{})
	if err != nil {
		return nil, err
	}
	m := map[string]T{}
	for _, o := range list.Items {
		m[o.GetObjectMeta().Name] = o
	}
	if cond(m) {
		return m, nil
	}
	w, err := r.Watch(ctx, rest.WatchOptions{ListOptions: rest.ListOptions{ResourceVersion: list.ResourceVersion, TimeoutSeconds: watchTimeoutSeconds}})
	if err != nil {
		return nil, err
	}
	defer w.Close()
	for {
		ev, err := w.Next()
		if err != nil {
			return nil, fmt.Errorf("waiting for %s: %w", what, err)
		}
		switch ev.Type {
		case rest.Added, rest.Modified:
			m[ev.Object.GetObjectMeta().Name] = ev.Object
		case rest.Deleted:
			delete(m, ev.Object.GetObjectMeta().Name)
		default:
			continue
		}
		if cond(m) {
			return m, nil
		}
	}
}

// recordSecrets records one state per Secret, in name order.
func recordSecrets(env *Env, m map[string]*api.Secret, uids map[string]string, pub *rsa.PublicKey, caPEM []byte, caName string) {
	names := make([]string, 0, len(m))
	for n := range m {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		env.Observer.Record(secretState(m[n], uids, pub, caPEM, caName))
	}
}

// secretState renders what the controller decides about a Secret, with
// account UIDs replaced by their account's name.
func secretState(s *api.Secret, uids map[string]string, pub *rsa.PublicKey, caPEM []byte, caName string) string {
	named := func(uid string) string {
		if n, ok := uids[uid]; ok {
			return n
		}
		return uid
	}
	var keys []string
	for k := range s.Data {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	ca := "absent"
	if c, ok := s.Data["ca.crt"]; ok {
		ca = "other"
		if bytes.Equal(c, caPEM) {
			ca = caName
		}
	}
	parts := []string{fmt.Sprintf("%s type=%s keys=%v namespace=%q ca.crt=%s annotations: name=%q uid=%q", s.Name, s.Type, keys,
		s.Data["namespace"], ca, s.Annotations[api.ServiceAccountNameKey], named(s.Annotations[api.ServiceAccountUIDKey]))}
	if tok, ok := s.Data["token"]; ok {
		parts = append(parts, "token: "+tokenState(string(tok), named, pub))
	}
	return strings.Join(parts, "; ")
}

// tokenState decodes a JWT: its header, its claims (the account UID named)
// and whether the RS256 signature verifies with pub.
func tokenState(tok string, named func(string) string, pub *rsa.PublicKey) string {
	parts := strings.Split(tok, ".")
	if len(parts) != 3 {
		return fmt.Sprintf("not a JWT (%d parts)", len(parts))
	}
	var out []string
	for i, p := range parts[:2] {
		b, err := base64.RawURLEncoding.DecodeString(p)
		if err != nil {
			return "undecodable part " + fmt.Sprint(i)
		}
		var m map[string]any
		if err := json.Unmarshal(b, &m); err != nil {
			return "undecodable JSON in part " + fmt.Sprint(i)
		}
		if uid, ok := m["kubernetes.io/serviceaccount/service-account.uid"].(string); ok {
			m["kubernetes.io/serviceaccount/service-account.uid"] = named(uid)
		}
		keys := make([]string, 0, len(m))
		for k := range m {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		var kv []string
		for _, k := range keys {
			kv = append(kv, fmt.Sprintf("%s=%v", k, m[k]))
		}
		out = append(out, "{"+strings.Join(kv, " ")+"}")
	}
	verified := "signature does not verify"
	if sig, err := base64.RawURLEncoding.DecodeString(parts[2]); err == nil {
		sum := sha256.Sum256([]byte(parts[0] + "." + parts[1]))
		if rsa.VerifyPKCS1v15(pub, crypto.SHA256, sum[:], sig) == nil {
			verified = "signature verifies with the key file's public key"
		}
	}
	return strings.Join(out, " ") + " " + verified
}
