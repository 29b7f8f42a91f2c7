package authdelegate

import (
	"slices"
	"strings"
)

// User is who a request comes from, as an authenticator found out:
// k8s.io/apiserver's user.Info.
type User struct {
	Name   string
	UID    string
	Groups []string
	Extra  map[string][]string
}

// anonymous is the user of a request that carries no credentials.
func anonymous() User {
	return User{Name: AnonymousUser, Groups: []string{UnauthenticatedGroup}}
}

// withAuthenticatedGroup adds system:authenticated to an authenticated
// user that lacks it, as k8s.io/apiserver's AuthenticatedGroupAdder does
// for every authenticator but the anonymous one.
func (u User) withAuthenticatedGroup() User {
	if u.Name == AnonymousUser || slices.Contains(u.Groups, AuthenticatedGroup) {
		return u
	}
	u.Groups = append(slices.Clip(u.Groups), AuthenticatedGroup)
	return u
}

// inGroup reports whether u is a member of any of groups.
func (u User) inGroup(groups []string) bool {
	return slices.ContainsFunc(u.Groups, func(g string) bool { return slices.Contains(groups, g) })
}

// Attributes are what an authorizer decides on: who, which verb, which
// path. Every path of kcm's secure port is a non-resource URL.
type Attributes struct {
	User User
	// Verb is the HTTP method lower-cased (get, post, ...), as
	// k8s.io/apiserver's RequestInfoFactory names it for a non-resource URL.
	Verb string
	Path string
}

// verbOf is the authorization verb of an HTTP method.
func verbOf(method string) string { return strings.ToLower(method) }
