package manager

import (
	"fmt"
	"net/http"
	"strings"

	"github.com/rs/zerolog"
)

// HealthCheck is one named check of /healthz, /readyz or /livez
// (k8s.io/apiserver's healthz.HealthChecker). Check must be quick and safe
// to call from many goroutines.
type HealthCheck struct {
	Name  string
	Check func() error
}

// NamedCheck returns a HealthCheck (healthz.NamedCheck).
func NamedCheck(name string, check func() error) HealthCheck {
	return HealthCheck{Name: name, Check: check}
}

// InstallHealthChecks serves the checks at path (e.g. "/healthz") the way
// Kubernetes components do:
//
//   - path runs every check. All pass: 200 "ok" (with ?verbose, one
//     "[+]<name> ok" line per check, then "<path> check passed").
//     Any fails: 500 with the "[+]"/"[-]<name> failed: <reason>" lines and
//     "<path> check failed". ?exclude=<name> skips a check (it is listed
//     as "[+]<name> excluded: ok").
//   - path/<name> runs one check: 200 "ok" or 500 "internal server error:
//     <reason>".
//
// Unlike kube-apiserver, kcm shows the failure reason in the response, not
// "reason withheld": its reasons hold no secrets (lease ages, controller
// errors), and an operator reading /healthz wants them. Failures are also
// logged.
func InstallHealthChecks(mux *http.ServeMux, path string, log zerolog.Logger, checks ...HealthCheck) {
	name := strings.TrimPrefix(path, "/")
	mux.Handle(path, healthHandler(name, log, checks))
	for _, c := range checks {
		mux.Handle(path+"/"+c.Name, checkHandler(c))
	}
}

func healthHandler(name string, log zerolog.Logger, checks []HealthCheck) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		q := r.URL.Query()
		excluded := map[string]bool{}
		for _, e := range q["exclude"] {
			excluded[e] = true
		}
		var out strings.Builder
		failed := false
		for _, c := range checks {
			if excluded[c.Name] {
				fmt.Fprintf(&out, "[+]%s excluded: ok\n", c.Name)
				continue
			}
			if err := c.Check(); err != nil {
				failed = true
				fmt.Fprintf(&out, "[-]%s failed: %v\n", c.Name, err)
				log.Warn().Err(err).Str("check", c.Name).Str("endpoint", name).Msg("health check failed")
				continue
			}
			fmt.Fprintf(&out, "[+]%s ok\n", c.Name)
		}
		w.Header().Set("Content-Type", "text/plain; charset=utf-8")
		w.Header().Set("X-Content-Type-Options", "nosniff")
		if failed {
			w.WriteHeader(http.StatusInternalServerError)
			fmt.Fprintf(w, "%s%s check failed\n", out.String(), name)
			return
		}
		if _, verbose := q["verbose"]; verbose {
			fmt.Fprintf(w, "%s%s check passed\n", out.String(), name)
			return
		}
		fmt.Fprint(w, "ok")
	})
}

func checkHandler(c HealthCheck) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "text/plain; charset=utf-8")
		w.Header().Set("X-Content-Type-Options", "nosniff")
		if err := c.Check(); err != nil {
			w.WriteHeader(http.StatusInternalServerError)
			fmt.Fprintf(w, "internal server error: %v\n", err)
			return
		}
		fmt.Fprint(w, "ok")
	})
}
