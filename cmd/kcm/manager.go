package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"syscall"

	"github.com/spf13/pflag"

	"github.com/kcmlab/kcm/manager"
)

// runManager implements `kcm [flags]`: the controller manager, with
// kube-controller-manager's command line. It returns 0 after SIGTERM or
// SIGINT once the controllers drained and the lease was released, 1 when
// the manager could not start or lost its lease, 2 for a bad command line.
func runManager(args []string, stdout, stderr io.Writer) int {
	cmd := manager.NewControllerManagerCommand(manager.NewControllerDescriptors())
	if err := cmd.Parse(args); err != nil {
		if errors.Is(err, pflag.ErrHelp) {
			writeHelp(stdout, cmd)
			return 0
		}
		fmt.Fprintf(stderr, "kcm: %v\n", err)
		return 2
	}
	if cmd.Options.PrintVersion {
		fmt.Fprintln(stdout, manager.VersionString())
		return 0
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	log := manager.NewLogger(cmd.Options, stderr)
	err := manager.Run(ctx, manager.Config{Options: cmd.Options, Descriptors: cmd.Descriptors, Logger: log})
	if err != nil {
		log.Error().Err(err).Msg("kcm exits")
		return 1
	}
	log.Info().Msg("kcm stopped")
	return 0
}

// writeHelp prints the manager's flags, then the subcommands.
func writeHelp(w io.Writer, cmd *manager.Command) {
	cmd.WriteHelp(w)
	fmt.Fprintln(w)
	usage(w)
}

// runVersion implements `kcm version`.
func runVersion(args []string, stdout, stderr io.Writer) int {
	if len(args) > 0 {
		fmt.Fprintf(stderr, "kcm version: unexpected arguments %q\n", args)
		return 2
	}
	fmt.Fprintln(stdout, manager.VersionString())
	return 0
}
