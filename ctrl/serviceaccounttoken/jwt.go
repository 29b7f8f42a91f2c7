package serviceaccounttoken

import (
	"crypto"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/rsa"
	"crypto/sha256"
	"crypto/x509"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io"

	"github.com/rs/zerolog"

	"github.com/kcmlab/kcm/kube/api"
)

// LegacyIssuer is the iss claim of every secret-based token
// (k8s.io/kubernetes/pkg/serviceaccount's LegacyIssuer); kube-apiserver
// always accepts it beside its --service-account-issuer values.
const LegacyIssuer = "kubernetes/serviceaccount"

// Claims are a legacy token's claims (pkg/serviceaccount LegacyClaims):
// the subject "system:serviceaccount:<namespace>:<name>" and the four
// private kubernetes.io/serviceaccount/* claims. kube-apiserver checks
// that sub agrees with the namespace and name claims and, with
// --service-account-lookup (its default), that the Secret and account
// still exist with these names and UID.
//
// The fields are in the order of their JSON names, so the payload is
// byte for byte what upstream's generator writes (go-jose merges the
// claims into a map, which encoding/json writes sorted).
type Claims struct {
	Issuer             string `json:"iss"`
	Namespace          string `json:"kubernetes.io/serviceaccount/namespace"`
	SecretName         string `json:"kubernetes.io/serviceaccount/secret.name"`
	ServiceAccountName string `json:"kubernetes.io/serviceaccount/service-account.name"`
	ServiceAccountUID  string `json:"kubernetes.io/serviceaccount/service-account.uid"`
	Subject            string `json:"sub"`
}

// LegacyClaims are the claims of the token for secret, which belongs to
// sa.
func LegacyClaims(sa *api.ServiceAccount, secret *api.Secret) Claims {
	return Claims{
		Issuer:             LegacyIssuer,
		Subject:            "system:serviceaccount:" + sa.Namespace + ":" + sa.Name,
		Namespace:          sa.Namespace,
		ServiceAccountName: sa.Name,
		ServiceAccountUID:  sa.UID,
		SecretName:         secret.Name,
	}
}

// Signer writes tokens as compact JWS (RFC 7515) signed with one private
// key, as upstream's JWTTokenGenerator does with go-jose: RS256 for an RSA
// key; ES256, ES384 or ES512 for an ECDSA key on P-256, P-384 or P-521.
// The header is {"alg":…,"kid":…}, kid being the unpadded base64url
// SHA-256 of the public key's PKIX DER (upstream's keyIDFromPublicKey).
//
// A Signer never shows its key: every fmt verb, json.Marshal and zerolog
// render only the algorithm and key ID. It is safe for concurrent use.
type Signer struct {
	key    crypto.Signer
	alg    string
	kid    string
	hash   crypto.Hash
	size   int    // ECDSA: bytes of each of r and s
	header string // encoded header, the JWS's first part
	rand   io.Reader
}

// NewSigner returns the Signer for an *rsa.PrivateKey or an
// *ecdsa.PrivateKey on P-256, P-384 or P-521; any other key is an
// ErrInvalidKey.
func NewSigner(key crypto.Signer) (*Signer, error) {
	s := &Signer{key: key, rand: rand.Reader}
	switch k := key.(type) {
	case *rsa.PrivateKey:
		s.alg, s.hash = "RS256", crypto.SHA256
	case *ecdsa.PrivateKey:
		switch k.Curve {
		case elliptic.P256():
			s.alg, s.hash = "ES256", crypto.SHA256
		case elliptic.P384():
			s.alg, s.hash = "ES384", crypto.SHA384
		case elliptic.P521():
			s.alg, s.hash = "ES512", crypto.SHA512
		default:
			return nil, fmt.Errorf("%w: an ECDSA key on an unknown curve, must be P-256, P-384 or P-521", ErrInvalidKey)
		}
		s.size = (k.Curve.Params().BitSize + 7) / 8
	default:
		return nil, fmt.Errorf("%w: a key of type %T", ErrInvalidKey, key)
	}
	der, err := x509.MarshalPKIXPublicKey(key.Public())
	if err != nil {
		return nil, fmt.Errorf("serializing the public key: %w", err)
	}
	sum := sha256.Sum256(der)
	s.kid = base64.RawURLEncoding.EncodeToString(sum[:])
	h, err := json.Marshal(struct {
		Alg string `json:"alg"`
		Kid string `json:"kid"`
	}{s.alg, s.kid})
	if err != nil {
		return nil, err
	}
	s.header = base64.RawURLEncoding.EncodeToString(h)
	return s, nil
}

// Algorithm is the JWS alg: RS256, ES256, ES384 or ES512.
func (s *Signer) Algorithm() string { return s.alg }

// KeyID is the header's kid.
func (s *Signer) KeyID() string { return s.kid }

// Public is the public key that verifies the Signer's tokens.
func (s *Signer) Public() crypto.PublicKey { return s.key.Public() }

// Sign returns the token for c: header.payload.signature, each part
// unpadded base64url.
func (s *Signer) Sign(c Claims) (string, error) {
	payload, err := json.Marshal(c)
	if err != nil {
		return "", fmt.Errorf("encoding claims: %w", err)
	}
	input := s.header + "." + base64.RawURLEncoding.EncodeToString(payload)
	h := s.hash.New()
	h.Write([]byte(input))
	digest := h.Sum(nil)
	var sig []byte
	switch k := s.key.(type) {
	case *rsa.PrivateKey:
		sig, err = rsa.SignPKCS1v15(s.rand, k, s.hash, digest)
	case *ecdsa.PrivateKey:
		// JWS wants r and s as fixed-size big-endian integers (RFC 7518
		// section 3.4), not ASN.1.
		r, ss, e := ecdsa.Sign(s.rand, k, digest)
		if err = e; err == nil {
			sig = make([]byte, 2*s.size)
			r.FillBytes(sig[:s.size])
			ss.FillBytes(sig[s.size:])
		}
	}
	if err != nil {
		return "", fmt.Errorf("signing the token (%s): %w", s.alg, err)
	}
	return input + "." + base64.RawURLEncoding.EncodeToString(sig), nil
}

// redacted is what every rendering of a Signer shows.
func (s *Signer) redacted() string {
	if s == nil {
		return "Signer(nil)"
	}
	return fmt.Sprintf("Signer{alg: %s, kid: %s, key: [redacted]}", s.alg, s.kid)
}

// String, GoString and Format keep the key out of every fmt verb.
func (s *Signer) String() string   { return s.redacted() }
func (s *Signer) GoString() string { return s.redacted() }

// Format implements fmt.Formatter.
func (s *Signer) Format(f fmt.State, _ rune) { _, _ = io.WriteString(f, s.redacted()) }

// MarshalJSON renders the algorithm and key ID only.
func (s *Signer) MarshalJSON() ([]byte, error) {
	if s == nil {
		return []byte("null"), nil
	}
	return json.Marshal(map[string]string{"alg": s.alg, "kid": s.kid, "key": "[redacted]"})
}

// MarshalZerologObject renders the algorithm and key ID only.
func (s *Signer) MarshalZerologObject(e *zerolog.Event) {
	if s != nil {
		e.Str("alg", s.alg).Str("kid", s.kid).Str("key", "[redacted]")
	}
}
