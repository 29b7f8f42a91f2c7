package api

import (
	"errors"
	"fmt"
	"strings"
)

// ErrInvalidResourceVersion: a resourceVersion that CompareResourceVersion
// cannot order (empty, with a leading zero, or not all decimal digits).
var ErrInvalidResourceVersion = errors.New("resource version is not well formed")

// CompareResourceVersion orders two resourceVersions as Kubernetes'
// apimachinery (util/resourceversion) does since 1.35: resourceVersions
// are opaque to clients, but the apiserver's are decimal numbers without a
// leading zero, of any length, so the shorter is the older and two of one
// length compare digit by digit. It returns -1, 0 or +1 as a is older
// than, the same as, or newer than b, and an error wrapping
// ErrInvalidResourceVersion when either is not such a number — callers
// must then not conclude anything (a server with other resourceVersions).
func CompareResourceVersion(a, b string) (int, error) {
	for _, rv := range [2]string{a, b} {
		if !wellFormedResourceVersion(rv) {
			return 0, fmt.Errorf("%w: %q", ErrInvalidResourceVersion, rv)
		}
	}
	if len(a) != len(b) {
		if len(a) < len(b) {
			return -1, nil
		}
		return 1, nil
	}
	return strings.Compare(a, b), nil
}

// wellFormedResourceVersion: one or more decimal digits, the first not 0.
func wellFormedResourceVersion(rv string) bool {
	if rv == "" || rv[0] == '0' {
		return false
	}
	for i := range len(rv) {
		if rv[i] < '0' || rv[i] > '9' {
			return false
		}
	}
	return true
}
