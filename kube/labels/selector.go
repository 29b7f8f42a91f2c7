package labels

import (
	"errors"
	"fmt"
	"iter"
	"slices"
	"strings"

	"github.com/kcmlab/kcm/kube/api"
)

// This file holds compiled label selectors (client-go's labels.Selector and
// labels.Requirement): what a controller uses to decide which pods belong to
// a ReplicaSet, and what a lister or a LIST request filters by. The string
// form is parsed, and label keys and values are checked, in
// selector_parse.go.

// ErrInvalidSelector is wrapped by every error about a malformed selector:
// a bad operator, a wrong number of values, a syntax error or a bad label.
var ErrInvalidSelector = errors.New("invalid label selector")

// SelectorOperator is the operator of one compiled Requirement.
type SelectorOperator uint8

// The operators of compiled requirements. In and NotIn come from set-based
// expressions, Equals and NotEquals from "k=v" / "k!=v" (and from a
// LabelSelector's matchLabels), Exists and DoesNotExist from "k" / "!k".
const (
	SelectorOpIn SelectorOperator = iota + 1
	SelectorOpNotIn
	SelectorOpEquals
	SelectorOpNotEquals
	SelectorOpExists
	SelectorOpDoesNotExist
)

// String returns the operator as the string form of a selector writes it.
func (op SelectorOperator) String() string {
	switch op {
	case SelectorOpIn:
		return "in"
	case SelectorOpNotIn:
		return "notin"
	case SelectorOpEquals:
		return "="
	case SelectorOpNotEquals:
		return "!="
	case SelectorOpExists:
		return "exists"
	case SelectorOpDoesNotExist:
		return "!"
	}
	return fmt.Sprintf("SelectorOperator(%d)", uint8(op))
}

// opName names an operator in error messages, LabelSelector style.
func opName(op SelectorOperator) string {
	switch op {
	case SelectorOpIn:
		return "In"
	case SelectorOpNotIn:
		return "NotIn"
	case SelectorOpExists:
		return "Exists"
	case SelectorOpDoesNotExist:
		return "DoesNotExist"
	}
	return op.String()
}

// Requirement is one compiled condition on one label key. It is immutable.
type Requirement struct {
	key string
	op  SelectorOperator
	// values are sorted and distinct; one value for Equals/NotEquals, at
	// least one for In/NotIn, none for Exists/DoesNotExist.
	values []string
}

// NewRequirement validates and compiles one requirement. The key must be a
// valid label key and every value a valid label value; In and NotIn need at
// least one value, Equals and NotEquals exactly one, Exists and DoesNotExist
// none.
func NewRequirement(key string, op SelectorOperator, values []string) (Requirement, error) {
	r, err := newRequirement(key, op, values)
	if err != nil {
		return Requirement{}, fmt.Errorf("%w: %w", ErrInvalidSelector, err)
	}
	return r, nil
}

// newRequirement is NewRequirement with errors not yet wrapped in
// ErrInvalidSelector, so callers can add their own context.
func newRequirement(key string, op SelectorOperator, values []string) (Requirement, error) {
	if err := ValidateLabelKey(key); err != nil {
		return Requirement{}, err
	}
	switch op {
	case SelectorOpIn, SelectorOpNotIn:
		if len(values) == 0 {
			return Requirement{}, fmt.Errorf("key %q: operator %s needs at least one value", key, opName(op))
		}
	case SelectorOpEquals, SelectorOpNotEquals:
		if len(values) != 1 {
			return Requirement{}, fmt.Errorf("key %q: operator %s needs exactly one value, got %d", key, opName(op), len(values))
		}
	case SelectorOpExists, SelectorOpDoesNotExist:
		if len(values) != 0 {
			return Requirement{}, fmt.Errorf("key %q: operator %s takes no values, got %d", key, opName(op), len(values))
		}
		return Requirement{key: key, op: op}, nil
	default:
		return Requirement{}, fmt.Errorf("key %q: unknown operator %d", key, uint8(op))
	}
	for _, v := range values {
		if err := ValidateLabelValue(key, v); err != nil {
			return Requirement{}, err
		}
	}
	vs := slices.Clone(values)
	slices.Sort(vs)
	return Requirement{key: key, op: op, values: slices.Compact(vs)}, nil
}

// Key returns the label key the requirement tests.
func (r Requirement) Key() string { return r.key }

// Operator returns the requirement's operator.
func (r Requirement) Operator() SelectorOperator { return r.op }

// Values returns a copy of the sorted, distinct values.
func (r Requirement) Values() []string { return slices.Clone(r.values) }

// Matches reports whether labels satisfy the requirement. As in Kubernetes,
// NotIn and NotEquals match when the key is absent, In and Equals never do.
func (r Requirement) Matches(labels map[string]string) bool {
	v, ok := labels[r.key]
	return r.matchValue(v, ok)
}

