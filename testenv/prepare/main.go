// Command prepare builds (once, then from cache) the etcd and kube-apiserver
// binaries the integration tests run, printing progress. `make test` runs it
// before `go test`, because go test hides a package's output until the
// package finishes and the first build takes minutes.
package main

import (
	"context"
	"fmt"
	"os"
	"os/signal"
	"syscall"

	"github.com/rs/zerolog"

	"github.com/kcmlab/kcm/testenv"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	bins, err := testenv.EnsureBinaries(ctx, os.Stderr, zerolog.Nop())
	if err != nil {
		fmt.Fprintln(os.Stderr, "prepare test cluster:", err)
		os.Exit(1)
	}
	fmt.Fprintf(os.Stderr, "test cluster binaries ready: %+v\n", bins)
}
