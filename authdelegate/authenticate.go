package authdelegate

import (
	"errors"
	"net/http"
)

// ErrUnauthenticated: credentials were presented and none was accepted.
var ErrUnauthenticated = errors.New("unauthenticated")

// authenticator finds the user of a request: ok with the user; not ok and
// no error when the request carries no credentials of its kind; an error
// when it carries some that fail (or could not be checked).
type authenticator interface {
	authenticate(r *http.Request) (User, bool, error)
}

// chain is k8s.io/apiserver's delegating authenticator: the front proxy,
// then client certificates, then bearer tokens; the first to succeed
// wins. When none succeeds and one failed, the request is refused (401,
// even if another kind of credential is absent); when nobody found any
// credentials, the user is anonymous (system:anonymous in
// system:unauthenticated). Every authenticated user gets
// system:authenticated.
type chain []authenticator

// authenticate returns the request's user or ErrUnauthenticated.
func (c chain) authenticate(r *http.Request) (User, error) {
	var errs []error
	for _, a := range c {
		u, ok, err := a.authenticate(r)
		if ok {
			return u.withAuthenticatedGroup(), nil
		}
		if err != nil {
			errs = append(errs, err)
		}
	}
	if len(errs) > 0 {
		return User{}, errors.Join(append([]error{ErrUnauthenticated}, errs...)...)
	}
	return anonymous(), nil
}
