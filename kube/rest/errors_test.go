package rest

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"reflect"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/kcmlab/kcm/kube/api"
)

// TestStatusErrorFromNonStatusBody: a proxy or load balancer in front of the
// apiserver answers with HTML; the error keeps the HTTP code and a trimmed
// body, and the predicates still work from the code.
func TestStatusErrorFromNonStatusBody(t *testing.T) {
	long := "<html><body>" + strings.Repeat("é", 300) + "</body></html>"
	tests := []struct {
		name      string
		code      int
		body      string
		wantMsg   string
		wantRsn   string
		predicate func(error) bool
	}{
		{"502 html", 502, "\n<html><body>Bad Gateway</body></html>\n", "<html><body>Bad Gateway</body></html>", "Unknown",
			func(err error) bool { return errors.Is(err, ErrServerError) }},
		{"503 text", 503, "upstream connect error", "upstream connect error", "ServiceUnavailable",
			func(err error) bool { return errors.Is(err, ErrServerError) }},
		{"404 text", 404, "404 page not found\n", "404 page not found", "NotFound", IsNotFound},
		{"403 empty", 403, "", "", "Forbidden", IsForbidden},
		{"429 json but not a Status", 429, `{"error":"slow down"}`, `{"error":"slow down"}`, "TooManyRequests", IsTooManyRequests},
		{"500 long", 500, long, "", "InternalError", func(err error) bool { return errors.Is(err, ErrServerError) }},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			e := newStatusError("GET", "/api/v1/pods", tc.code, http.Header{}, []byte(tc.body))
			if e.Status.Code != int32(tc.code) || e.Status.Reason != tc.wantRsn || e.Status.Status != "Failure" {
				t.Fatalf("status %+v", e.Status)
			}
			msg := e.Status.Message
			if tc.name == "500 long" {
				if !strings.HasSuffix(msg, "...") || len(msg) > 256+3 || !utf8.ValidString(msg) || !strings.HasPrefix(msg, "<html><body>é") {
					t.Fatalf("long body trimmed to %q (%d bytes)", msg, len(msg))
				}
			} else if msg != tc.wantMsg {
				t.Fatalf("message %q, want %q", msg, tc.wantMsg)
			}
			if !tc.predicate(e) {
				t.Fatalf("predicate false for %v", e)
			}
			if s := e.Error(); !strings.Contains(s, fmt.Sprint(tc.code)) || !strings.Contains(s, "GET /api/v1/pods") {
				t.Fatalf("Error() = %q lacks the code or the request", s)
			}
		})
	}
}

// TestStatusErrorThroughClient: the same, end to end: an HTML 502 from a
// proxy in front of the server.
func TestStatusErrorThroughClient(t *testing.T) {
	rcNoLeaks(t)
	sc := &rcScript{replies: []rcReply{{code: 502, body: "<html>Bad Gateway</html>\n", header: map[string]string{"Content-Type": "text/html"}}}}
	c := rcClient(t, rcServer(t, sc).URL, nil, WithRetryPolicy(RetryPolicy{MaxAttempts: 1}))
	_, err := rcConfigMaps(c).Get(context.Background(), "cm1")
	var se *StatusError
	if !errors.As(err, &se) || se.Status.Code != 502 || se.Status.Message != "<html>Bad Gateway</html>" ||
		se.Verb != "GET" || se.Path != "/api/v1/namespaces/ns1/configmaps/cm1" {
		t.Fatalf("err = %#v", err)
	}
}

