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
	// Flags holds the value of each controller's own flag
	// (ControllerDescriptor.Flags), by flag name.
	Flags map[string]pflag.Value
}

// NewOptions returns kube-controller-manager's defaults for r: "*" and
// every concurrency flag at its default.
func (r *Descriptors) NewOptions() *Options {
	o := &Options{Controllers: []string{"*"}, ConcurrentSyncs: map[string]int{}, Flags: map[string]pflag.Value{}}
	for _, d := range r.list {
		if d.Concurrency != nil {
			o.ConcurrentSyncs[d.Name] = d.Concurrency.Default
		}
		for _, f := range d.Flags {
			if _, dup := o.Flags[f.Name]; !dup { // declared by an earlier descriptor too
				o.Flags[f.Name] = f.NewValue()
			}
		}
	}
	return o
}

// AddFlags registers --controllers, every descriptor's
// --concurrent-<x>-syncs and its other flags on fs, bound to o. The help of --controllers
// lists the known and the disabled-by-default controllers from the same
// table that Enabled reads, so --help can never disagree with it. A flag
// that several descriptors declare (--root-ca-file, read by
// root-ca-cert-publisher and serviceaccount-token-controller, one option
// of kube-controller-manager) is registered once, by the first of them,
// and every reader sees its one value; NewDescriptors has checked that the
// declarations agree.
func (r *Descriptors) AddFlags(fs *pflag.FlagSet, o *Options) {
	fs.StringSliceVar(&o.Controllers, "controllers", o.Controllers, r.ControllersUsage())
	registered := map[string]bool{}
	for _, d := range r.list {
		if c := d.Concurrency; c != nil {
			fs.Var(syncsValue{o: o, name: d.Name, flag: c}, c.Name, c.Usage)
		}
		for _, f := range d.Flags {
			if registered[f.Name] {
				continue
			}
			registered[f.Name] = true
			v, ok := o.Flags[f.Name]
			if !ok { // Options made by hand rather than by NewOptions
				v = f.NewValue()
				if o.Flags == nil {
					o.Flags = map[string]pflag.Value{}
				}
				o.Flags[f.Name] = v
			}
			fl := fs.VarPF(v, f.Name, "", f.Usage)
			if b, ok := v.(interface{ IsBoolFlag() bool }); ok && b.IsBoolFlag() {
				fl.NoOptDefVal = "true"
			}
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

// syncsValue is the pflag.Value of one --concurrent-<x>-syncs flag,
// stored in Options.ConcurrentSyncs under the controller's name.
type syncsValue struct {
	o    *Options
	name string
	flag *ConcurrencyFlag
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
	// kube-controller-manager's wording, from its options validation.
	if f := s.flag; f != nil && f.Min > 0 && int(n) < f.Min {
		return fmt.Errorf("%s must not be less than %d, but got %d", f.Name, f.Min, n)
	}
	if f := s.flag; f != nil && f.Max > 0 && int(n) > f.Max {
		return fmt.Errorf("%s must not be more than %d, but got %d", f.Name, f.Max, n)
	}
	s.o.ConcurrentSyncs[s.name] = int(n)
	return nil
}

// ControllerFlag is one of a controller's own flags besides its
// concurrency: a name (without dashes, as kube-controller-manager spells
// it), its help text and a maker of its value at the default. Each
// Options gets a value of its own, so two command lines never share one.
// BoolFlag, DurationFlag and Int32Flag make the kinds kube-controller-manager's
// controllers have.
type ControllerFlag struct {
	Name  string
	Usage string
	// NewValue returns the flag's value set to its default.
	NewValue func() pflag.Value
}

// BoolFlag is a controller's boolean flag: --name alone means true.
func BoolFlag(name string, def bool, usage string) ControllerFlag {
	return ControllerFlag{Name: name, Usage: usage, NewValue: func() pflag.Value { v := boolValue(def); return &v }}
}

// DurationFlag is a controller's duration flag ("5m0s").
func DurationFlag(name string, def time.Duration, usage string) ControllerFlag {
	return ControllerFlag{Name: name, Usage: usage, NewValue: func() pflag.Value { v := durationValue(def); return &v }}
}

// Int32Flag is a controller's int32 flag (--max-endpoints-per-slice),
// refusing values outside [min, max] at parse time, as
// kube-controller-manager's validation does after parsing.
func Int32Flag(name string, def, lo, hi int32, usage string) ControllerFlag {
	return ControllerFlag{Name: name, Usage: usage, NewValue: func() pflag.Value { return &int32Value{v: def, lo: lo, hi: hi} }}
}

// boolValue is pflag's bool flag value, kept here so that Options can read
// it back without knowing pflag's unexported types.
type boolValue bool

func (b *boolValue) String() string   { return strconv.FormatBool(bool(*b)) }
func (b *boolValue) Type() string     { return "bool" }
func (b *boolValue) IsBoolFlag() bool { return true }

// Set accepts what strconv.ParseBool accepts, as pflag's bool flags do.
func (b *boolValue) Set(s string) error {
	v, err := strconv.ParseBool(s)
	if err != nil {
		return fmt.Errorf("%q is not true or false", s)
	}
	*b = boolValue(v)
	return nil
}

// durationValue is pflag's duration flag value.
type durationValue time.Duration

func (d *durationValue) String() string { return time.Duration(*d).String() }
func (d *durationValue) Type() string   { return "duration" }

// Set accepts what time.ParseDuration accepts.
func (d *durationValue) Set(s string) error {
	v, err := time.ParseDuration(s)
	if err != nil {
		return fmt.Errorf("%q is not a duration: %w", s, err)
	}
	*d = durationValue(v)
	return nil
}

// int32Value is pflag's int32 flag value with a range.
type int32Value struct{ v, lo, hi int32 }

func (i *int32Value) String() string { return strconv.FormatInt(int64(i.v), 10) }
func (i *int32Value) Type() string   { return "int32" }

// Set accepts a base-10 int32 within the flag's range.
func (i *int32Value) Set(s string) error {
	v, err := strconv.ParseInt(s, 10, 32)
	if err != nil {
		return fmt.Errorf("%q is not a 32-bit integer", s)
	}
	if int32(v) < i.lo || int32(v) > i.hi {
		return fmt.Errorf("%d is outside [%d, %d]", v, i.lo, i.hi)
	}
	i.v = int32(v)
	return nil
}

// Bool returns the value of a controller's boolean flag; ok is false when
// no descriptor of the registry o was made for has such a flag.
func (o *Options) Bool(name string) (v, ok bool) {
	b, ok := o.Flags[name].(*boolValue)
	if !ok {
		return false, false
	}
	return bool(*b), true
}

// Int32 returns the value of a controller's int32 flag; ok is false when
// no descriptor has such a flag.
func (o *Options) Int32(name string) (int32, bool) {
	i, ok := o.Flags[name].(*int32Value)
	if !ok {
		return 0, false
	}
	return i.v, true
}

// Duration returns the value of a controller's duration flag; ok is false
// when no descriptor has such a flag.
func (o *Options) Duration(name string) (time.Duration, bool) {
	d, ok := o.Flags[name].(*durationValue)
	if !ok {
		return 0, false
	}
	return time.Duration(*d), true
}
