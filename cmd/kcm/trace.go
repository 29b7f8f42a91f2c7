package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"syscall"
	"time"

	"github.com/rs/zerolog"
	"github.com/spf13/pflag"

	"github.com/kcmlab/kcm/kube/clientcmd"
	"github.com/kcmlab/kcm/kube/rest"
	"github.com/kcmlab/kcm/reflector"
)

// traceFlags are the flags of `kcm trace`.
type traceFlags struct {
	namespace, kubeconfig, context, transport string
	// contentType is --kube-api-content-type, the manager's flag: what
	// the informer's reads ask for (rest.Config.ContentType).
	contentType                     string
	watchList, showInitial, verbose bool
}

// runTrace implements `kcm trace <resource>`: one informer against the
// cluster of the current kubeconfig, with every event printed stage by
// stage until SIGINT or SIGTERM.
func runTrace(args []string, stdout, stderr io.Writer) int {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	return runTraceContext(ctx, args, stdout, stderr)
}

// runTraceContext is runTrace until ctx ends, and returns the exit code.
func runTraceContext(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	fs, f := traceFlagSet(stderr)
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, pflag.ErrHelp) {
			return 0
		}
		fmt.Fprintf(stderr, "kcm trace: %v\n", err)
		return 2
	}
	if fs.NArg() != 1 {
		fmt.Fprintf(stderr, "kcm trace: want exactly one resource, got %d arguments\n", fs.NArg())
		fs.Usage()
		return 2
	}
	transport, err := parseTransport(f.transport)
	if err == nil {
		err = checkContentType(f.contentType)
	}
	if err != nil {
		fmt.Fprintf(stderr, "kcm trace: %v\n", err)
		return 2
	}
	if err := trace(ctx, fs.Arg(0), *f, transport, stdout, stderr); err != nil {
		// The error may quote the server (a Status message): escaped.
		fmt.Fprintf(stderr, "kcm trace: %s\n", escapeTerminal(err.Error()))
		return 1
	}
	return 0
}

// traceFlagSet returns the flags of `kcm trace`, to be parsed into f.
func traceFlagSet(stderr io.Writer) (fs *pflag.FlagSet, f *traceFlags) {
	fs = pflag.NewFlagSet("kcm trace", pflag.ContinueOnError)
	fs.SetOutput(stderr)
	f = &traceFlags{}
	fs.StringVarP(&f.namespace, "namespace", "n", "", "trace only this namespace (default: all namespaces)")
	fs.StringVar(&f.kubeconfig, "kubeconfig", "", "kubeconfig file (default: $KUBECONFIG, then ~/.kube/config)")
	fs.StringVar(&f.context, "context", "", "kubeconfig context (default: current-context)")
	fs.StringVar(&f.transport, "transport", "chunked", "watch transport: chunked or websocket")
	fs.StringVar(&f.contentType, "kube-api-content-type", rest.ContentTypeProtobuf,
		"what reads ask for, as the manager's flag: "+rest.ContentTypeProtobuf+" (built-in kinds as protobuf, "+
			"JSON where a resource has none) or "+rest.ContentTypeJSON)
	// The default is the reflector's own (its zero Options), which every
	// informer.Factory uses too.
	fs.BoolVar(&f.watchList, "watch-list", reflector.Options{}.Initial() == reflector.ListStream,
		"stream the initial state over the watch (WatchList); false: LIST then WATCH")
	fs.BoolVar(&f.showInitial, "show-initial", false, "show the initial state object by object instead of a summary")
	fs.BoolVarP(&f.verbose, "verbose", "v", false, "log the informer's own messages to stderr")
	fs.Usage = func() {
		fmt.Fprintf(stderr, "usage: kcm trace <resource> [flags]\n\n"+
			"Runs one informer on <resource> (pods, po, rs, deploy, ns, cm, sa, lease, or any name discovery finds:\n"+
			"plural, singular or plural.group) and prints each event's path through reflector, deltafifo, store and\n"+
			"processor. Ctrl-C stops it.\n\nflags:\n")
		fs.PrintDefaults()
	}
	return fs, f
}

// reflectorOptions are the reflector settings the flags ask for.
func (f traceFlags) reflectorOptions() reflector.Options {
	if f.watchList {
		return reflector.Options{InitialList: reflector.ListStream}
	}
	return reflector.Options{DisableWatchList: true}
}

// trace connects, resolves the resource and runs the tracer until ctx ends.
func trace(ctx context.Context, resource string, f traceFlags, transport rest.WatchTransport, stdout, stderr io.Writer) error {
	log := zerolog.Nop()
	if f.verbose {
		log = zerolog.New(zerolog.ConsoleWriter{Out: stderr, TimeFormat: time.TimeOnly}).With().Timestamp().Logger()
	}
	cfg, err := clientcmd.BuildConfig(clientcmd.LoadOptions{ExplicitPath: f.kubeconfig, Context: f.context, Logger: log})
	if err != nil {
		return err
	}
	cfg.ContentType = f.contentType
	c, err := rest.NewClient(cfg, rest.WithLogger(log))
	if err != nil {
		return err
	}
	anonymous := cfg.Credentials == nil && len(cfg.TLS.CertData) == 0
	res, err := resolveResource(ctx, c, resource)
	if err != nil {
		return err
	}
	if res.Namespaced && f.namespace != "" {
		if err := checkNamespace(ctx, c, f.namespace, anonymous); err != nil {
			return err
		}
	}
	t, err := newTracer(c, traceOptions{Resource: res, Namespace: f.namespace, Transport: transport,
		Reflector: f.reflectorOptions(), ShowInitial: f.showInitial, Logger: log, Anonymous: anonymous}, stdout)
	if err != nil {
		return err
	}
	return ignoreCanceled(t.Run(ctx))
}

// parseTransport reads --transport.
func parseTransport(s string) (rest.WatchTransport, error) {
	switch s {
	case "chunked", "":
		return rest.Chunked, nil
	case "websocket", "ws":
		return rest.WebSocket, nil
	}
	return 0, fmt.Errorf("--transport %q: want chunked or websocket", s)
}

// checkContentType reads --kube-api-content-type: the two values the
// manager's flag takes.
func checkContentType(s string) error {
	if s != rest.ContentTypeJSON && s != rest.ContentTypeProtobuf {
		return fmt.Errorf("--kube-api-content-type %q: want %s or %s", s, rest.ContentTypeJSON, rest.ContentTypeProtobuf)
	}
	return nil
}

// ignoreCanceled treats the end of the context, the normal way to stop, as
// success.
func ignoreCanceled(err error) error {
	if errors.Is(err, context.Canceled) {
		return nil
	}
	return err
}