// matchValue applies the operator to the label's value (ok: key present).
func (r *Requirement) matchValue(v string, ok bool) bool {
	switch r.op {
	case SelectorOpIn, SelectorOpEquals:
		return ok && r.hasValue(v)
	case SelectorOpNotIn, SelectorOpNotEquals:
		return !ok || !r.hasValue(v)
	case SelectorOpExists:
		return ok
	case SelectorOpDoesNotExist:
		return !ok
	}
	return false
}

// hasValue reports whether v is one of the (sorted) values.
func (r *Requirement) hasValue(v string) bool {
	if len(r.values) <= 8 {
		for _, x := range r.values {
			if x == v {
				return true
			}
		}
		return false
	}
	_, found := slices.BinarySearch(r.values, v)
	return found
}

// String returns the requirement in selector syntax: "k in (a,b)",
// "k notin (a)", "k=v", "k!=v", "k" or "!k".
func (r Requirement) String() string {
	var b strings.Builder
	r.writeTo(&b)
	return b.String()
}

func (r *Requirement) writeTo(b *strings.Builder) {
	switch r.op {
	case SelectorOpExists:
		b.WriteString(r.key)
	case SelectorOpDoesNotExist:
		b.WriteByte('!')
		b.WriteString(r.key)
	case SelectorOpEquals, SelectorOpNotEquals:
		b.WriteString(r.key)
		b.WriteString(r.op.String())
		b.WriteString(r.values[0])
	default: // In, NotIn
		b.WriteString(r.key)
		b.WriteByte(' ')
		b.WriteString(r.op.String())
		b.WriteString(" (")
		b.WriteString(strings.Join(r.values, ","))
		b.WriteByte(')')
	}
}

// compare orders requirements by key, then operator, then values, which
// makes a selector's string form independent of the order it was built in.
func (r *Requirement) compare(o *Requirement) int {
	if c := strings.Compare(r.key, o.key); c != 0 {
		return c
	}
	if r.op != o.op {
		return int(r.op) - int(o.op)
	}
	return slices.Compare(r.values, o.values)
}

// Selector is a compiled label selector: the conjunction of its
// requirements. It is immutable and safe for concurrent use, and Matches
// does not allocate. The zero value matches everything.
type Selector struct {
	// reqs are sorted by Requirement.compare.
	reqs []Requirement
	// nothing marks the selector that matches no label set (what a nil
	// *LabelSelector means); reqs is empty when it is set.
	nothing bool
}

// nothingKey is the key of the impossible selector Nothing().String() spells
// out ("k,!k": k present and absent), so that sending it to the apiserver
// lists nothing instead of everything.
const nothingKey = "kcm.nothing"

// Everything returns the selector that matches every label set.
func Everything() Selector { return Selector{} }

// Nothing returns the selector that matches no label set.
func Nothing() Selector { return Selector{nothing: true} }

// NewSelector returns the conjunction of reqs.
func NewSelector(reqs ...Requirement) Selector {
	rs := slices.Clone(reqs)
	slices.SortFunc(rs, func(a, b Requirement) int { return a.compare(&b) })
	return Selector{reqs: rs}
}

// Add returns a selector that also requires reqs. Nothing stays Nothing.
func (s Selector) Add(reqs ...Requirement) Selector {
	if s.nothing {
		return s
	}
	return NewSelector(append(slices.Clone(s.reqs), reqs...)...)
}

// SelectorFromSet returns the selector matching label sets that contain
// every key=value pair of set; an empty or nil set matches everything. The
// pairs are not validated (use ValidatedSelectorFromSet for untrusted input).
func SelectorFromSet(set map[string]string) Selector {
	reqs := make([]Requirement, 0, len(set))
	for k, v := range set {
		reqs = append(reqs, Requirement{key: k, op: SelectorOpEquals, values: []string{v}})
	}
	return NewSelector(reqs...)
}

// ValidatedSelectorFromSet is SelectorFromSet after checking every key and
// value with the label syntax rules.
func ValidatedSelectorFromSet(set map[string]string) (Selector, error) {
	if err := ValidateLabels(set); err != nil {
		return Selector{}, fmt.Errorf("%w: %w", ErrInvalidSelector, err)
	}
	return SelectorFromSet(set), nil
}

