package ctrl

import (
	"fmt"
	"strconv"

	"github.com/spf13/pflag"
)

// This file holds the float32 controller flag: kube-controller-manager
// types --node-eviction-rate, --secondary-node-eviction-rate and
// --unhealthy-zone-threshold as pflag Float32Var.

// Float32Flag is a controller's float32 flag (--node-eviction-rate 0.1).
// Its value prints as pflag's float32 does ("0.1").
func Float32Flag(name string, def float32, usage string) ControllerFlag {
	return ControllerFlag{Name: name, Usage: usage, NewValue: func() pflag.Value { v := float32Value(def); return &v }}
}

// float32Value is pflag's float32 flag value.
type float32Value float32

func (f *float32Value) String() string { return strconv.FormatFloat(float64(*f), 'g', -1, 32) }
func (f *float32Value) Type() string   { return "float32" }

// Set accepts what strconv.ParseFloat accepts at 32 bits, as pflag does.
func (f *float32Value) Set(s string) error {
	v, err := strconv.ParseFloat(s, 32)
	if err != nil {
		return fmt.Errorf("%q is not a number: %w", s, err)
	}
	*f = float32Value(v)
	return nil
}

// Float32 returns the value of a controller's float32 flag; ok is false
// when no descriptor has such a flag.
func (o *Options) Float32(name string) (float32, bool) {
	f, ok := o.Flags[name].(*float32Value)
	if !ok {
		return 0, false
	}
	return float32(*f), true
}

// Float32Flag returns the value of a controller's float32 flag, or def as
// BoolFlag does.
func (cc ControllerContext) Float32Flag(name string, def float32) float32 {
	if cc.options == nil {
		return def
	}
	if v, ok := cc.options.Float32(name); ok {
		return v
	}
	return def
}
