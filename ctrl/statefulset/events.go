package statefulset

import (
	"errors"
	"strings"

	"github.com/kcmlab/kcm/ctrl"
	"github.com/kcmlab/kcm/kube/api"
	"github.com/kcmlab/kcm/kube/rest"
)

// The events the StatefulSet controller records about its pods and
// claims, on the StatefulSet, with kube-controller-manager's reasons and
// texts (recordPodEvent, recordClaimEvent in stateful_pod_control.go).
// The verb is title-cased in both the reason and the message
// ("SuccessfulCreate", "Create Pod web-0 in StatefulSet web successful").

// ReasonConflictingController is the warning that a claim has another
// controller, so the retention policy is not applied to it.
const ReasonConflictingController = "ConflictingController"

// The verbs of the pod and claim events.
const (
	verbCreate = "create"
	verbUpdate = "update"
	verbDelete = "delete"
)

// titleVerb is the verb with its first letter upper-cased, as
// cases.Title(language.English) writes these ASCII verbs.
func titleVerb(verb string) string {
	if verb == "" {
		return verb
	}
	return strings.ToUpper(verb[:1]) + strings.ToLower(verb[1:])
}

// setRef is the StatefulSet as the events' involved object.
func setRef(set *api.StatefulSet) api.ObjectReference { return ctrl.Ref(rest.StatefulSets, set) }

// recordPodEvent records verb done to pod (err nil) or failed (err).
func (c *statefulPodControl) recordPodEvent(verb string, set *api.StatefulSet, pod *api.Pod, err error) {
	v := titleVerb(verb)
	if err == nil {
		c.recorder.Eventf(setRef(set), api.EventTypeNormal, "Successful"+v,
			"%s Pod %s in StatefulSet %s successful", v, pod.Name, set.Name)
		return
	}
	c.recorder.Eventf(setRef(set), api.EventTypeWarning, "Failed"+v,
		"%s Pod %s in StatefulSet %s failed error: %s", v, pod.Name, set.Name, err)
}

// recordClaimEvent records verb done to pod's claim (err nil) or failed
// (err). The two texts differ as upstream's do: "... Claim c Pod p ...
// success", "... Claim c for Pod p ... failed error: ...".
func (c *statefulPodControl) recordClaimEvent(verb string, set *api.StatefulSet, pod *api.Pod, claim *api.PersistentVolumeClaim, err error) {
	v := titleVerb(verb)
	if err == nil {
		c.recorder.Eventf(setRef(set), api.EventTypeNormal, "Successful"+v,
			"%s Claim %s Pod %s in StatefulSet %s success", v, claim.Name, pod.Name, set.Name)
		return
	}
	c.recorder.Eventf(setRef(set), api.EventTypeWarning, "Failed"+v,
		"%s Claim %s for Pod %s in StatefulSet %s failed error: %s", v, claim.Name, pod.Name, set.Name, err)
}

// apiError is an error of the apiserver whose text is the server's
// message alone, as client-go's StatusError prints it, so that the
// errors this package returns and the events that quote them read as
// kube-controller-manager's ("pods \"web-0\" already exists"). The
// rest error stays reachable (errors.Is(err, rest.ErrAlreadyExists)).
type apiError struct{ err error }

// serverError wraps err as an apiError; nil stays nil.
func serverError(err error) error {
	if err == nil {
		return nil
	}
	return &apiError{err}
}

func (e *apiError) Error() string {
	var se *rest.StatusError
	if errors.As(e.err, &se) && se.Status.Message != "" {
		return se.Status.Message
	}
	return e.err.Error()
}

func (e *apiError) Unwrap() error { return e.err }

// aggregate is a list of errors printed as apimachinery's
// errors.Aggregate prints one: a single message as it is, several (each
// message once, nested aggregates flattened) as "[a, b]".
type aggregate []error

// newAggregate is the aggregate of errs, nil when there is none.
func newAggregate(errs []error) error {
	if len(errs) == 0 {
		return nil
	}
	return aggregate(errs)
}

func (a aggregate) Error() string {
	var msgs []string
	seen := map[string]bool{}
	a.visit(func(err error) {
		if m := err.Error(); !seen[m] {
			seen[m] = true
			msgs = append(msgs, m)
		}
	})
	if len(msgs) == 1 {
		return msgs[0]
	}
	return "[" + strings.Join(msgs, ", ") + "]"
}

func (a aggregate) visit(fn func(error)) {
	for _, err := range a {
		if inner, ok := err.(aggregate); ok {
			inner.visit(fn)
			continue
		}
		fn(err)
	}
}

// Unwrap lets errors.Is and errors.As look into each error.
func (a aggregate) Unwrap() []error { return a }
