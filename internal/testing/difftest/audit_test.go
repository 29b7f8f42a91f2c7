package difftest

import (
	"fmt"
	"strings"
	"testing"

	"github.com/kcmlab/kcm/testenv"
)

// event is an audit event for the tables below.
func event(ua, user, verb, resource, sub, ns, name string, code int) testenv.AuditEvent {
	var e testenv.AuditEvent
	e.UserAgent, e.User.Username, e.Verb = ua, user, verb
	e.ObjectRef.Resource, e.ObjectRef.Subresource, e.ObjectRef.Namespace, e.ObjectRef.Name = resource, sub, ns, name
	e.ResponseStatus.Code = code
	return e
}

const (
	kcmUA   = "kcm/(devel) (%s)" // a version with parentheses, as a test binary's
	kubeUA  = "kube-controller-manager/v1.37.2 (linux/amd64) kubernetes/abcdef0/%s"
	kubeSA  = "kube-controller-manager/v1.37.2 (linux/amd64) kubernetes/abcdef0/" + saPrefix + "%s" // the dynamic builder's
	admin   = "testenv-admin"
	rsSA    = saPrefix + "replicaset-controller"
	tokenSA = saPrefix + "serviceaccount-token-controller"
)

// TestCheckWrites: under --use-service-account-credentials each
// controller writes as kube-system/<its ServiceAccount> (the identity
// kube-controller-manager's client builder gives it), and the manager's
// own identity makes only its bootstrap writes.
func TestCheckWrites(t *testing.T) {
	kcm, kube := &InProcess{}, &KubeControllerManager{}
	for _, tc := range []struct {
		name    string
		ids     Identities
		e       testenv.AuditEvent
		problem string // a substring of the one problem, "" for none
	}{
		{"controller as its account", kcm, event(fmt.Sprintf(kcmUA, "replicaset-controller"), rsSA, "create", "pods", "", "s1", "p", 201), ""},
		{"controller as the manager", kcm, event(fmt.Sprintf(kcmUA, "replicaset-controller"), admin, "create", "pods", "", "s1", "p", 201),
			`as "testenv-admin", want system:serviceaccount:kube-system:replicaset-controller`},
		{"controller as another account", kcm, event(fmt.Sprintf(kcmUA, "deployment-controller"), rsSA, "create", "replicasets", "", "s1", "r", 201),
			"want system:serviceaccount:kube-system:deployment-controller"},
		{"a forbidden write counts too", kcm, event(fmt.Sprintf(kcmUA, "deployment-controller"), admin, "update", "deployments", "status", "s1", "d", 403),
			"deployments/status s1/d"},
		{"root: the Lease", kcm, event(fmt.Sprintf(kcmUA, "leader-election"), admin, "update", "leases", "", "kube-system", "kcm", 200), ""},
		{"root: an account", kcm, event(fmt.Sprintf(kcmUA, "kcm"), admin, "create", "serviceaccounts", "", "kube-system", "replicaset-controller", 201), ""},
		{"root: a token", kcm, event(fmt.Sprintf(kcmUA, "kcm"), admin, "create", "serviceaccounts", "token", "kube-system", "replicaset-controller", 201), ""},
		{"root: a review", kcm, event(fmt.Sprintf(kcmUA, "kcm-delegated-auth"), admin, "create", "tokenreviews", "", "", "", 201), ""},
		{"root: the token controller's Secret", kcm, event(fmt.Sprintf(kcmUA, "serviceaccount-token-controller"), admin, "create", "secrets", "", "s1", "t", 201), ""},
		{"root: the token controller's account update", kcm, event(fmt.Sprintf(kcmUA, "serviceaccount-token-controller"), admin, "update", "serviceaccounts", "", "s1", "deployer", 200), ""},
		{"root: another client's account update", kcm, event(fmt.Sprintf(kcmUA, "kcm"), admin, "update", "serviceaccounts", "", "s1", "deployer", 200),
			"only a controller's ServiceAccount should"},
		{"root: another client's Secret", kcm, event(fmt.Sprintf(kcmUA, "kcm"), admin, "create", "secrets", "", "s1", "t", 201),
			"only a controller's ServiceAccount should"},
		{"root: an account outside kube-system", kcm, event(fmt.Sprintf(kcmUA, "kcm"), admin, "create", "serviceaccounts", "", "s1", "default", 201),
			"only a controller's ServiceAccount should"},
		{"root: a pod", kcm, event(fmt.Sprintf(kcmUA, "shared-informers"), admin, "create", "pods", "", "s1", "p", 201),
			"only a controller's ServiceAccount should"},
		{"root as an account", kcm, event(fmt.Sprintf(kcmUA, "serviceaccount-token-controller"), tokenSA, "create", "secrets", "", "s1", "t", 201),
			"the manager's own client"},
		{"the harness", kcm, event(harnessUserAgent, admin, "create", "pods", "", "s1", "p", 201), ""},
		{"rest's default User-Agent", kcm, event("kcm/v0 (linux) kcm", admin, "create", "pods", "", "s1", "p", 201), ""},
		{"the other manager", kcm, event(fmt.Sprintf(kubeUA, "replicaset-controller"), admin, "create", "pods", "", "s1", "p", 201), ""},
		{"reference: controller as its account", kube, event(fmt.Sprintf(kubeSA, "replicaset-controller"), rsSA, "create", "pods", "", "s1", "p", 201), ""},
		{"reference: controller as the manager", kube, event(fmt.Sprintf(kubeSA, "replicaset-controller"), admin, "create", "pods", "", "s1", "p", 201),
			"want system:serviceaccount:kube-system:replicaset-controller"},
		{"reference: controller as another account", kube, event(fmt.Sprintf(kubeSA, "deployment-controller"), rsSA, "create", "pods", "", "s1", "p", 201),
			"want system:serviceaccount:kube-system:deployment-controller"},
		{"reference: a root client's write", kube, event(fmt.Sprintf(kubeUA, "replicaset-controller"), admin, "create", "pods", "", "s1", "p", 201),
			"only a controller's ServiceAccount should"},
		{"reference: its tokens controller", kube, event(fmt.Sprintf(kubeUA, "tokens-controller"), admin, "create", "secrets", "", "s1", "t", 201), ""},
		{"reference: its leader-election Event", kube, event(fmt.Sprintf(kubeUA, "leader-election"), admin, "create", "events", "", "kube-system", "e", 201), ""},
		{"reference: kcm's requests", kube, event(fmt.Sprintf(kcmUA, "replicaset-controller"), admin, "create", "pods", "", "s1", "p", 201), ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			problems, _ := CheckWrites([]testenv.AuditEvent{tc.e}, tc.ids, nil)
			switch {
			case tc.problem == "" && len(problems) > 0:
				t.Errorf("problems %q, want none", problems)
			case tc.problem != "" && (len(problems) != 1 || !strings.Contains(problems[0], tc.problem)):
				t.Errorf("problems %q, want one containing %q", problems, tc.problem)
			}
		})
	}
}

