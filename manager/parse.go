package manager

import (
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/spf13/pflag"

	"github.com/kcmlab/kcm/ctrl"
)

// ErrUnsupportedFlag: the command line uses a flag kube-controller-manager
// has and kcm does not. kcm refuses to start rather than ignore it, since
// an ignored flag is a setting the operator believes is in force.
var ErrUnsupportedFlag = errors.New("unsupported kube-controller-manager flag")

// unsupportedFlagError names the flag as it was written.
type unsupportedFlagError struct{ flag string }

func (e *unsupportedFlagError) Error() string {
	return fmt.Sprintf("kcm does not support kube-controller-manager's flag %s; see kcm --help", e.flag)
}

func (e *unsupportedFlagError) Unwrap() error { return ErrUnsupportedFlag }

// Command is the parsed `kcm` command line: the options and the sections
// --help prints (kube-controller-manager's NewControllerManagerCommand
// builds the same pair around cobra).
type Command struct {
	Options     *Options
	Descriptors *ctrl.Descriptors
	Sections    []FlagSection
	all         *pflag.FlagSet
}

// NewControllerManagerCommand returns the command line of the manager for
// the controllers in d, every flag at its default.
func NewControllerManagerCommand(d *ctrl.Descriptors) *Command {
	o := NewOptions(d)
	c := &Command{Options: o, Descriptors: d, Sections: o.Flags(d)}
	c.all = pflag.NewFlagSet("kcm", pflag.ContinueOnError)
	c.all.SetOutput(io.Discard) // errors are returned; Help prints the usage
	c.all.Usage = func() {}
	for _, s := range c.Sections {
		c.all.AddFlagSet(s.Flags)
	}
	return c
}

// Parse reads args (without the program name) into c.Options and
// validates them. It returns pflag.ErrHelp for -h/--help, an error
// wrapping ErrUnsupportedFlag for a kube-controller-manager flag kcm lacks,
// pflag's own error for a flag nobody has, and ErrInvalidOptions for
// values Validate rejects. Positional arguments are refused: the manager
// takes none.
func (c *Command) Parse(args []string) error {
	if err := c.all.Parse(args); err != nil {
		if errors.Is(err, pflag.ErrHelp) {
			return err
		}
		return unsupported(err)
	}
	if c.all.NArg() > 0 {
		return fmt.Errorf("unexpected arguments %q (subcommands come first: kcm dev, kcm trace, kcm version)", c.all.Args())
	}
	return c.Options.Validate(c.Descriptors)
}

// unsupported turns pflag's "unknown flag" into the unsupported-flag error
// when kube-controller-manager has a flag of that name; other errors pass
// through unchanged.
func unsupported(err error) error {
	var ne *pflag.NotExistError
	if !errors.As(err, &ne) {
		return err
	}
	// kube-controller-manager's only one-letter flags are -h and -v, which
	// kcm has: an unknown shorthand is never one of its flags.
	if name := ne.GetSpecifiedName(); name != "" && IsKubeControllerManagerFlag(name) {
		return &unsupportedFlagError{flag: "--" + name}
	}
	return err
}

// WriteHelp prints the usage of the manager: a synopsis, then each flag
// section, then what the controllers are.
func (c *Command) WriteHelp(w io.Writer) {
	fmt.Fprintf(w, "kcm runs Kubernetes controllers against a cluster's API server, the way kube-controller-manager\n"+
		"does, with kube-controller-manager's flags (those kcm has; the others are rejected by name).\n\n"+
		"Usage:\n  kcm [flags]\n")
	for _, s := range c.Sections {
		fmt.Fprintf(w, "\n%s:\n\n%s", s.Title, s.Flags.FlagUsagesWrapped(110))
		if s.Title == SectionControllers {
			writeControllers(w, c.Descriptors)
		}
	}
}

// writeControllers lists the known controllers and whether "*" turns each
// on.
func writeControllers(w io.Writer, d *ctrl.Descriptors) {
	fmt.Fprintf(w, "\n  Controllers kcm knows (--controllers):\n")
	for _, desc := range d.All() {
		state := "on by default"
		if desc.DisabledByDefault {
			state = "off by default"
		}
		alias := ""
		if len(desc.Aliases) > 0 {
			alias = " (also " + strings.Join(desc.Aliases, ", ") + ")"
		}
		fmt.Fprintf(w, "    %-28s %s%s\n", desc.Name, state, alias)
	}
}
