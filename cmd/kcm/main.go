// Command kcm is the kcm controller manager and its tools.
//
//	kcm dev    run a local etcd + kube-apiserver built from the Go module proxy, a demo and a trace
//	kcm trace  follow each event of one resource through the informer pipeline
//
// Each subcommand lives in its own file and registers itself in commands.
package main

import (
	"fmt"
	"io"
	"os"
	"sort"
)

// command is one subcommand: run gets the arguments after its name and the
// output streams, and returns the process exit code.
type command struct {
	summary string
	run     func(args []string, stdout, stderr io.Writer) int
}

// commands maps subcommand names to their implementations.
var commands = map[string]command{
	"dev":   {summary: "run a local etcd + kube-apiserver built from the Go module proxy, a demo and a trace", run: runDev},
	"trace": {summary: "print each event of a resource on its way through the informer", run: runTrace},
}

func main() { os.Exit(dispatch(os.Args[1:], os.Stdout, os.Stderr)) }

// dispatch runs the subcommand named by args[0]. Unknown or missing
// commands print the usage to stderr and return 2.
func dispatch(args []string, stdout, stderr io.Writer) int {
	if len(args) == 0 {
		usage(stderr)
		return 2
	}
	switch args[0] {
	case "help", "-h", "--help":
		usage(stderr)
		return 0
	}
	cmd, ok := commands[args[0]]
	if !ok {
		fmt.Fprintf(stderr, "kcm: unknown command %q\n\n", args[0])
		usage(stderr)
		return 2
	}
	return cmd.run(args[1:], stdout, stderr)
}

func usage(w io.Writer) {
	fmt.Fprintln(w, "usage: kcm <command> [flags]\n\ncommands:")
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