// TestCheckWritesCounts counts successful writes by account in the named
// namespaces, the namespace itself included, and nothing else.
func TestCheckWritesCounts(t *testing.T) {
	events := []testenv.AuditEvent{
		event(fmt.Sprintf(kcmUA, "replicaset-controller"), rsSA, "create", "pods", "", "s1", "a", 201),
		event(fmt.Sprintf(kcmUA, "replicaset-controller"), rsSA, "create", "pods", "", "s1", "b", 201),
		event(fmt.Sprintf(kcmUA, "replicaset-controller"), rsSA, "create", "pods", "", "s1", "c", 409), // not counted
		event(fmt.Sprintf(kcmUA, "replicaset-controller"), rsSA, "create", "pods", "", "s2", "d", 201), // not asked for
		event(fmt.Sprintf(kcmUA, "namespace-controller"), saPrefix+"namespace-controller", "update", "namespaces", "finalize", "", "s1", 200),
		event(fmt.Sprintf(kcmUA, "leader-election"), admin, "update", "leases", "", "kube-system", "kcm", 200), // root: not counted
	}
	problems, writes := CheckWrites(events, &InProcess{}, []string{"s1"})
	if len(problems) > 0 {
		t.Fatal(problems)
	}
	if got, want := WritesText(writes["s1"]), "namespace-controller=1 replicaset-controller=2"; got != want {
		t.Errorf("writes in s1: %q, want %q", got, want)
	}
	if _, ok := writes["s2"]; ok {
		t.Errorf("writes counted for a namespace not asked for: %v", writes)
	}
}

func ExampleWritesText() {
	fmt.Println(WritesText(map[string]int{"replicaset-controller": 12, "deployment-controller": 4}))
	// Output: deployment-controller=4 replicaset-controller=12
}
