package namespace

import (
	"errors"
	"fmt"
	"sort"
	"strings"
	"time"

	"github.com/kcmlab/kcm/kube/api"
	"github.com/kcmlab/kcm/kube/rest"
)

// The namespace status conditions the controller maintains while a
// namespace terminates (core/v1 NamespaceConditionType). Each is True with
// a failure reason while the problem lasts and False with a success reason
// otherwise; all five are written on every pass that deletes content.
const (
	// ConditionDiscoveryFailure: discovery could not list every
	// namespaced resource type, so some content may be left.
	ConditionDiscoveryFailure = "NamespaceDeletionDiscoveryFailure"
	// ConditionGroupVersionParsingFailure: a group version from discovery
	// could not be parsed; nothing is deleted while it lasts.
	ConditionGroupVersionParsingFailure = "NamespaceDeletionGroupVersionParsingFailure"
	// ConditionContentFailure: deleting or listing some resource type
	// failed (a 403 is the usual cause).
	ConditionContentFailure = "NamespaceDeletionContentFailure"
	// ConditionContentRemaining: objects are still there after deletion
	// was asked for, counted per resource type.
	ConditionContentRemaining = "NamespaceContentRemaining"
	// ConditionFinalizersRemaining: remaining objects wait on finalizers,
	// counted per finalizer.
	ConditionFinalizersRemaining = "NamespaceFinalizersRemaining"
)

// conditionTypes is the order in which the conditions are first written,
// Kubernetes' order.
var conditionTypes = []string{
	ConditionDiscoveryFailure,
	ConditionGroupVersionParsingFailure,
	ConditionContentFailure,
	ConditionContentRemaining,
	ConditionFinalizersRemaining,
}

// okReasons and okMessages are each condition's False state, word for word
// as Kubernetes v1.37 writes them (pkg/controller/namespace/deletion).
var (
	okReasons = map[string]string{
		ConditionDiscoveryFailure:           "ResourcesDiscovered",
		ConditionGroupVersionParsingFailure: "ParsedGroupVersions",
		ConditionContentFailure:             "ContentDeleted",
		ConditionContentRemaining:           "ContentRemoved",
		ConditionFinalizersRemaining:        "ContentHasNoFinalizers",
	}
	okMessages = map[string]string{
		ConditionDiscoveryFailure:           "All resources successfully discovered",
		ConditionGroupVersionParsingFailure: "All legacy kube types successfully parsed",
		ConditionContentFailure:             "All content successfully deleted, may be waiting on finalization",
		ConditionContentRemaining:           "All content successfully removed",
		ConditionFinalizersRemaining:        "All content-preserving finalizers finished",
	}
)

// remaining is what one pass found still there: objects per resource and
// objects per finalizer.
type remaining struct {
	byResource  map[rest.Resource]int
	byFinalizer map[string]int
}

func newRemaining() remaining {
	return remaining{byResource: map[rest.Resource]int{}, byFinalizer: map[string]int{}}
}

// add records what one resource type left.
func (r remaining) add(res rest.Resource, left resourceLeft) {
	if left.count == 0 {
		return
	}
	r.byResource[res] = left.count
	for f, n := range left.byFinalizer {
		if n > 0 {
			r.byFinalizer[f] += n
		}
	}
}

// conditionUpdater collects what one deletion pass ran into and turns it
// into the namespace's conditions (Kubernetes' namespaceConditionUpdater).
// It is pure: it never talks to the apiserver, and its clock reading is
// given.
type conditionUpdater struct {
	now           api.Time
	failures      []api.NamespaceCondition
	contentErrors []error
}

func newConditionUpdater(now time.Time) *conditionUpdater {
	return &conditionUpdater{now: api.NewTime(now)}
}

func (u *conditionUpdater) failed(typ, reason, message string) {
	u.failures = append(u.failures, api.NamespaceCondition{
		Type: typ, Status: api.ConditionTrue, LastTransitionTime: u.now, Reason: reason, Message: message,
	})
}

// discoveryFailed records a discovery error. A partial failure names how
// many group versions failed, then each one with its error.
func (u *conditionUpdater) discoveryFailed(err error) {
	msg := errorMessage(err)
	var gde *rest.GroupDiscoveryError
	if errors.As(err, &gde) {
		msg = fmt.Sprintf("Discovery failed for some groups, %d failing: %s", len(gde.Groups), groupDiscoveryMessage(gde))
	}
	u.failed(ConditionDiscoveryFailure, "DiscoveryFailed", msg)
}

