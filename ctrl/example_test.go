package ctrl_test

import (
	"context"
	"errors"
	"fmt"

	"github.com/rs/zerolog"

	"github.com/kcmlab/kcm/ctrl"
)

func constructor(context.Context, ctrl.ControllerContext, string) (ctrl.Controller, error) {
	return nil, nil
}

// The registry is one table; --controllers resolves against it.
func ExampleDescriptors_Enabled() {
	r, _ := ctrl.NewDescriptors(
		&ctrl.ControllerDescriptor{Name: "serviceaccount-controller", Aliases: []string{"serviceaccount"}, Constructor: constructor},
		&ctrl.ControllerDescriptor{Name: "replicaset-controller", Aliases: []string{"replicaset"}, Constructor: constructor},
		&ctrl.ControllerDescriptor{Name: "bootstrap-signer-controller", DisabledByDefault: true, Constructor: constructor},
	)
	for _, flag := range [][]string{{"*"}, {"*", "-replicaset"}, {"-replicaset", "replicaset", "*"}, {"replicaset", "bootstrap-signer-controller"}, {"*", "nosuch"}} {
		on, err := r.Enabled(flag)
		if err != nil {
			fmt.Println(flag, "→", err)
			continue
		}
		var names []string
		for _, d := range on {
			names = append(names, d.Name)
		}
		fmt.Println(flag, "→", names)
	}
	// Output:
	// [*] → [serviceaccount-controller replicaset-controller]
	// [* -replicaset] → [serviceaccount-controller]
	// [-replicaset replicaset *] → [serviceaccount-controller]
	// [replicaset bootstrap-signer-controller] → [replicaset-controller bootstrap-signer-controller]
	// [* nosuch] → --controllers: "nosuch": not in the list of known controllers: bootstrap-signer-controller, replicaset-controller, serviceaccount-controller
}

// A controller is its sync function; the loop retries a failure with
// backoff and stops when its context ends.
func ExampleLoop() {
	ctx, cancel := context.WithCancel(context.Background())
	attempts := 0
	loop := ctrl.NewLoop("example-controller", func(_ context.Context, key string) (ctrl.Result, error) {
		attempts++
		if attempts == 1 {
			fmt.Println("sync", key, "fails")
			return ctrl.Result{}, errors.New("conflict")
		}
		fmt.Println("sync", key, "succeeds")
		cancel()
		return ctrl.Result{}, nil
	}, ctrl.LoopOptions{Logger: zerolog.Nop()})
	loop.Queue().Add("default/web")
	fmt.Println("Run:", loop.Run(ctx, 1))
	// Output:
	// sync default/web fails
	// sync default/web succeeds
	// Run: <nil>
}

// Expectations keep a controller from acting on a cache that has not seen
// its own writes yet.
func ExampleControllerExpectations() {
	e := ctrl.NewControllerExpectations(nil, zerolog.Nop())
	const rs = "default/web-5d4f"
	fmt.Println("new:", e.SatisfiedExpectations(rs))
	e.ExpectCreations(rs, 2) // about to create 2 pods
	e.CreationObserved(rs)   // the pod handler saw one
	fmt.Println("one of two seen:", e.SatisfiedExpectations(rs))
	e.LowerExpectations(rs, 1, 0) // the other create failed: it will never be seen
	fmt.Println("after the failed create:", e.SatisfiedExpectations(rs))
	// Output:
	// new: true
	// one of two seen: false
	// after the failed create: true
}
