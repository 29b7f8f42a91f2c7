package api

// This file holds core/v1 Secret, which the serviceaccount-token
// controller fills and the legacy-serviceaccount-token-cleaner deletes,
// and the names Kubernetes gives to a service-account token Secret's
// type, annotations and keys (k8s.io/api core/v1 types.go).

var _ Object = (*Secret)(nil)

// Secret is a core/v1 Secret. Data travels base64-encoded and is bytes in
// memory; stringData is write-only on the server and not modelled.
type Secret struct {
	TypeMeta
	ObjectMeta `json:"metadata" pb:"1"`
	Immutable  *bool             `json:"immutable,omitempty" pb:"5"`
	Data       map[string][]byte `json:"data,omitempty" pb:"2"`
	Type       SecretType        `json:"type,omitempty" pb:"3"`
}

// SecretType is a Secret's type, e.g. "kubernetes.io/service-account-token".
type SecretType string

// SecretTypeOpaque is the default type; SecretTypeServiceAccountToken marks a
// legacy service-account token Secret, which the token controller fills.
const (
	SecretTypeOpaque              SecretType = "Opaque"
	SecretTypeServiceAccountToken SecretType = "kubernetes.io/service-account-token"
)

// The annotations that bind a token Secret to its ServiceAccount, and the
// keys of its data (core/v1 ServiceAccountNameKey, ServiceAccountUIDKey,
// ServiceAccountTokenKey, ServiceAccountKubeconfigKey's siblings
// ServiceAccountRootCAKey and ServiceAccountNamespaceKey).
const (
	ServiceAccountNameKey      = "kubernetes.io/service-account.name"
	ServiceAccountUIDKey       = "kubernetes.io/service-account.uid"
	ServiceAccountTokenKey     = "token"
	ServiceAccountRootCAKey    = "ca.crt"
	ServiceAccountNamespaceKey = "namespace"
)
