package legacysatokencleaner

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/kcmlab/kcm/kube/api"
	"github.com/kcmlab/kcm/kube/labels"
	"github.com/kcmlab/kcm/kube/rest"
)

// The labels kube-apiserver and this controller put on legacy token
// Secrets (pkg/serviceaccount LastUsedLabelKey, InvalidSinceLabelKey):
// the day a token last authenticated a request, and the day the cleaner
// found it unused and marked it (kube-apiserver refuses a token so
// marked).
const (
	LastUsedLabelKey     = "kubernetes.io/legacy-token-last-used"
	InvalidSinceLabelKey = "kubernetes.io/legacy-token-invalid-since"
)

// The ConfigMap in which kube-apiserver records the day it began tracking
// legacy token use (pkg/controlplane/controller/legacytokentracking).
const (
	TrackingConfigMap = "kube-apiserver-legacy-service-account-token-tracking"
	TrackingSinceKey  = "since"
)

// dateLayout is the labels' date format (UTC days).
const dateLayout = "2006-01-02"

// errNoSince: the tracking ConfigMap has no "since".
var errNoSince = errors.New("configMap does not have since label")

// Pass is upstream's evaluateSATokens. Nothing happens until use has
// been tracked for the clean-up period. Then each token Secret created
// more than the period ago, not being deleted, unused for the period (no
// last-used label, or one older than the period), listed in its
// account's secrets (an auto-generated token) and mounted by no pod of
// its namespace is first labelled invalid-since today; once that label is
// older than the period, it is deleted (resourceVersion precondition:
// a Secret changed since the cache saw it is left for the next pass).
// Errors are logged; the pass goes on with the next Secret.
func (c *Controller) Pass(ctx context.Context) {
	log := c.cfg.Logger
	now := c.cfg.Clock.Now().UTC()
	trackedSince, err := c.latestPossibleTrackedSince(ctx)
	if err != nil {
		log.Error().Err(err).Msg("getting latest possible tracked_since time")
		return
	}
	if now.Before(trackedSince.Add(c.cfg.CleanUpPeriod)) {
		return // not tracked long enough
	}
	preserveCreatedOnOrAfter := now.Add(-c.cfg.CleanUpPeriod)
	preserveUsedOnOrAfter := preserveCreatedOnOrAfter.Format(dateLayout)

	mounted := map[string]map[string]bool{} // namespace -> secret names pods use
	for _, s := range c.secrets.List(labels.Everything()) {
		if s.Type != api.SecretTypeServiceAccountToken || !s.CreationTimestamp.Before(preserveCreatedOnOrAfter) || s.DeletionTimestamp != nil {
			continue
		}
		key := s.Namespace + "/" + s.Name
		lastUsed, ok := s.Labels[LastUsedLabelKey]
		if ok {
			if _, err := time.Parse(dateLayout, lastUsed); err != nil {
				log.Error().Err(err).Str("secret", key).Msg("parsing lastUsed time")
				continue
			}
			if lastUsed >= preserveUsedOnOrAfter {
				continue
			}
		}
		sa, err := c.serviceAccount(s)
		if err != nil {
			log.Error().Err(err).Str("secret", key).Msg("getting service account")
			continue
		}
		if sa == nil || !references(sa, s.Name) {
			continue // cannot tell it was auto-generated
		}
		used, err := c.mountedSecrets(s.Namespace, mounted)
		if err != nil {
			log.Error().Err(err).Str("secret", key).Msg("resolving mounted secrets")
			continue
		}
		if used[s.Name] {
			continue
		}
		invalidSince := s.Labels[InvalidSinceLabelKey]
		if _, err := time.Parse(dateLayout, invalidSince); err != nil {
			invalidSince = now.Format(dateLayout)
			log.Info().Str("invalidSince", invalidSince).Str("secret", key).Msg("mark the auto-generated service account token as invalid")
			if err := c.markInvalid(ctx, s, invalidSince); err != nil {
				log.Error().Err(err).Str("secret", key).Msg("failed to label legacy service account token secret with invalid since date")
			}
			continue
		}
		if invalidSince >= preserveUsedOnOrAfter {
			continue
		}
		log.Info().Str("secret", key).Time("creationTime", s.CreationTimestamp.Time).Str("lastUsed", lastUsed).
			Str("invalidSince", invalidSince).Msg("delete auto-generated service account token")
		rv := s.ResourceVersion
		err = c.secretAPI.InNamespace(s.Namespace).Delete(ctx, s.Name, rest.DeleteOptions{Preconditions: &rest.Preconditions{ResourceVersion: &rv}})
		if err != nil && !rest.IsConflict(err) && !rest.IsNotFound(err) {
			log.Error().Err(err).Str("secret", key).Str("serviceaccount", sa.Name).Msg("deleting legacy service account token")
		}
	}
}