// groupVersionFailed records a group version that does not parse.
func (u *conditionUpdater) groupVersionFailed(err error) {
	u.failed(ConditionGroupVersionParsingFailure, "GroupVersionParsingFailed", errorMessage(err))
}

// contentFailed records an error deleting or listing one resource type.
func (u *conditionUpdater) contentFailed(err error) {
	u.contentErrors = append(u.contentErrors, err)
}

// contentTotals records what is left: one ContentRemaining entry per
// resource type and one FinalizersRemaining entry per finalizer, sorted so
// that an unchanged state gives an unchanged message.
func (u *conditionUpdater) contentTotals(r remaining) {
	if len(r.byResource) > 0 {
		parts := make([]string, 0, len(r.byResource))
		for res, n := range r.byResource {
			parts = append(parts, fmt.Sprintf("%s.%s has %d resource instances", res.Resource, res.Group, n))
		}
		sort.Strings(parts)
		u.failed(ConditionContentRemaining, "SomeResourcesRemain",
			"Some resources are remaining: "+strings.Join(parts, ", "))
	}
	if len(r.byFinalizer) > 0 {
		parts := make([]string, 0, len(r.byFinalizer))
		for f, n := range r.byFinalizer {
			parts = append(parts, fmt.Sprintf("%s in %d resource instances", f, n))
		}
		sort.Strings(parts)
		u.failed(ConditionFinalizersRemaining, "SomeFinalizersRemain",
			"Some content in the namespace has finalizers remaining: "+strings.Join(parts, ", "))
	}
}

// apply writes the pass's conditions into status and reports whether
// anything changed. A condition the pass did not fail is set to its False
// state. An existing condition keeps its lastTransitionTime unless its
// status flips; a new one gets the pass's time.
func (u *conditionUpdater) apply(status *api.NamespaceStatus) bool {
	conds := u.failures
	if find(conds, ConditionContentFailure) == nil && len(u.contentErrors) > 0 {
		msgs := make([]string, len(u.contentErrors))
		for i, err := range u.contentErrors {
			msgs[i] = errorMessage(err)
		}
		sort.Strings(msgs)
		conds = append(conds, api.NamespaceCondition{
			Type: ConditionContentFailure, Status: api.ConditionTrue, LastTransitionTime: u.now,
			Reason:  "ContentDeletionFailed",
			Message: fmt.Sprintf("Failed to delete all resource types, %d remaining: %s", len(msgs), strings.Join(msgs, ", ")),
		})
	}
	changed := false
	for _, typ := range conditionTypes {
		want := find(conds, typ)
		if want == nil {
			want = &api.NamespaceCondition{Type: typ, Status: api.ConditionFalse, LastTransitionTime: u.now,
				Reason: okReasons[typ], Message: okMessages[typ]}
		}
		have := find(status.Conditions, typ)
		switch {
		case have == nil:
			status.Conditions = append(status.Conditions, *want)
			changed = true
		case have.Status != want.Status || have.Reason != want.Reason || have.Message != want.Message:
			if have.Status != want.Status {
				have.LastTransitionTime = u.now
			}
			have.Status, have.Reason, have.Message = want.Status, want.Reason, want.Message
			changed = true
		}
	}
	return changed
}

func find(conds []api.NamespaceCondition, typ string) *api.NamespaceCondition {
	for i := range conds {
		if conds[i].Type == typ {
			return &conds[i]
		}
	}
	return nil
}

// errorMessage is the text a condition shows for err: the apiserver's own
// message for a refusal (`configmaps is forbidden: User "x" cannot
// deletecollection resource ...`), as client-go's errors print, without
// the request line kcm's errors add; err's text otherwise.
func errorMessage(err error) string {
	var se *rest.StatusError
	if errors.As(err, &se) && se.Status.Message != "" {
		return se.Status.Message
	}
	return err.Error()
}

// groupDiscoveryMessage prints a partial discovery failure as client-go's
// ErrGroupDiscoveryFailed does: "unable to retrieve the complete list of
// server APIs: " then "group/version: error" per failed group version,
// sorted, joined by ", ".
func groupDiscoveryMessage(e *rest.GroupDiscoveryError) string {
	parts := make([]string, 0, len(e.Groups))
	for gv, err := range e.Groups {
		parts = append(parts, gv+": "+errorMessage(err))
	}
	sort.Strings(parts)
	return rest.ErrGroupDiscovery.Error() + ": " + strings.Join(parts, ", ")
}