// LabelSelectorAsSelector compiles an API LabelSelector, as Kubernetes'
// metav1.LabelSelectorAsSelector does: nil selects nothing, an empty selector
// everything; matchLabels entries become Equals requirements and
// matchExpressions their operators. Keys, values and operator arity are
// validated; the error names the offending entry.
func LabelSelectorAsSelector(ls *api.LabelSelector) (Selector, error) {
	if ls == nil {
		return Nothing(), nil
	}
	reqs := make([]Requirement, 0, len(ls.MatchLabels)+len(ls.MatchExpressions))
	for k, v := range ls.MatchLabels {
		r, err := newRequirement(k, SelectorOpEquals, []string{v})
		if err != nil {
			return Selector{}, fmt.Errorf("%w: matchLabels: %w", ErrInvalidSelector, err)
		}
		reqs = append(reqs, r)
	}
	for i, e := range ls.MatchExpressions {
		r, err := expressionRequirement(e)
		if err != nil {
			return Selector{}, fmt.Errorf("%w: matchExpressions[%d]: %w", ErrInvalidSelector, i, err)
		}
		reqs = append(reqs, r)
	}
	return NewSelector(reqs...), nil
}

// expressionRequirement compiles one matchExpressions entry.
func expressionRequirement(e api.LabelSelectorRequirement) (Requirement, error) {
	var op SelectorOperator
	switch e.Operator {
	case api.LabelSelectorOpIn:
		op = SelectorOpIn
	case api.LabelSelectorOpNotIn:
		op = SelectorOpNotIn
	case api.LabelSelectorOpExists:
		op = SelectorOpExists
	case api.LabelSelectorOpDoesNotExist:
		op = SelectorOpDoesNotExist
	default:
		return Requirement{}, fmt.Errorf("key %q: operator %q is not one of In, NotIn, Exists, DoesNotExist", e.Key, e.Operator)
	}
	return newRequirement(e.Key, op, e.Values)
}

// Matches reports whether labels satisfy every requirement.
func (s Selector) Matches(labels map[string]string) bool {
	if s.nothing {
		return false
	}
	for i := range s.reqs {
		v, ok := labels[s.reqs[i].key]
		if !s.reqs[i].matchValue(v, ok) {
			return false
		}
	}
	return true
}

// LabelLookup is a read-only view of an object's labels, for callers that
// keep labels in a form other than a map (an interned or packed encoding).
type LabelLookup interface {
	// LookupLabel returns the value of key and whether the key is present.
	LookupLabel(key string) (value string, ok bool)
}

// MatchesLookup is Matches over a LabelLookup.
func (s Selector) MatchesLookup(labels LabelLookup) bool {
	if s.nothing {
		return false
	}
	for i := range s.reqs {
		v, ok := labels.LookupLabel(s.reqs[i].key)
		if !s.reqs[i].matchValue(v, ok) {
			return false
		}
	}
	return true
}

// Empty reports whether the selector matches everything. Nothing is not
// empty.
func (s Selector) Empty() bool { return !s.nothing && len(s.reqs) == 0 }

// IsNothing reports whether the selector is Nothing().
func (s Selector) IsNothing() bool { return s.nothing }

// Requirements returns a copy of the requirements, in canonical order.
func (s Selector) Requirements() []Requirement { return slices.Clone(s.reqs) }

// RequiresExactMatch returns the single value the selector demands for key
// (from "key=v" or "key in (v)"), so a caller can use a key=value index
// instead of scanning everything.
func (s Selector) RequiresExactMatch(key string) (value string, ok bool) {
	for i := range s.reqs {
		r := &s.reqs[i]
		if r.key == key && (r.op == SelectorOpEquals || r.op == SelectorOpIn) && len(r.values) == 1 {
			return r.values[0], true
		}
	}
	return "", false
}

// ExactRequirements yields, for each requirement of the form "key=v" or
// "key in (v1,...)", its key and its sorted, distinct values: every label
// set the selector matches has key set to one of them, so a reader with a
// key=value index can collect the candidates from the index instead of
// scanning everything (and must still apply Matches to them). The values
// are the selector's own: read-only. Nothing yields nothing.
func (s Selector) ExactRequirements() iter.Seq2[string, []string] {
	return func(yield func(string, []string) bool) {
		for i := range s.reqs {
			r := &s.reqs[i]
			if r.op == SelectorOpEquals || r.op == SelectorOpIn {
				if !yield(r.key, r.values) {
					return
				}
			}
		}
	}
}

// String returns the canonical string form, the one kube-apiserver accepts
// as the labelSelector query parameter: requirements sorted by key and
// joined by commas, values sorted. Everything is "". Nothing is the
// impossible "kcm.nothing,!kcm.nothing", so that a LIST with it returns no
// objects rather than all of them.
func (s Selector) String() string {
	if s.nothing {
		return nothingKey + ",!" + nothingKey
	}
	var b strings.Builder
	for i := range s.reqs {
		if i > 0 {
			b.WriteByte(',')
		}
		s.reqs[i].writeTo(&b)
	}
	return b.String()
}
