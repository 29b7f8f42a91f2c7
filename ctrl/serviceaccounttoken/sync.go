package serviceaccounttoken

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"time"

	"github.com/kcmlab/kcm/ctrl"
	"github.com/kcmlab/kcm/kube/api"
	"github.com/kcmlab/kcm/kube/labels"
	"github.com/kcmlab/kcm/kube/rest"
)

// RemoveReferenceBackoff is how removing a deleted token from its
// account's secrets retries a conflict (upstream's RemoveTokenBackoff): at
// most RemoveReferenceSteps tries, RemoveReferenceDelay apart plus up to as
// much again of jitter.
const (
	RemoveReferenceSteps = 10
	RemoveReferenceDelay = 100 * time.Millisecond
)

// SyncServiceAccount is the service-account loop's sync
// (syncServiceAccount): when the account of key is gone from the cache —
// deleted, or re-created with another UID — every token Secret bound to
// it is deleted. A failed cache read or a failed deletion is retried; a
// malformed key is not.
func (c *Controller) SyncServiceAccount(ctx context.Context, key string) (ctrl.Result, error) {
	k, err := parseAccountKey(key)
	if err != nil {
		return ctrl.Result{}, ctrl.TerminalError(err)
	}
	sa, err := c.getServiceAccount(ctx, k.namespace, k.name, k.uid, false)
	if err != nil || sa != nil {
		return ctrl.Result{}, err
	}
	c.log.Debug().Str("namespace", k.namespace).Str("serviceaccount", k.name).Msg("service account deleted, removing tokens")
	var errs []error
	retry := false
	for _, s := range c.secrets.Namespace(k.namespace).List(labels.Everything()) {
		if !isTokenOf(s, k.name, k.uid) {
			continue
		}
		r, err := c.deleteToken(ctx, s.Namespace, s.Name, s.UID)
		if err != nil {
			errs = append(errs, err)
		}
		retry = retry || r
	}
	return ctrl.Result{}, retryOrNot(retry, errors.Join(errs...))
}

// SyncSecret is the secret loop's sync (syncSecret). For a token Secret
// still in the cache (with the key's UID): when its account is gone, in
// the cache and on the server, the Secret is deleted; otherwise its
// missing token, namespace or stale ca.crt is filled in. For a Secret gone
// from the cache, its name is removed from the account's secrets list.
func (c *Controller) SyncSecret(ctx context.Context, key string) (ctrl.Result, error) {
	k, err := parseSecretKey(key)
	if err != nil {
		return ctrl.Result{}, ctrl.TerminalError(err)
	}
	secret, err := c.getSecret(k.namespace, k.name, k.uid)
	if err != nil {
		return ctrl.Result{}, err
	}
	if secret == nil {
		// Gone: if its account still exists, drop the reference. Failures
		// are logged, not retried (upstream).
		if sa, err := c.getServiceAccount(ctx, k.namespace, k.saName, k.saUID, false); err == nil && sa != nil {
			if err := c.removeSecretReference(ctx, k.namespace, k.saName, k.saUID, k.name); err != nil {
				return ctrl.Result{}, ctrl.TerminalError(fmt.Errorf("removing secret reference %s from service account %s/%s: %w", k.name, k.namespace, k.saName, err))
			}
		}
		return ctrl.Result{}, nil
	}
	sa, err := c.getServiceAccount(ctx, k.namespace, k.saName, k.saUID, true)
	if err != nil {
		return ctrl.Result{}, err
	}
	if sa == nil {
		c.log.Debug().Str("secret", k.namespace+"/"+k.name).Msg("service account does not exist, deleting token")
		retry, err := c.deleteToken(ctx, k.namespace, k.name, k.uid)
		if err != nil {
			err = fmt.Errorf("deleting serviceaccount token %s/%s of %s: %w", k.namespace, k.name, k.saName, err)
		}
		return ctrl.Result{}, retryOrNot(retry, err)
	}
	retry, err := c.generateTokenIfNeeded(ctx, sa, secret)
	if err != nil {
		err = fmt.Errorf("populating serviceaccount token %s/%s of %s: %w", k.namespace, k.name, k.saName, err)
	}
	return ctrl.Result{}, retryOrNot(retry, err)
}

// retryOrNot turns upstream's (retry, err) pair into the loop's terms: an
// error not to retry is terminal (logged and counted, not requeued).
func retryOrNot(retry bool, err error) error {
	if err == nil || retry {
		return err
	}
	return ctrl.TerminalError(err)
}

// isTokenOf is apiserver's IsServiceAccountToken: a token Secret naming
// the account, whose UID annotation, when set, is the account's.
func isTokenOf(s *api.Secret, saName, saUID string) bool {
	if s.Type != api.SecretTypeServiceAccountToken || s.Annotations[api.ServiceAccountNameKey] != saName {
		return false
	}
	uid := s.Annotations[api.ServiceAccountUIDKey]
	return uid == "" || uid == saUID
}

// deleteToken deletes the Secret with the UID precondition. Gone already
// or replaced (409: another UID) is success; any other failure is retried.
func (c *Controller) deleteToken(ctx context.Context, ns, name, uid string) (retry bool, err error) {
	var opts rest.DeleteOptions
	if uid != "" {
		opts.Preconditions = &rest.Preconditions{UID: &uid}
	}
	err = c.secretClient.InNamespace(ns).Delete(ctx, name, opts)
	if err == nil || rest.IsNotFound(err) || rest.IsConflict(err) {
		return false, nil
	}
	return true, err
}

