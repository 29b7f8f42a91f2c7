package manager

import (
	"context"
	"errors"
	"net"
	"strings"
	"testing"

	"github.com/rs/zerolog"

	"github.com/kcmlab/kcm/ctrl"
	"github.com/kcmlab/kcm/kube/rest"
)

var errBuild = errors.New("constructor failed")

// TestRunEndsWhenAControllerCannotBeBuilt: kube-controller-manager exits
// when a controller fails to start; Run returns the constructor's error,
// naming the controller, having started no informer (no request is made:
// the apiserver address answers nothing).
func TestRunEndsWhenAControllerCannotBeBuilt(t *testing.T) {
	d, err := ctrl.NewDescriptors(&ctrl.ControllerDescriptor{Name: "broken-controller",
		Constructor: func(context.Context, ctrl.ControllerContext, string) (ctrl.Controller, error) { return nil, errBuild }})
	if err != nil {
		t.Fatal(err)
	}
	o := NewOptions(d)
	o.LeaderElection.LeaderElect = false
	o.Serving.SecurePort = 0
	err = Run(context.Background(), Config{Options: o, Descriptors: d, REST: &rest.Config{Host: "https://127.0.0.1:1"},
		Logger: zerolog.Nop()})
	if !errors.Is(err, errBuild) || err.Error() != "starting broken-controller: constructor failed" {
		t.Fatalf("Run = %v, want the constructor's error naming the controller", err)
	}
}

// TestRunRejectsInvalidOptions: Run validates even options it did not
// parse, and a taken port fails before anything runs.
func TestRunRejectsInvalidOptions(t *testing.T) {
	o := NewOptions(NewControllerDescriptors())
	o.LeaderElection.ResourceLock = "endpoints"
	if err := Run(context.Background(), Config{Options: o}); !errors.Is(err, ErrInvalidOptions) {
		t.Fatalf("Run = %v, want ErrInvalidOptions", err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	o = NewOptions(NewControllerDescriptors())
	o.Serving.BindAddress, o.Serving.SecurePort = "127.0.0.1", ln.Addr().(*net.TCPAddr).Port
	err = Run(context.Background(), Config{Options: o, REST: &rest.Config{Host: "https://127.0.0.1:1"}, Identity: "me"})
	var op *net.OpError
	if !errors.As(err, &op) || !strings.HasPrefix(err.Error(), "--secure-port: ") {
		t.Fatalf("Run on a taken port = %v, want the --secure-port listen error", err)
	}
}
