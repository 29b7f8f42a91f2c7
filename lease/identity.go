package lease

import (
	"crypto/rand"
	"fmt"
	"os"
)

// DefaultIdentity returns "<hostname>_<random UUID>", the form
// kube-controller-manager uses: the hostname tells people which machine
// leads, the random part keeps two processes on one host (or a restarted
// process) from sharing an identity.
func DefaultIdentity() (string, error) {
	host, err := os.Hostname()
	if err != nil {
		return "", fmt.Errorf("lease: default identity: %w", err)
	}
	return host + "_" + newUUID(), nil
}

// newUUID returns a random (version 4) UUID in its textual form.
func newUUID() string {
	var b [16]byte
	_, _ = rand.Read(b[:]) // crypto/rand.Read never fails (Go 1.24+)
	b[6] = b[6]&0x0f | 0x40
	b[8] = b[8]&0x3f | 0x80
	return fmt.Sprintf("%x-%x-%x-%x-%x", b[0:4], b[4:6], b[6:8], b[8:10], b[10:16])
}
