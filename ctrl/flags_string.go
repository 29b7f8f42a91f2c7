package ctrl

import (
	"fmt"

	"github.com/spf13/pflag"
)

// This file holds the string controller flag: kube-controller-manager
// types --root-ca-file and --service-account-private-key-file as pflag
// StringVar. Both controllers that read --root-ca-file (root-ca-cert-publisher
// and serviceaccount-token-controller) declare it; the registry registers a
// flag that several descriptors declare once (see AddFlags).

// StringFlag is a controller's string flag (--root-ca-file ""). Its value
// prints as pflag's string flag does: the string itself, and the help
// shows no default when def is empty.
func StringFlag(name, def, usage string) ControllerFlag {
	return ControllerFlag{Name: name, Usage: usage, NewValue: func() pflag.Value { v := stringValue(def); return &v }}
}

// stringValue is pflag's string flag value.
type stringValue string

func (s *stringValue) String() string { return string(*s) }
func (s *stringValue) Type() string   { return "string" }

// Set accepts any string, as pflag does.
func (s *stringValue) Set(v string) error {
	*s = stringValue(v)
	return nil
}

// String returns the value of a controller's string flag; ok is false
// when no descriptor has such a flag.
func (o *Options) String(name string) (string, bool) {
	s, ok := o.Flags[name].(*stringValue)
	if !ok {
		return "", false
	}
	return string(*s), true
}

// StringFlag returns the value of a controller's string flag, or def as
// BoolFlag does.
func (cc ControllerContext) StringFlag(name, def string) string {
	if cc.options == nil {
		return def
	}
	if v, ok := cc.options.String(name); ok {
		return v
	}
	return def
}

// sharedFlags checks, while NewDescriptors indexes the descriptors, that
// a flag declared by several of them is declared alike: one command-line
// option has one help text, one type and one default.
type sharedFlags map[string]sharedFlag

type sharedFlag struct {
	owner, usage, typ, def string
}

func (s sharedFlags) add(owner string, f ControllerFlag) error {
	if f.Name == "" || f.NewValue == nil {
		return fmt.Errorf("%w: %q declares a flag without a name or a value", ErrInvalidDescriptor, owner)
	}
	v := f.NewValue()
	got := sharedFlag{owner: owner, usage: f.Usage, typ: v.Type(), def: v.String()}
	first, seen := s[f.Name]
	if !seen {
		s[f.Name] = got
		return nil
	}
	if first.usage != got.usage || first.typ != got.typ || first.def != got.def {
		return fmt.Errorf("%w: --%s is declared by %q and %q differently (usage, type or default)",
			ErrInvalidDescriptor, f.Name, first.owner, owner)
	}
	return nil
}
