package authdelegate

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	"golang.org/x/sync/singleflight"

	"github.com/kcmlab/kcm/clock"
)

// subjectAccessReviewPath is where SubjectAccessReviews are created.
const subjectAccessReviewPath = "/apis/authorization.k8s.io/v1/subjectaccessreviews"

type subjectAccessReview struct {
	APIVersion string    `json:"apiVersion"`
	Kind       string    `json:"kind"`
	Spec       sarSpec   `json:"spec"`
	Status     sarStatus `json:"status,omitzero"`
}

type sarSpec struct {
	NonResourceAttributes struct {
		Path string `json:"path"`
		Verb string `json:"verb"`
	} `json:"nonResourceAttributes"`
	User   string              `json:"user,omitempty"`
	Groups []string            `json:"groups,omitempty"`
	Extra  map[string][]string `json:"extra,omitempty"`
	UID    string              `json:"uid,omitempty"`
}

type sarStatus struct {
	Allowed         bool   `json:"allowed"`
	Denied          bool   `json:"denied,omitempty"`
	Reason          string `json:"reason,omitempty"`
	EvaluationError string `json:"evaluationError,omitempty"`
}

// Decision is an authorizer's answer (k8s.io/apiserver's
// authorizer.Decision).
type Decision int

const (
	// NoOpinion: this authorizer neither allows nor denies; the next one
	// decides, and when none does the request is forbidden.
	NoOpinion Decision = iota
	Allow
	Deny
)

// sarAuthorizer asks the apiserver with a SubjectAccessReview for the
// non-resource URL and verb (k8s.io/apiserver's webhook authorizer in
// delegating mode). Allowed answers are cached for authorizedTTL, the
// others for unauthorizedTTL; an error is never cached.
type sarAuthorizer struct {
	post          Poster
	authorizedTTL time.Duration
	deniedTTL     time.Duration
	cache         *ttlCache[sarStatus]
	gate          *gate
	group         singleflight.Group
	clk           clock.Clock
	reviewed      func(err error, took time.Duration)
}

func newSARAuthorizer(post Poster, clk clock.Clock, authorized, unauthorized time.Duration, g *gate,
	reviewed func(error, time.Duration)) *sarAuthorizer {
	if reviewed == nil {
		reviewed = func(error, time.Duration) {}
	}
	return &sarAuthorizer{post: post, authorizedTTL: authorized, deniedTTL: unauthorized,
		cache: newTTLCache[sarStatus](clk, DefaultCacheSize), gate: g, clk: clk, reviewed: reviewed}
}

// spec is the review of a: its JSON is also the cache key.
func spec(a Attributes) sarSpec {
	var s sarSpec
	s.NonResourceAttributes.Path, s.NonResourceAttributes.Verb = a.Path, a.Verb
	s.User, s.Groups, s.Extra, s.UID = a.User.Name, a.User.Groups, a.User.Extra, a.User.UID
	return s
}

// authorize returns the apiserver's decision for a, with its reason.
func (z *sarAuthorizer) authorize(ctx context.Context, a Attributes) (Decision, string, error) {
	s := spec(a)
	keyBytes, err := json.Marshal(s)
	if err != nil {
		return NoOpinion, "", fmt.Errorf("SubjectAccessReview: %w", err)
	}
	key := string(keyBytes)
	st, ok := z.cache.get(key)
	if !ok {
		v, err, _ := z.group.Do(key, func() (any, error) {
			if st, ok := z.cache.get(key); ok {
				return st, nil
			}
			st, err := z.review(ctx, s)
			if err != nil {
				return nil, err
			}
			ttl := z.deniedTTL
			if st.Allowed {
				ttl = z.authorizedTTL
			}
			z.cache.add(key, st, ttl)
			return st, nil
		})
		if err != nil {
			return NoOpinion, "", err
		}
		st = v.(sarStatus)
	}
	switch {
	case st.Allowed:
		return Allow, st.Reason, nil
	case st.Denied:
		return Deny, st.Reason, nil
	}
	return NoOpinion, st.Reason, nil
}

// review sends one SubjectAccessReview through the gate.
func (z *sarAuthorizer) review(ctx context.Context, s sarSpec) (sarStatus, error) {
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), ReviewTimeout)
	defer cancel()
	release, err := z.gate.enter(ctx)
	if err != nil {
		return sarStatus{}, fmt.Errorf("SubjectAccessReview: %w", err)
	}
	defer release()
	body, err := json.Marshal(subjectAccessReview{APIVersion: "authorization.k8s.io/v1", Kind: "SubjectAccessReview", Spec: s})
	if err != nil {
		return sarStatus{}, fmt.Errorf("SubjectAccessReview: %w", err)
	}
	start := z.clk.Now()
	data, err := z.post.RawPost(ctx, subjectAccessReviewPath, body)
	z.reviewed(err, z.clk.Since(start))
	if err != nil {
		return sarStatus{}, fmt.Errorf("%w: SubjectAccessReview: %w", ErrReviewFailed, err)
	}
	var r subjectAccessReview
	if err := json.Unmarshal(data, &r); err != nil {
		return sarStatus{}, fmt.Errorf("%w: SubjectAccessReview: decoding the answer: %w", ErrReviewFailed, err)
	}
	return r.Status, nil
}
