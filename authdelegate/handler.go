package authdelegate

import (
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
)

// Handler guards next: every request is authenticated, then authorized;
// one whose credentials fail (or cannot be checked) gets 401, one that is
// not allowed (or whose authorization cannot be checked) gets 403. Only
// an allowed request reaches next: the handler fails closed.
func (d *Delegate) Handler(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		u, err := d.authn.authenticate(r)
		if err != nil {
			ev := d.log.Debug()
			if errors.Is(err, ErrReviewFailed) {
				ev = d.log.Warn() // the apiserver could not be asked: an outage or missing RBAC, not a bad client
			}
			ev.Err(err).Str("path", r.URL.Path).Msg("unable to authenticate the request; unauthorized")
			writeStatus(w, http.StatusUnauthorized, "Unauthorized", "Unauthorized")
			return
		}
		a := Attributes{User: u, Verb: verbOf(r.Method), Path: r.URL.Path}
		dec, reason, err := d.authz.authorize(r.Context(), a)
		if dec != Allow {
			if err != nil {
				d.log.Warn().Err(err).Str("user", u.Name).Str("path", a.Path).Msg("authorization could not be checked; forbidden")
			}
			msg := fmt.Sprintf("forbidden: User %q cannot %s path %q", u.Name, a.Verb, a.Path)
			if reason != "" {
				msg += ": " + reason
			}
			writeStatus(w, http.StatusForbidden, "Forbidden", msg)
			return
		}
		next.ServeHTTP(w, r)
	})
}

// writeStatus answers with a metav1.Status, as kube-controller-manager's
// filters do.
func writeStatus(w http.ResponseWriter, code int, reason, msg string) {
	body, _ := json.Marshal(map[string]any{
		"kind": "Status", "apiVersion": "v1", "metadata": map[string]any{},
		"status": "Failure", "message": msg, "reason": reason, "code": code,
	})
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("X-Content-Type-Options", "nosniff")
	w.WriteHeader(code)
	_, _ = w.Write(append(body, '\n'))
}