// TestStatusErrorKeepsStatus: a meta/v1 Status body is kept whole:
// message, reason, details and causes (API conventions, "Response Status
// Kind").
func TestStatusErrorKeepsStatus(t *testing.T) {
	body := `{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure",` +
		`"message":"Pod \"p\" is invalid: spec.containers[0].image: Required value","reason":"Invalid",` +
		`"details":{"name":"p","kind":"Pod","causes":[{"reason":"FieldValueRequired","message":"Required value","field":"spec.containers[0].image"}]},` +
		`"code":422}`
	e := newStatusError("POST", "/api/v1/namespaces/ns/pods", 422, http.Header{}, []byte(body))
	want := Status{TypeMeta: api.TypeMeta{APIVersion: "v1", Kind: "Status"}, Status: "Failure",
		Message: `Pod "p" is invalid: spec.containers[0].image: Required value`, Reason: "Invalid", Code: 422,
		Details: &StatusDetails{Name: "p", Kind: "Pod", Causes: []StatusCause{{Type: "FieldValueRequired", Message: "Required value", Field: "spec.containers[0].image"}}}}
	if !reflect.DeepEqual(e.Status, want) {
		t.Fatalf("status\n got %+v %+v\nwant %+v %+v", e.Status, *e.Status.Details, want, *want.Details)
	}
	if !IsInvalid(e) {
		t.Fatal("IsInvalid false")
	}
	if got := e.Error(); got != `POST /api/v1/namespaces/ns/pods: 422 Invalid: Pod "p" is invalid: spec.containers[0].image: Required value` {
		t.Fatalf("Error() = %q", got)
	}
	// A Status without a reason gets one from the code.
	e = newStatusError("GET", "/x", 404, http.Header{}, []byte(`{"kind":"Status","code":404}`))
	if e.Status.Reason != "NotFound" || !IsNotFound(e) || e.Error() != "GET /x: 404 NotFound: Not Found" {
		t.Fatalf("reasonless Status: %+v, %q", e.Status, e.Error())
	}
}

// TestErrorPredicates: each predicate and sentinel for its code and reason
// (apimachinery's StatusReason values; "Expired" is what a too-old
// resourceVersion gets since 1.x, older servers said "Gone").
func TestErrorPredicates(t *testing.T) {
	preds := []struct {
		name     string
		fn       func(error) bool
		sentinel error
	}{
		{"NotFound", IsNotFound, ErrNotFound},
		{"AlreadyExists", IsAlreadyExists, ErrAlreadyExists},
		{"Conflict", IsConflict, ErrConflict},
		{"Gone", IsGone, ErrGone},
		{"TooManyRequests", IsTooManyRequests, ErrTooManyRequests},
		{"Forbidden", IsForbidden, ErrForbidden},
		{"Unauthorized", IsUnauthorized, ErrUnauthorized},
		{"Invalid", IsInvalid, ErrInvalid},
		{"RVTooLarge", IsResourceVersionTooLarge, ErrRVTooLarge},
		{"BadRequest", func(err error) bool { return errors.Is(err, ErrBadRequest) }, ErrBadRequest},
		{"MethodNotAllowed", func(err error) bool { return errors.Is(err, ErrMethodNotAllowed) }, ErrMethodNotAllowed},
		{"UnsupportedMedia", func(err error) bool { return errors.Is(err, ErrUnsupportedMedia) }, ErrUnsupportedMedia},
		{"ServerError", func(err error) bool { return errors.Is(err, ErrServerError) }, ErrServerError},
	}
	rvTooLarge := &StatusDetails{Causes: []StatusCause{{Type: "ResourceVersionTooLarge", Message: "Too large resource version"}}, RetryAfterSeconds: 1}
	tests := []struct {
		code   int32
		reason string
		det    *StatusDetails
		want   []string // predicates that hold
	}{
		{404, "NotFound", nil, []string{"NotFound"}},
		{404, "", nil, []string{"NotFound"}},
		{409, "AlreadyExists", nil, []string{"AlreadyExists"}},
		{409, "Conflict", nil, []string{"Conflict"}},
		{409, "", nil, []string{"Conflict"}},
		{410, "Expired", nil, []string{"Gone"}},
		{410, "Gone", nil, []string{"Gone"}},
		{429, "TooManyRequests", nil, []string{"TooManyRequests"}},
		{403, "Forbidden", nil, []string{"Forbidden"}},
		{401, "Unauthorized", nil, []string{"Unauthorized"}},
		{422, "Invalid", nil, []string{"Invalid"}},
		{400, "BadRequest", nil, []string{"BadRequest"}},
		{405, "MethodNotAllowed", nil, []string{"MethodNotAllowed"}},
		{415, "UnsupportedMediaType", nil, []string{"UnsupportedMedia"}},
		{500, "InternalError", nil, []string{"ServerError"}},
		{503, "ServiceUnavailable", nil, []string{"ServerError"}},
		// "Too large resource version": a 504 Timeout with a
		// ResourceVersionTooLarge cause and retryAfterSeconds 1.
		{504, "Timeout", rvTooLarge, []string{"RVTooLarge", "ServerError"}},
		{200, "", nil, nil},
	}
	for _, tc := range tests {
		e := StatusErrorFrom("GET", "/p", Status{Code: tc.code, Reason: tc.reason, Details: tc.det})
		for _, wrapped := range []error{e, fmt.Errorf("outer: %w", e)} {
			for _, p := range preds {
				want := false
				for _, w := range tc.want {
					want = want || w == p.name
				}
				if got := p.fn(wrapped); got != want {
					t.Errorf("%d %q: Is%s = %v, want %v", tc.code, tc.reason, p.name, got, want)
				}
				if got := errors.Is(wrapped, p.sentinel); got != want {
					t.Errorf("%d %q: errors.Is(%v) = %v, want %v", tc.code, tc.reason, p.sentinel, got, want)
				}
			}
		}
	}
	for _, p := range preds {
		if p.fn(nil) || p.fn(errors.New(p.name)) || p.fn(api.ErrDecode) {
			t.Errorf("Is%s true for an error that is not a StatusError", p.name)
		}
		if !errors.Is(fmt.Errorf("x: %w", p.sentinel), p.sentinel) {
			t.Errorf("sentinel %s does not match itself", p.name)
		}
	}
	var se *StatusError
	if se.Is(nil) != false {
		t.Error("nil target matched")
	}
}