// updateNeeded says which of ca.crt, namespace and token a Secret lacks:
// ca.crt when the controller has a CA and the Secret's differs.
func (c *Controller) updateNeeded(s *api.Secret) (ca, namespace, token bool) {
	ca = len(c.rootCA) > 0 && !bytes.Equal(s.Data[api.ServiceAccountRootCAKey], c.rootCA)
	namespace = len(s.Data[api.ServiceAccountNamespaceKey]) == 0
	token = len(s.Data[api.ServiceAccountTokenKey]) == 0
	return ca, namespace, token
}

// generateTokenIfNeeded fills in what the cached Secret lacks on a fresh
// copy read from the server, written only when that copy is the one the
// cache holds (same resourceVersion; else the next event brings it back).
// A conflict or a Secret gone meanwhile is not an error.
func (c *Controller) generateTokenIfNeeded(ctx context.Context, sa *api.ServiceAccount, cached *api.Secret) (retry bool, err error) {
	if ca, ns, tok := c.updateNeeded(cached); !ca && !ns && !tok {
		return false, nil
	}
	secrets := c.secretClient.InNamespace(cached.Namespace)
	live, err := secrets.Get(ctx, cached.Name)
	if err != nil {
		return !rest.IsNotFound(err), err
	}
	if live.ResourceVersion != cached.ResourceVersion {
		c.log.Debug().Str("secret", cached.Namespace+"/"+cached.Name).Msg("secret is not up to date, skipping token population")
		return false, nil
	}
	needCA, needNS, needToken := c.updateNeeded(live)
	if !needCA && !needNS && !needToken {
		return false, nil
	}
	if live.Annotations == nil {
		live.Annotations = map[string]string{}
	}
	if live.Data == nil {
		live.Data = map[string][]byte{}
	}
	if needCA {
		live.Data[api.ServiceAccountRootCAKey] = c.rootCA
	}
	if needNS {
		live.Data[api.ServiceAccountNamespaceKey] = []byte(live.Namespace)
	}
	if needToken {
		token, err := c.signer.Sign(LegacyClaims(sa, live))
		if err != nil {
			return false, err
		}
		live.Data[api.ServiceAccountTokenKey] = []byte(token)
	}
	live.Annotations[api.ServiceAccountNameKey] = sa.Name
	live.Annotations[api.ServiceAccountUIDKey] = sa.UID
	_, err = secrets.Update(ctx, live)
	switch {
	case err == nil, rest.IsConflict(err), rest.IsNotFound(err):
		return false, nil
	default:
		return true, err
	}
}

// removeSecretReference drops secretName from the live account's secrets,
// retrying conflicts RemoveReferenceSteps times (client-go's
// RetryOnConflict with RemoveTokenBackoff). An account gone, or with
// another UID, or no longer naming the Secret needs nothing.
func (c *Controller) removeSecretReference(ctx context.Context, ns, saName, saUID, secretName string) error {
	accounts := c.accountClient.InNamespace(ns)
	var err error
	for step := range RemoveReferenceSteps {
		if step > 0 {
			d := RemoveReferenceDelay + time.Duration(rand.Int64N(int64(RemoveReferenceDelay)))
			t := c.clock.NewTimer(d)
			select {
			case <-ctx.Done():
				t.Stop()
				return errors.Join(err, ctx.Err())
			case <-t.C():
			}
		}
		err = c.removeSecretReferenceOnce(ctx, accounts, saName, saUID, secretName)
		if !rest.IsConflict(err) {
			return err
		}
	}
	return err
}

func (c *Controller) removeSecretReferenceOnce(ctx context.Context, accounts *rest.Resources[*api.ServiceAccount], saName, saUID, secretName string) error {
	sa, err := accounts.Get(ctx, saName)
	if rest.IsNotFound(err) {
		return nil
	}
	if err != nil {
		return err
	}
	if saUID != "" && saUID != sa.UID {
		return nil
	}
	kept := make([]api.ObjectReference, 0, len(sa.Secrets))
	for _, s := range sa.Secrets {
		if s.Name != secretName {
			kept = append(kept, s)
		}
	}
	if len(kept) == len(sa.Secrets) {
		return nil
	}
	sa.Secrets = kept
	_, err = accounts.Update(ctx, sa)
	if rest.IsNotFound(err) {
		return nil
	}
	return err
}

// getServiceAccount finds the account in the cache, with the given UID
// when uid is set; when it is not there and fetchOnMiss, on the server.
// Not found is (nil, nil).
func (c *Controller) getServiceAccount(ctx context.Context, ns, name, uid string, fetchOnMiss bool) (*api.ServiceAccount, error) {
	sa, err := c.accounts.ServiceAccounts(ns).Get(name)
	if err != nil && !rest.IsNotFound(err) {
		return nil, err
	}
	if err == nil && (uid == "" || uid == sa.UID) {
		return sa, nil
	}
	if !fetchOnMiss {
		return nil, nil
	}
	sa, err = c.accountClient.InNamespace(ns).Get(ctx, name)
	if rest.IsNotFound(err) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	if uid == "" || uid == sa.UID {
		return sa, nil
	}
	return nil, nil
}

// getSecret finds the Secret in the cache, with the given UID when uid is
// set. Not found is (nil, nil).
func (c *Controller) getSecret(ns, name, uid string) (*api.Secret, error) {
	s, err := c.secrets.Namespace(ns).Get(name)
	if rest.IsNotFound(err) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	if uid == "" || uid == s.UID {
		return s, nil
	}
	return nil, nil
}
