package ctrl

import (
	"fmt"
	"strconv"
	"strings"
)

// IsControllerEnabled applies kube-controller-manager's --controllers rule
// to one canonical name (k8s.io/controller-manager/app.IsControllerEnabled):
//
//   - the list is read in order and the first entry that names the
//     controller decides: "foo" turns foo on, "-foo" turns it off;
//   - "*" decides nothing by itself: it only says that a controller the
//     list does not name at all follows its default, so "*,-foo" is all
//     on-by-default controllers but foo, and "-foo,*" is the same;
//   - without "*", a controller the list does not name is off.
//
// controllers must already be canonical (see Canonical).
func IsControllerEnabled(name string, disabledByDefault map[string]bool, controllers []string) bool {
	star := false
	off := "-" + name
	for _, c := range controllers {
		switch c {
		case name:
			return true
		case off:
			return false
		case "*":
			star = true
		}
	}
	return star && !disabledByDefault[name]
}

// Canonical validates a --controllers list and returns it with aliases
// replaced by canonical names, the "-" prefix kept
// (kube-controller-manager's Validate and ApplyTo). Every entry but "*"
// must name a known controller or alias, with or without "-"; the error
// names the others, wraps ErrUnknownController and lists the known names.
func (r *Descriptors) Canonical(controllers []string) ([]string, error) {
	out := make([]string, len(controllers))
	var unknown []string
	for i, c := range controllers {
		if c == "*" {
			out[i] = c
			continue
		}
		bare, off := strings.CutPrefix(c, "-")
		d, ok := r.byName[bare]
		if !ok {
			unknown = append(unknown, strconv.Quote(bare))
			continue
		}
		out[i] = d.Name
		if off {
			out[i] = "-" + d.Name
		}
	}
	if len(unknown) > 0 {
		return nil, fmt.Errorf("--controllers: %s: %w: %s",
			strings.Join(unknown, ", "), ErrUnknownController, strings.Join(r.KnownControllers(), ", "))
	}
	return out, nil
}

// Enabled validates a --controllers list and returns the descriptors it
// turns on, in registration order.
func (r *Descriptors) Enabled(controllers []string) ([]*ControllerDescriptor, error) {
	canon, err := r.Canonical(controllers)
	if err != nil {
		return nil, err
	}
	off := map[string]bool{}
	for _, d := range r.list {
		off[d.Name] = d.DisabledByDefault
	}
	var on []*ControllerDescriptor
	for _, d := range r.list {
		if IsControllerEnabled(d.Name, off, canon) {
			on = append(on, d)
		}
	}
	return on, nil
}
