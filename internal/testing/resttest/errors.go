package resttest

import (
	"errors"
	"fmt"

	"github.com/kcmlab/kcm/kube/api"
	"github.com/kcmlab/kcm/kube/rest"
)

// apiError is a failure the tracker answers, worded as kube-apiserver's.
type apiError struct {
	code    int32
	reason  string
	message string
	k       key
}

func (e *apiError) Error() string { return e.message }

func notFound(k key) error {
	return &apiError{code: 404, reason: "NotFound", k: k, message: fmt.Sprintf("%s %q not found", k.qualified(), k.name)}
}

// conflict is the 409 of a write refused by a resourceVersion or uid
// precondition.
func conflict(k key, why string) error {
	return &apiError{code: 409, reason: "Conflict", k: k,
		message: fmt.Sprintf("Operation cannot be fulfilled on %s %q: %s", k.qualified(), k.name, why)}
}

func badRequest(msg string) error { return &apiError{code: 400, reason: "BadRequest", message: msg} }

func invalid(r ref, name, msg string) error {
	return &apiError{code: 422, reason: "Invalid", k: key{ref: r, name: name},
		message: fmt.Sprintf("%s %q is invalid: %s", r.qualified(), name, msg)}
}

func statusCode(err error) int {
	var e *apiError
	if errors.As(err, &e) {
		return int(e.code)
	}
	return 500
}

// failureOf is the Status answered for err.
func failureOf(err error) rest.Status {
	var e *apiError
	if !errors.As(err, &e) {
		return Failure(500, "InternalError", err.Error())
	}
	st := Failure(e.code, e.reason, e.message)
	if e.k.resource != "" {
		st.Details = &rest.StatusDetails{Name: e.k.name, Group: e.k.group, Kind: e.k.resource}
	}
	return st
}

// success is the Status of a delete carried out.
func success(k key, uid string) rest.Status {
	return rest.Status{TypeMeta: api.TypeMeta{Kind: "Status", APIVersion: "v1"}, Status: "Success",
		Details: &rest.StatusDetails{Name: k.name, Group: k.group, Kind: k.resource, UID: uid}}
}
