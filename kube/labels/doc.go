// Package labels is the label selector: the condition a ReplicaSet uses to
// claim its pods, that a lister filters with, and that a LIST request
// sends to the apiserver.
//
// # Where it sits
//
//	"app=web,tier in (a,b)" ──ParseSelector──▶ Selector ──Matches(labels)──▶ bool
//	api.LabelSelector (spec.selector) ──LabelSelectorAsSelector──▶ Selector ──String()──▶ ?labelSelector=
//
// It imports only api (for the LabelSelector type it compiles); rest does
// not import it: a LIST carries the selector's String.
//
// # Semantics
//
// A Selector is a conjunction of Requirements, each an operator on one
// label key: In, NotIn, Equals, NotEquals, Exists, DoesNotExist. As in
// Kubernetes, NotIn and NotEquals match objects without the key, a nil
// *LabelSelector selects nothing and an empty one selects everything. Keys
// and values are checked against the Kubernetes syntax rules
// (ValidateLabelKey, ValidateLabelValue); every error wraps
// ErrInvalidSelector or ErrInvalidLabel and says where the problem is.
//
// # Guarantees
//
//   - Selectors are immutable, safe for concurrent use, and Matches
//     allocates nothing.
//   - String is canonical: requirements sorted by key, values sorted, so
//     equal selectors print equally and parse back to themselves. Nothing()
//     prints as an impossible selector, so that a LIST with it returns no
//     objects rather than all of them.
//
// # client-go names
//
// Selector ≈ labels.Selector; ParseSelector ≈ labels.Parse; Requirement ≈
// labels.Requirement; SelectorFromSet ≈ labels.SelectorFromSet;
// LabelSelectorAsSelector ≈ metav1.LabelSelectorAsSelector.
package labels
