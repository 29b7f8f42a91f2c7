package rest

import (
	"bytes"
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"time"
	"unicode/utf8"

	"github.com/kcmlab/kcm/kube/api"
	"github.com/kcmlab/kcm/kube/internal/jsonx"
)

// Sentinel errors for the conditions callers test. A *StatusError from the
// server matches them with errors.Is, so both of these work:
//
//	if errors.Is(err, rest.ErrNotFound) { ... }
//	if rest.IsNotFound(err) { ... }
var (
	ErrNotFound         = errors.New("not found")
	ErrAlreadyExists    = errors.New("already exists")
	ErrConflict         = errors.New("conflict")
	ErrGone             = errors.New("gone (resource version expired)")
	ErrTooManyRequests  = errors.New("too many requests")
	ErrForbidden        = errors.New("forbidden")
	ErrUnauthorized     = errors.New("unauthorized")
	ErrInvalid          = errors.New("invalid")
	ErrBadRequest       = errors.New("bad request")
	ErrServerError      = errors.New("server error")
	ErrRVTooLarge       = errors.New("resource version too large")
	ErrMethodNotAllowed = errors.New("method not allowed")
	ErrUnsupportedMedia = errors.New("unsupported media type")
)

// Status is the meta/v1 Status the apiserver sends with failures, and inside
// ERROR watch events.
type Status struct {
	api.TypeMeta

	Status  string         `json:"status,omitempty"`
	Message string         `json:"message,omitempty"`
	Reason  string         `json:"reason,omitempty"`
	Details *StatusDetails `json:"details,omitempty"`
	Code    int32          `json:"code,omitempty"`
}

// StatusDetails carries the object a failure is about and its causes.
type StatusDetails struct {
	Name              string        `json:"name,omitempty"`
	Group             string        `json:"group,omitempty"`
	Kind              string        `json:"kind,omitempty"`
	UID               string        `json:"uid,omitempty"`
	Causes            []StatusCause `json:"causes,omitempty"`
	RetryAfterSeconds int32         `json:"retryAfterSeconds,omitempty"`
}

// StatusCause is one reason for a failure, e.g. a field that is invalid.
type StatusCause struct {
	Type    string `json:"reason,omitempty"`
	Message string `json:"message,omitempty"`
	Field   string `json:"field,omitempty"`
}

// StatusError is a failure answered by the apiserver. It keeps the server's
// message verbatim, plus what request it answered.
type StatusError struct {
	Status Status
	// Verb and Path say which request failed (no query string: it may carry
	// selectors, never secrets, but paths are enough to act on).
	Verb, Path string
	// RetryAfter is the server's Retry-After (header or details), if any.
	RetryAfter time.Duration
}

// Error formats like kubectl: the server's message plus the request.
func (e *StatusError) Error() string {
	msg := e.Status.Message
	if msg == "" {
		msg = http.StatusText(int(e.Status.Code))
	}
	return fmt.Sprintf("%s %s: %d %s: %s", e.Verb, e.Path, e.Status.Code, e.Status.Reason, msg)
}

// Is maps the status onto the package's sentinel errors.
func (e *StatusError) Is(target error) bool {
	return target != nil && e.sentinel(target)
}

func (e *StatusError) sentinel(target error) bool {
	r, code := e.Status.Reason, e.Status.Code
	switch target {
	case ErrNotFound:
		return r == "NotFound" || (r == "" && code == http.StatusNotFound)
	case ErrAlreadyExists:
		return r == "AlreadyExists"
	case ErrConflict:
		return r == "Conflict" || (code == http.StatusConflict && r != "AlreadyExists")
	case ErrGone:
		return r == "Expired" || r == "Gone" || code == http.StatusGone
	case ErrTooManyRequests:
		return r == "TooManyRequests" || code == http.StatusTooManyRequests
	case ErrForbidden:
		return r == "Forbidden" || code == http.StatusForbidden
	case ErrUnauthorized:
		return r == "Unauthorized" || code == http.StatusUnauthorized
	case ErrInvalid:
		return r == "Invalid" || code == http.StatusUnprocessableEntity
	case ErrBadRequest:
		return r == "BadRequest" || code == http.StatusBadRequest
	case ErrMethodNotAllowed:
		return code == http.StatusMethodNotAllowed
	case ErrUnsupportedMedia:
		return code == http.StatusUnsupportedMediaType
	case ErrServerError:
		return code >= 500
	case ErrRVTooLarge:
		return e.hasCause("ResourceVersionTooLarge")
	}
	return false
}

func (e *StatusError) hasCause(t string) bool {
	if e.Status.Details == nil {
		return false
	}
	for _, c := range e.Status.Details.Causes {
		if c.Type == t {
			return true
		}
	}
	return false
}

// Predicates in the style of apimachinery's errors package.

// IsNotFound reports a 404 / NotFound.
func IsNotFound(err error) bool { return errors.Is(err, ErrNotFound) }

// IsAlreadyExists reports a create of a name that exists.
func IsAlreadyExists(err error) bool { return errors.Is(err, ErrAlreadyExists) }

// IsConflict reports a 409 from a stale resourceVersion or precondition.
func IsConflict(err error) bool { return errors.Is(err, ErrConflict) }

// IsGone reports 410 Gone / Expired: a resourceVersion or continue token too old.
func IsGone(err error) bool { return errors.Is(err, ErrGone) }