// TestRetryAfter: the Retry-After header (seconds) or
// details.retryAfterSeconds, the header first.
func TestRetryAfter(t *testing.T) {
	withDetails := rcStatus(429, "TooManyRequests", "slow down")
	withDetails = strings.Replace(withDetails, `"code":429`, `"code":429,"details":{"retryAfterSeconds":7}`, 1)
	tests := []struct {
		name   string
		header string
		body   string
		want   time.Duration
	}{
		{"header", "3", rcStatus(429, "TooManyRequests", "x"), 3 * time.Second},
		{"details", "", withDetails, 7 * time.Second},
		{"header wins", "2", withDetails, 2 * time.Second},
		{"zero header ignored", "0", rcStatus(429, "TooManyRequests", "x"), 0},
		{"negative header ignored", "-5", rcStatus(429, "TooManyRequests", "x"), 0},
		// HTTP-date is legal HTTP but the apiserver sends seconds; kcm
		// reads seconds only.
		{"date header ignored", "Wed, 21 Oct 2015 07:28:00 GMT", "", 0},
		{"none", "", "", 0},
	}
	for _, tc := range tests {
		h := http.Header{}
		if tc.header != "" {
			h.Set("Retry-After", tc.header)
		}
		e := newStatusError("GET", "/p", 429, h, []byte(tc.body))
		d, ok := RetryAfter(fmt.Errorf("wrapped: %w", e))
		if d != tc.want || ok != (tc.want > 0) || e.RetryAfter != tc.want {
			t.Errorf("%s: RetryAfter = %v, %v; want %v", tc.name, d, ok, tc.want)
		}
	}
	if _, ok := RetryAfter(errors.New("plain")); ok {
		t.Error("RetryAfter of a plain error")
	}
	e := StatusErrorFrom("WATCH", "/p", Status{Code: 504, Details: &StatusDetails{RetryAfterSeconds: 1}})
	if e.RetryAfter != time.Second || e.Status.Reason != "Timeout" {
		t.Errorf("StatusErrorFrom: %+v", e)
	}
}

// TestResourceVersionTooLarge: the shape kube-apiserver sends for a read at
// a resourceVersion it has not reached (a reflector must wait and retry,
// not relist in a loop).
func TestResourceVersionTooLarge(t *testing.T) {
	body := `{"kind":"Status","apiVersion":"v1","status":"Failure","message":"Timeout: Too large resource version: 999, current: 5",` +
		`"reason":"Timeout","details":{"causes":[{"reason":"ResourceVersionTooLarge","message":"Too large resource version"}],"retryAfterSeconds":1},"code":504}`
	e := newStatusError("GET", "/api/v1/pods", 504, http.Header{}, []byte(body))
	if !IsResourceVersionTooLarge(e) || IsGone(e) || e.RetryAfter != time.Second {
		t.Fatalf("too large RV: %+v", e)
	}
	if IsResourceVersionTooLarge(newStatusError("GET", "/p", 504, http.Header{}, []byte(rcStatus(504, "Timeout", "x")))) {
		t.Fatal("plain 504 reported as RV too large")
	}
}
