package manager_test

import (
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"

	"github.com/rs/zerolog"

	"github.com/kcmlab/kcm/manager"
)

// A kube-controller-manager command line parses unchanged, as far as kcm
// has its flags; one kcm lacks is refused by name.
func ExampleNewControllerManagerCommand() {
	cmd := manager.NewControllerManagerCommand(manager.NewControllerDescriptors())
	err := cmd.Parse([]string{"--kubeconfig=/etc/kubernetes/controller-manager.conf",
		"--leader-elect=true", "--controllers=*,-serviceaccount", "--bind-address=127.0.0.1"})
	o := cmd.Options
	fmt.Println(err, o.Kubeconfig, o.LeaderElection.ResourceNamespace+"/"+o.LeaderElection.ResourceName,
		o.Controllers.Controllers, o.Serving.SecurePort)

	cmd = manager.NewControllerManagerCommand(manager.NewControllerDescriptors())
	err = cmd.Parse([]string{"--allocate-node-cidrs"})
	fmt.Println(errors.Is(err, manager.ErrUnsupportedFlag), err)
	// Output:
	// <nil> /etc/kubernetes/controller-manager.conf kube-system/kube-controller-manager [* -serviceaccount] 10257
	// true kcm does not support kube-controller-manager's flag --allocate-node-cidrs; see kcm --help
}

// /healthz?verbose lists every check; a failing one makes it a 500.
func ExampleInstallHealthChecks() {
	mux := http.NewServeMux()
	manager.InstallHealthChecks(mux, "/healthz", zerolog.Nop(),
		manager.NamedCheck("leaderElection", func() error { return nil }),
		manager.NamedCheck("serviceaccount-controller", func() error { return errors.New("not running") }))
	rec := httptest.NewRecorder()
	mux.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, "/healthz?verbose", nil))
	fmt.Print(rec.Code, "\n", rec.Body)
	// Output:
	// 500
	// [+]leaderElection ok
	// [-]serviceaccount-controller failed: not running
	// healthz check failed
}
