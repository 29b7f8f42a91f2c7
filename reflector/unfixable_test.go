package reflector_test

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"testing"
	"time"
)

// TestEngineRetriesWhatTheCLIStopsOn: 401 (after the client's credential
// refresh), a server certificate that does not verify and 404 are errors
// `kcm trace` stops on, because a person must act; the engine must not:
// a controller outlives an expired token, a rotated CA or a CRD that is
// installed later, so the reflector backs off (800 ms, doubling) and lists
// again after each, and syncs once the server answers.
func TestEngineRetriesWhatTheCLIStopsOn(t *testing.T) {
	h := run(t, listWatch())
	x509Err := &url.Error{Op: "Get", URL: "https://apiserver/api/v1/pods",
		Err: &tls.CertificateVerificationError{Err: x509.UnknownAuthorityError{}}}
	wait := 800 * time.Millisecond
	for _, err := range []error{
		statusErr(http.StatusUnauthorized, "Unauthorized"),
		fmt.Errorf("GET /api/v1/pods: %w", x509Err),
		statusErr(http.StatusNotFound, "NotFound"),
	} {
		h.lw.ExpectList().Fail(err)
		h.expectWait(wait)
		wait *= 2
	}
	h.listAt("100", pod("a", "100"))
	h.watchFrom("100")
	if err := h.stop(); !errors.Is(err, context.Canceled) {
		t.Fatalf("Run returned %v, want context.Canceled: only its context ends it", err)
	}
	want := []string{"start", "abort", "start", "abort", "start", "abort", "start", "replace a@100", "finish 100"}
	if got := h.sink.Ops(); !equal(got, want) {
		t.Fatalf("sink saw %q, want %q", got, want)
	}
}
