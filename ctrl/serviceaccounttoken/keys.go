package serviceaccounttoken

import (
	"errors"
	"fmt"
	"net/url"
	"strings"

	"github.com/kcmlab/kcm/kube/api"
)

// The loops' queues hold strings; upstream's hold structs
// (serviceAccountQueueKey, secretQueueKey). A key carries what a sync
// needs when the object is gone from the cache: the UID, so that a
// deleted and re-created object is not taken for the one the event was
// about, and, for a Secret, its account's name and UID from its
// annotations. Fields are path-escaped and joined by "/", so that an
// annotation holding a "/" cannot shift them; names and UIDs never need
// escaping, so keys read "team-a/builder/6b1f…".

// errBadKey: a key no handler of this controller makes; it is not retried.
var errBadKey = errors.New("invalid queue key")

// accountKey is upstream's serviceAccountQueueKey.
type accountKey struct{ namespace, name, uid string }

// secretKey is upstream's secretQueueKey; saUID is empty for a token whose
// account UID annotation is not set yet.
type secretKey struct{ namespace, name, uid, saName, saUID string }

func joinKey(fields ...string) string {
	for i, f := range fields {
		fields[i] = url.PathEscape(f)
	}
	return strings.Join(fields, "/")
}

func splitKey(key string, n int) ([]string, error) {
	fields := strings.Split(key, "/")
	if len(fields) != n {
		return nil, fmt.Errorf("%w: %q", errBadKey, key)
	}
	for i, f := range fields {
		u, err := url.PathUnescape(f)
		if err != nil {
			return nil, fmt.Errorf("%w: %q: %v", errBadKey, key, err)
		}
		fields[i] = u
	}
	return fields, nil
}

// AccountKey is the service-account loop's key for sa.
func AccountKey(sa *api.ServiceAccount) string { return joinKey(sa.Namespace, sa.Name, sa.UID) }

// parseAccountKey refuses a key without namespace, name or UID, as
// upstream's parseServiceAccountKey does.
func parseAccountKey(key string) (accountKey, error) {
	f, err := splitKey(key, 3)
	if err != nil {
		return accountKey{}, err
	}
	k := accountKey{f[0], f[1], f[2]}
	if k.namespace == "" || k.name == "" || k.uid == "" {
		return accountKey{}, fmt.Errorf("%w: %q", errBadKey, key)
	}
	return k, nil
}

// SecretKey is the secret loop's key for s.
func SecretKey(s *api.Secret) string {
	return joinKey(s.Namespace, s.Name, s.UID, s.Annotations[api.ServiceAccountNameKey], s.Annotations[api.ServiceAccountUIDKey])
}

// parseSecretKey refuses a key without namespace, name, UID or account
// name (upstream's parseSecretQueueKey): a token Secret that names no
// account is left alone.
func parseSecretKey(key string) (secretKey, error) {
	f, err := splitKey(key, 5)
	if err != nil {
		return secretKey{}, err
	}
	k := secretKey{f[0], f[1], f[2], f[3], f[4]}
	if k.namespace == "" || k.name == "" || k.uid == "" || k.saName == "" {
		return secretKey{}, fmt.Errorf("%w: %q", errBadKey, key)
	}
	return k, nil
}
