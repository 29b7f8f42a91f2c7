package difftest

import (
	"fmt"
	"sort"
	"strings"

	"github.com/kcmlab/kcm/testenv"
)

// Who wrote what. Both managers run as kubeadm runs
// kube-controller-manager, with --use-service-account-credentials: each
// controller's client authenticates as kube-system/<its ServiceAccount>,
// bound to the bootstrap role system:controller:<name>, and the manager's
// own identity only creates those accounts, asks for their tokens, holds
// the Lease and runs the controllers that kube-controller-manager builds
// with its root credentials. The clusters record every write in an audit
// log (testenv.Options.AuditWrites), and RunScenarios checks it after each
// run (CheckWrites): a controller that wrote as another identity — the
// manager's, or another controller's — fails the differential test that
// ran it, whichever scenario it was.

// saPrefix is the username prefix of the ServiceAccounts of kube-system.
const saPrefix = "system:serviceaccount:kube-system:"

// Identities is implemented by managers whose controllers act as their
// own ServiceAccounts: it says which of the manager's clients sent a
// request.
type Identities interface {
	// ClientOf names the client behind a User-Agent: the ServiceAccount
	// a controller's client authenticates as, or root for the manager's
	// own credentials (kcm's and kube-controller-manager's names for
	// them differ). ok is false for a request that is not the manager's.
	ClientOf(userAgent string) (account string, root bool, ok bool)
}

// rootWrite reports whether the manager's own identity may make this
// write: the controllers' ServiceAccounts and their tokens, the
// leader-election Lease (and kube-controller-manager's LeaderElection
// Event), the reviews of the secure port's delegated authentication and
// authorization, and the ServiceAccount token Secrets of the token
// controller (and its updates of their accounts' secrets lists), which
// both managers run with their root credentials (it must run before any
// ServiceAccount token can be trusted).
func rootWrite(e testenv.AuditEvent, tokenController bool) bool {
	r := e.ObjectRef
	switch {
	case r.Resource == "serviceaccounts" && r.Namespace == "kube-system" && e.Verb == "create":
		return r.Subresource == "" || r.Subresource == "token"
	case r.Resource == "leases" && r.Namespace == "kube-system",
		r.Resource == "events" && r.Namespace == "kube-system",
		r.Resource == "tokenreviews", r.Resource == "subjectaccessreviews":
		return true
	case r.Resource == "secrets":
		return tokenController
	case r.Resource == "serviceaccounts" && r.Subresource == "" && e.Verb == "update":
		return tokenController // a deleted token Secret's reference removed
	}
	return false
}

// CheckWrites returns a line for every write by one of ids' clients made
// under the wrong identity, and the successful writes by ServiceAccount
// in each of the namespaces (by name: a scenario's namespace, and the
// namespace itself, cluster-scoped).
func CheckWrites(events []testenv.AuditEvent, ids Identities, namespaces []string) (problems []string, writes map[string]map[string]int) {
	writes = map[string]map[string]int{}
	for _, ns := range namespaces {
		writes[ns] = map[string]int{}
	}
	for _, e := range events {
		account, root, ok := ids.ClientOf(e.UserAgent)
		if !ok {
			continue // the test's own requests, or another manager's
		}
		user, isSA := strings.CutPrefix(e.User.Username, saPrefix)
		r := e.ObjectRef
		switch {
		case root && isSA:
			problems = append(problems, fmt.Sprintf("the manager's own client %q wrote %s %s as %s", e.UserAgent,
				e.Verb, refText(e), e.User.Username))
		case root && !rootWrite(e, isTokenController(account)):
			problems = append(problems, fmt.Sprintf("the manager's own client %q wrote %s %s as %s: only a controller's ServiceAccount should",
				e.UserAgent, e.Verb, refText(e), e.User.Username))
		case !root && (!isSA || user != account):
			problems = append(problems, fmt.Sprintf("%q wrote %s %s as %q, want %s%s", e.UserAgent, e.Verb, refText(e),
				e.User.Username, saPrefix, account))
		case !root && e.ResponseStatus.Code < 300:
			ns := r.Namespace
			if r.Resource == "namespaces" && ns == "" {
				ns = r.Name
			}
			if w, ok := writes[ns]; ok {
				w[account]++
			}
		}
	}
	return problems, writes
}

// isTokenController reports whether a root client is the ServiceAccount
// token controller's (kcm's and kube-controller-manager's names).
func isTokenController(name string) bool {
	return name == "serviceaccount-token-controller" || name == "tokens-controller"
}

// refText is a write's object for a report: resource[/subresource]
// namespace/name.
func refText(e testenv.AuditEvent) string {
	r := e.ObjectRef
	res := r.Resource
	if r.Subresource != "" {
		res += "/" + r.Subresource
	}
	if r.Namespace != "" {
		return res + " " + r.Namespace + "/" + r.Name
	}
	return res + " " + r.Name
}

// WritesText renders writes by account, sorted, for a log line.
func WritesText(w map[string]int) string {
	keys := make([]string, 0, len(w))
	for k := range w {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	parts := make([]string, len(keys))
	for i, k := range keys {
		parts[i] = fmt.Sprintf("%s=%d", k, w[k])
	}
	return strings.Join(parts, " ")
}

// kcmRootClients are the clients of kcm that keep its own credentials
// under --use-service-account-credentials, by User-Agent name.
var kcmRootClients = map[string]bool{"kcm": true, "leader-election": true, "kcm-delegated-auth": true,
	"shared-informers": true, "serviceaccount-token-controller": true}

// ClientOf implements Identities: kcm's User-Agent is
// "kcm/<version> (<client>)", the client being the controller's
// ServiceAccount name (ctrl.UserAgent).
func (m *InProcess) ClientOf(userAgent string) (string, bool, bool) {
	if !strings.HasPrefix(userAgent, "kcm/") || !strings.HasSuffix(userAgent, ")") {
		return "", false, false
	}
	i := strings.LastIndex(userAgent, " (") // a version may hold parentheses: "kcm/(devel) (x)"
	if i < 0 {
		return "", false, false
	}
	name := userAgent[i+2 : len(userAgent)-1]
	return name, kcmRootClients[name], true
}

// ClientOf implements Identities: kube-controller-manager's User-Agent is
// "kube-controller-manager/<version> (<os/arch>) kubernetes/<commit>/<client>"
// (client-go's rest.AddUserAgent), the client being the name its root
// client builder was given or, for a controller's client from the
// dynamic client builder of --use-service-account-credentials, the
// ServiceAccount's username, system:serviceaccount:kube-system:<name>.
// So a client named without that prefix ("kube-controller-manager",
// "leader-election", "shared-informers", "tokens-controller") keeps the
// root credentials.
func (m *KubeControllerManager) ClientOf(userAgent string) (string, bool, bool) {
	if !strings.HasPrefix(userAgent, "kube-controller-manager/") {
		return "", false, false
	}
	name := userAgent[strings.LastIndex(userAgent, "/")+1:]
	if account, ok := strings.CutPrefix(name, saPrefix); ok {
		return account, false, true
	}
	return name, true, true
}
