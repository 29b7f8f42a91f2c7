package ctrl

import (
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/spf13/pflag"
)

// Options are the command-line choices the registry reads: which
// controllers run and how many workers each gets.
type Options struct {
	// Controllers is --controllers, as given (aliases allowed).
	Controllers []string
	// ConcurrentSyncs holds each --concurrent-<x>-syncs value, by
	// canonical controller name.
	ConcurrentSyncs map[string]int
	// Durations holds each controller duration flag's value, by flag
	// name ("namespace-sync-period").
	Durations map[string]time.Duration
}

// NewOptions returns kube-controller-manager's defaults for r: "*" and
// every concurrency and duration flag at its default.
func (r *Descriptors) NewOptions() *Options {
	o := &Options{Controllers: []string{"*"}, ConcurrentSyncs: map[string]int{}, Durations: map[string]time.Duration{}}
	for _, d := range r.list {
		if d.Concurrency != nil {
			o.ConcurrentSyncs[d.Name] = d.Concurrency.Default
		}
		for _, f := range d.Durations {
			o.Durations[f.Name] = f.Default
		}
	}
	return o
}

// AddFlags registers --controllers, every descriptor's
// --concurrent-<x>-syncs and its duration flags on fs, bound to o. The help of --controllers
// lists the known and the disabled-by-default controllers from the same
// table that Enabled reads, so --help can never disagree with it.
func (r *Descriptors) AddFlags(fs *pflag.FlagSet, o *Options) {
	fs.StringSliceVar(&o.Controllers, "controllers", o.Controllers, r.ControllersUsage())
	for _, d := range r.list {
		if c := d.Concurrency; c != nil {
			fs.Var(syncsValue{o: o, name: d.Name}, c.Name, c.Usage)
		}
		for _, f := range d.Durations {
			if o.Durations == nil {
				o.Durations = map[string]time.Duration{}
			}
			if _, set := o.Durations[f.Name]; !set {
				o.Durations[f.Name] = f.Default
			}
			fs.Var(durationValue{o: o, name: f.Name}, f.Name, f.Usage)
		}
	}
}

// ControllersUsage is the help text of --controllers.
func (r *Descriptors) ControllersUsage() string {
	return fmt.Sprintf("A list of controllers to enable. '*' enables all on-by-default controllers, "+
		"'foo' enables the controller named 'foo', '-foo' disables the controller named 'foo'.\n"+
		"All controllers: %s\nDisabled-by-default controllers: %s",
		strings.Join(r.KnownControllers(), ", "), strings.Join(r.ControllersDisabledByDefault(), ", "))
}

// Workers returns how many workers o gives the named controller: its
// --concurrent-<x>-syncs value, or DefaultWorkers without such a flag.
func (o *Options) Workers(name string) int {
	if n, ok := o.ConcurrentSyncs[name]; ok {
		return n
	}
	return DefaultWorkers
}

// Duration returns the value o gives the duration flag f: the parsed
// value, or f.Default when o has none.
func (o *Options) Duration(f DurationFlag) time.Duration {
	if v, ok := o.Durations[f.Name]; ok {
		return v
	}
	return f.Default
}

// syncsValue is the pflag.Value of one --concurrent-<x>-syncs flag,
// stored in Options.ConcurrentSyncs under the controller's name.
type syncsValue struct {
	o    *Options
	name string
}

func (s syncsValue) String() string { return strconv.Itoa(s.o.ConcurrentSyncs[s.name]) }
func (s syncsValue) Type() string   { return "int32" }

// Set accepts what kube-controller-manager's int32 flag accepts, less
// negative counts.
func (s syncsValue) Set(v string) error {
	n, err := strconv.ParseInt(v, 10, 32)
	if err != nil || n < 0 {
		return fmt.Errorf("%q is not a number of workers", v)
	}
	s.o.ConcurrentSyncs[s.name] = int(n)
	return nil
}

// durationValue is the pflag.Value of one controller duration flag,
// stored in Options.Durations under the flag's name. It prints and parses
// as pflag's DurationVar does (time.Duration's String and ParseDuration),
// so --help shows kube-controller-manager's default text ("5m0s").
type durationValue struct {
	o    *Options
	name string
}

func (d durationValue) String() string { return d.o.Durations[d.name].String() }
func (d durationValue) Type() string   { return "duration" }

// Set accepts what time.ParseDuration accepts, as kube-controller-manager's
// DurationVar does.
func (d durationValue) Set(v string) error {
	n, err := time.ParseDuration(v)
	if err != nil {
		return fmt.Errorf("%q is not a duration: %w", v, err)
	}
	d.o.Durations[d.name] = n
	return nil
}
