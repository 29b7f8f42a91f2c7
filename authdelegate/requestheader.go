package authdelegate

import (
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"sync/atomic"

	"github.com/kcmlab/kcm/clock"
)

// ErrProxyNotAllowed: a certificate signed by the request-header CA whose
// common name is not in --requestheader-allowed-names.
var ErrProxyNotAllowed = errors.New("client certificate is not an allowed front proxy")

// headerConfig is which headers carry the user and which proxies may set
// them; it may change with the ConfigMap.
type headerConfig struct {
	allowedNames        []string
	usernameHeaders     []string
	uidHeaders          []string
	groupHeaders        []string
	extraHeaderPrefixes []string
}

// headerAuthenticator trusts the user named in request headers only
// from a front proxy: a client certificate signed by the request-header
// CA whose common name is allowed (k8s.io/apiserver's requestheader
// authenticator behind its x509 verifier). The headers are removed from
// the request, whoever sent them.
type headerAuthenticator struct {
	ca  *caBundle
	cfg atomic.Pointer[headerConfig]
	clk clock.Clock
}

// authenticate implements authenticator.
func (a *headerAuthenticator) authenticate(r *http.Request) (User, bool, error) {
	cfg := a.cfg.Load()
	if cfg == nil {
		return User{}, false, nil
	}
	defer a.strip(r, cfg)
	leaf, ok, err := a.ca.verify(r, a.clk)
	if !ok || err != nil {
		return User{}, false, err
	}
	if len(cfg.allowedNames) > 0 && !slices.Contains(cfg.allowedNames, leaf.Subject.CommonName) {
		return User{}, false, fmt.Errorf("%w: %q", ErrProxyNotAllowed, leaf.Subject.CommonName)
	}
	name := firstHeader(r.Header, cfg.usernameHeaders)
	if name == "" {
		return User{}, false, nil
	}
	u := User{Name: name, UID: firstHeader(r.Header, cfg.uidHeaders)}
	for _, h := range cfg.groupHeaders {
		u.Groups = append(u.Groups, r.Header.Values(h)...)
	}
	for k, vs := range r.Header {
		for _, p := range cfg.extraHeaderPrefixes {
			if len(k) > len(p) && strings.EqualFold(k[:len(p)], p) {
				key, err := url.PathUnescape(strings.ToLower(k[len(p):]))
				if err != nil {
					key = strings.ToLower(k[len(p):])
				}
				if u.Extra == nil {
					u.Extra = map[string][]string{}
				}
				u.Extra[key] = append(u.Extra[key], vs...)
			}
		}
	}
	return u, true, nil
}

// strip removes every header the configuration names.
func (a *headerAuthenticator) strip(r *http.Request, cfg *headerConfig) {
	for _, hs := range [][]string{cfg.usernameHeaders, cfg.uidHeaders, cfg.groupHeaders} {
		for _, h := range hs {
			r.Header.Del(h)
		}
	}
	for k := range r.Header {
		for _, p := range cfg.extraHeaderPrefixes {
			if len(k) >= len(p) && strings.EqualFold(k[:len(p)], p) {
				r.Header.Del(k)
			}
		}
	}
}

func firstHeader(h http.Header, names []string) string {
	for _, n := range names {
		if v := strings.TrimSpace(h.Get(n)); v != "" {
			return v
		}
	}
	return ""
}
