// Command kcm is the kcm controller manager and its tools.
//
//	kcm [flags]  the controller manager, with kube-controller-manager's flags (package manager)
//	kcm dev      run a local etcd + kube-apiserver built from the Go module proxy, and the manager on it
//	kcm trace    follow each event of one resource through the informer pipeline
//	kcm version  print the version
//
// main only dispatches: the manager is package manager, and each
// subcommand lives in its own file and registers itself in commands.
package main

import (
	"fmt"
	"io"
	"os"
	"sort"
	"strings"
)

// command is one subcommand: run gets the arguments after its name and the
// output streams, and returns the process exit code.
type command struct {
	summary string
	run     func(args []string, stdout, stderr io.Writer) int
}

// commands maps subcommand names to their implementations.
var commands = map[string]command{
	"dev":     {summary: "run a local etcd + kube-apiserver built from the Go module proxy, and the manager on it", run: runDev},
	"trace":   {summary: "print each event of a resource on its way through the informer", run: runTrace},
	"version": {summary: "print kcm's version", run: runVersion},
}

func main() { os.Exit(dispatch(os.Args[1:], os.Stdout, os.Stderr)) }

// dispatch runs the subcommand named by args[0]. No arguments, or a
// first argument that is a flag, run the manager (so kube-controller-
// manager's command lines work as they are); "help" is --help. Unknown
// commands print the usage to stderr and return 2.
func dispatch(args []string, stdout, stderr io.Writer) int {
	if len(args) == 0 || strings.HasPrefix(args[0], "-") {
		return runManager(args, stdout, stderr)
	}
	if args[0] == "help" {
		return runManager([]string{"--help"}, stdout, stderr)
	}
	cmd, ok := commands[args[0]]
	if !ok {
		fmt.Fprintf(stderr, "kcm: unknown command %q\n\n", args[0])
		usage(stderr)
		return 2
	}
	return cmd.run(args[1:], stdout, stderr)
}

// usage lists the subcommands.
func usage(w io.Writer) {
	fmt.Fprintln(w, "Commands (kcm <command> [flags]; without one, kcm runs the manager):")
	names := make([]string, 0, len(commands))
	for name := range commands {
		names = append(names, name)
	}
	sort.Strings(names)
	for _, name := range names {
		fmt.Fprintf(w, "  %-8s %s\n", name, commands[name].summary)
	}
	fmt.Fprintln(w, "\nRun 'kcm <command> --help' for the flags of a command.")
}