// markInvalid merge-patches the invalid-since label, the Secret's UID in
// the patch as a precondition — the body upstream marshals from
// applyv1.Secret(name, ns).WithUID(uid).WithLabels(…).
func (c *Controller) markInvalid(ctx context.Context, s *api.Secret, day string) error {
	type meta struct {
		Name      string            `json:"name"`
		Namespace string            `json:"namespace"`
		UID       string            `json:"uid"`
		Labels    map[string]string `json:"labels"`
	}
	patch, err := json.Marshal(struct {
		Kind       string `json:"kind"`
		APIVersion string `json:"apiVersion"`
		Metadata   meta   `json:"metadata"`
	}{"Secret", "v1", meta{s.Name, s.Namespace, s.UID, map[string]string{InvalidSinceLabelKey: day}}})
	if err != nil {
		return err
	}
	_, err = c.secretAPI.InNamespace(s.Namespace).Patch(ctx, s.Name, rest.MergePatch, patch, rest.PatchOptions{})
	return err
}

// latestPossibleTrackedSince reads the day kube-apiserver began tracking
// legacy token use and returns the start of the next day: the earliest
// moment every use since is surely on record.
func (c *Controller) latestPossibleTrackedSince(ctx context.Context) (time.Time, error) {
	cm, err := c.configMaps.Get(ctx, TrackingConfigMap)
	if err != nil {
		return time.Time{}, err
	}
	since, ok := cm.Data[TrackingSinceKey]
	if !ok {
		return time.Time{}, errNoSince
	}
	t, err := time.Parse(dateLayout, since)
	if err != nil {
		return time.Time{}, fmt.Errorf("error parsing trackedSince time: %w", err)
	}
	return t.AddDate(0, 0, 1), nil
}

// serviceAccount is the cached account the Secret's annotations name,
// with their UID when set; nil when there is none.
func (c *Controller) serviceAccount(s *api.Secret) (*api.ServiceAccount, error) {
	name := s.Annotations[api.ServiceAccountNameKey]
	if name == "" {
		return nil, nil
	}
	sa, err := c.accounts.ServiceAccounts(s.Namespace).Get(name)
	if rest.IsNotFound(err) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	if uid := s.Annotations[api.ServiceAccountUIDKey]; uid != "" && uid != sa.UID {
		return nil, nil
	}
	return sa, nil
}

// mountedSecrets returns the names of the Secrets the namespace's pods
// refer to, computed once per namespace and pass.
func (c *Controller) mountedSecrets(ns string, cache map[string]map[string]bool) (map[string]bool, error) {
	if names, ok := cache[ns]; ok {
		return names, nil
	}
	names := map[string]bool{}
	for _, p := range c.pods.Pods(ns).List(labels.Everything()) {
		if err := podSecretNames(p, names); err != nil {
			return nil, err
		}
	}
	cache[ns] = names
	return names, nil
}

func references(sa *api.ServiceAccount, secret string) bool {
	for _, r := range sa.Secrets {
		if r.Name == secret {
			return true
		}
	}
	return false
}