// IsTooManyRequests reports 429; see RetryAfter for how long to wait.
func IsTooManyRequests(err error) bool { return errors.Is(err, ErrTooManyRequests) }

// IsForbidden reports 403.
func IsForbidden(err error) bool { return errors.Is(err, ErrForbidden) }

// IsUnauthorized reports 401.
func IsUnauthorized(err error) bool { return errors.Is(err, ErrUnauthorized) }

// IsInvalid reports 422: the object failed validation.
func IsInvalid(err error) bool { return errors.Is(err, ErrInvalid) }

// IsResourceVersionTooLarge reports a read at a resourceVersion the server
// has not reached yet.
func IsResourceVersionTooLarge(err error) bool { return errors.Is(err, ErrRVTooLarge) }

// CauseNamespaceTerminating is the status cause the apiserver gives when it
// refuses to create an object in a namespace being deleted (core/v1's
// NamespaceTerminatingCause).
const CauseNamespaceTerminating = "NamespaceTerminating"

// IsNamespaceTerminating reports the apiserver refusing a create because the
// namespace is being deleted: a Status whose causes include
// CauseNamespaceTerminating (apimachinery's
// HasStatusCause(err, NamespaceTerminatingCause)). Controllers treat it as
// "nothing to do": the namespace and what they would have made in it are
// going away.
func IsNamespaceTerminating(err error) bool {
	var se *StatusError
	return errors.As(err, &se) && se.hasCause(CauseNamespaceTerminating)
}

// RetryAfter returns the delay the server asked for, if err carries one.
func RetryAfter(err error) (time.Duration, bool) {
	var se *StatusError
	if errors.As(err, &se) && se.RetryAfter > 0 {
		return se.RetryAfter, true
	}
	return 0, false
}

// newStatusError builds the error for a non-2xx response. body may be a
// Status, in JSON or in protobuf (protoStatus), or anything else (proxies
// answer with HTML): then the status line and a trimmed body stand in for
// the message.
func newStatusError(verb, path string, code int, header http.Header, body []byte) *StatusError {
	e := &StatusError{Verb: verb, Path: path}
	if s, ok := protoStatus(header.Get("Content-Type"), body); ok {
		e.Status = s
	} else if err := jsonx.Unmarshal(body, &e.Status); err != nil || e.Status.Kind != "Status" {
		e.Status = Status{Status: "Failure", Message: trimBody(body), Reason: reasonForCode(code)}
	}
	e.Status.Code = int32(code)
	if e.Status.Reason == "" {
		e.Status.Reason = reasonForCode(code)
	}
	e.RetryAfter = parseRetryAfter(header.Get("Retry-After"))
	if e.RetryAfter == 0 && e.Status.Details != nil && e.Status.Details.RetryAfterSeconds > 0 {
		e.RetryAfter = time.Duration(e.Status.Details.RetryAfterSeconds) * time.Second
	}
	return e
}

// StatusErrorFrom turns a Status received in an ERROR watch event into an
// error with the same predicates as a failed request.
func StatusErrorFrom(verb, path string, s Status) *StatusError {
	e := &StatusError{Verb: verb, Path: path, Status: s}
	if e.Status.Reason == "" {
		e.Status.Reason = reasonForCode(int(s.Code))
	}
	if s.Details != nil && s.Details.RetryAfterSeconds > 0 {
		e.RetryAfter = time.Duration(s.Details.RetryAfterSeconds) * time.Second
	}
	return e
}

func parseRetryAfter(v string) time.Duration {
	if v == "" {
		return 0
	}
	if n, err := strconv.Atoi(v); err == nil && n > 0 {
		return time.Duration(n) * time.Second
	}
	return 0
}

func reasonForCode(code int) string {
	switch code {
	case 400:
		return "BadRequest"
	case 401:
		return "Unauthorized"
	case 403:
		return "Forbidden"
	case 404:
		return "NotFound"
	case 405:
		return "MethodNotAllowed"
	case 409:
		return "Conflict"
	case 410:
		return "Expired"
	case 415:
		return "UnsupportedMediaType"
	case 422:
		return "Invalid"
	case 429:
		return "TooManyRequests"
	case 500:
		return "InternalError"
	case 503:
		return "ServiceUnavailable"
	case 504:
		return "Timeout"
	}
	return "Unknown"
}

// trimBody shortens a non-Status body for an error message: surrounding
// whitespace dropped, at most 256 bytes, cut on a character boundary so the
// message stays valid UTF-8.
func trimBody(b []byte) string {
	const max = 256
	b = bytes.TrimSpace(b)
	if len(b) <= max {
		return string(b)
	}
	n := max
	for n > 0 && !utf8.RuneStart(b[n]) {
		n--
	}
	return string(b[:n]) + "..."
}

// ErrResponseTooLarge is wrapped by the error for a response body over the
// client's limit (DefaultMaxResponseBytes, WithMaxResponseBytes).
var ErrResponseTooLarge = errors.New("response body too large")

// ErrConnectionLost is wrapped, with its cause, by the error of a list or
// watch whose body failed mid-stream for a reason other than its end: an
// HTTP/2 connection lost or sent GOAWAY, a stream reset, a chunked body cut
// short. It is a transport failure, never ErrDecode: the bytes read were
// fine, the connection was not.
var ErrConnectionLost = errors.New("connection lost while reading the response")
