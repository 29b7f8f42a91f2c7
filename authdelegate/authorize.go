package authdelegate

import (
	"context"
	"errors"
)

// authorizer is one link of the authorization chain.
type authorizer interface {
	authorize(ctx context.Context, a Attributes) (Decision, string, error)
}

// privilegedGroups allows members of the groups (system:masters), as
// k8s.io/apiserver's NewPrivilegedGroups; it has no opinion on others.
type privilegedGroups []string

func (g privilegedGroups) authorize(_ context.Context, a Attributes) (Decision, string, error) {
	if a.User.inGroup(g) {
		return Allow, "", nil
	}
	return NoOpinion, "", nil
}

// alwaysAllowPaths allows the paths of --authorization-always-allow-paths
// to anyone, anonymous included.
type alwaysAllowPaths struct{ m *pathMatcher }

func (p alwaysAllowPaths) authorize(_ context.Context, a Attributes) (Decision, string, error) {
	if p.m.match(a.Path) {
		return Allow, "", nil
	}
	return NoOpinion, "", nil
}

// union asks each authorizer in turn (k8s.io/apiserver's union
// authorizer): the first Allow or Deny decides; an error goes on to the
// next and is returned with NoOpinion when nobody decided. NoOpinion at
// the end means forbidden: what is not allowed is refused.
type union []authorizer

func (u union) authorize(ctx context.Context, a Attributes) (Decision, string, error) {
	var errs []error
	var reasons string
	for _, z := range u {
		d, reason, err := z.authorize(ctx, a)
		if err != nil {
			errs = append(errs, err)
		}
		if d != NoOpinion {
			return d, reason, nil
		}
		if reason != "" {
			reasons = reason
		}
	}
	return NoOpinion, reasons, errors.Join(errs...)
}
