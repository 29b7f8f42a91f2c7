package serviceaccounttoken

import (
	"bytes"
	"crypto"
	"crypto/ecdsa"
	"crypto/rsa"
	"crypto/sha256"
	"crypto/sha512"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"math/big"
	"path/filepath"
	"strings"
	"testing"

	"github.com/kcmlab/kcm/kube/api"
)

// The vectors below were produced once by upstream's own generator —
// go-jose v2.6.3 driven as k8s.io/kubernetes@v1.37.2 pkg/serviceaccount
// GenerateToken drives it (jwt.Signed(signer).Claims(private).
// Claims(sub).Claims(iss).CompactSerialize(), the JWK carrying
// keyIDFromPublicKey's kid) — over the test keys in testdata and these
// claims. RS256 (PKCS #1 v1.5) is deterministic, so a whole token must
// match; ECDSA signatures are randomised, so for ES* the signed input
// (header and payload) must match and the signature must verify.
var (
	vectorAccount = &api.ServiceAccount{ObjectMeta: api.ObjectMeta{Namespace: "team-a", Name: "builder", UID: "6b1f0c3e-1111-4a2b-9c3d-0123456789ab"}}
	vectorSecret  = &api.Secret{ObjectMeta: api.ObjectMeta{Namespace: "team-a", Name: "builder-token"}}
)

const (
	vectorPayload = "eyJpc3MiOiJrdWJlcm5ldGVzL3NlcnZpY2VhY2NvdW50Iiwia3ViZXJuZXRlcy5pby9zZXJ2aWNlYWNjb3VudC9uYW1lc3BhY2UiOiJ0ZWFtLWEiLCJrdWJlcm5ldGVzLmlvL3NlcnZpY2VhY2NvdW50L3NlY3JldC5uYW1lIjoiYnVpbGRlci10b2tlbiIsImt1YmVybmV0ZXMuaW8vc2VydmljZWFjY291bnQvc2VydmljZS1hY2NvdW50Lm5hbWUiOiJidWlsZGVyIiwia3ViZXJuZXRlcy5pby9zZXJ2aWNlYWNjb3VudC9zZXJ2aWNlLWFjY291bnQudWlkIjoiNmIxZjBjM2UtMTExMS00YTJiLTljM2QtMDEyMzQ1Njc4OWFiIiwic3ViIjoic3lzdGVtOnNlcnZpY2VhY2NvdW50OnRlYW0tYTpidWlsZGVyIn0"
	vectorRS256   = "eyJhbGciOiJSUzI1NiIsImtpZCI6IkJMWDNXUWwyWVI0NXg1TmZ2WGZjRFl5LUNnYVhCb1ptQXdHSXJBS2hOUmMifQ." + vectorPayload +
		".HZEZIN9Og3TKWs5Uxm17JZ-nkxUvQKJGFUke3CnjcB3QStDk92MPIzp3A5-w8wfLRwaO9_uMZn97Dwd1gZykBX7b_dO3jG9ehl8HIRgUtCPSTBTmf9QAHI-9_qL0HDd69QxHDnMYdhp5Vcwh1ZX3Ax74-b0Xg7Qa8cG-sZz_tGj9_TIVPsiHxIT3ltawwI4Q_HfS0vfNpuixpPoToAyJfN0vhZg92u_cVeYb7backZ_2TMx9MxjEP8TcUbOrvA2jdPlGXR-ci5zj9JNnAeVu0j8iaTacGp-BuYKygF-V68SAM02iXsUilYuWPVT9fHrj76RPUywkqY4rz0170xz9tA"
)

var vectors = []struct {
	file, alg, kid, header string
	sigBytes               int
	whole                  string // the whole token, for deterministic signatures
}{
	{"rsa-pkcs1.pem", "RS256", "BLX3WQl2YR45x5NfvXfcDYy-CgaXBoZmAwGIrAKhNRc", "eyJhbGciOiJSUzI1NiIsImtpZCI6IkJMWDNXUWwyWVI0NXg1TmZ2WGZjRFl5LUNnYVhCb1ptQXdHSXJBS2hOUmMifQ", 256, vectorRS256},
	{"rsa-pkcs8.pem", "RS256", "BLX3WQl2YR45x5NfvXfcDYy-CgaXBoZmAwGIrAKhNRc", "eyJhbGciOiJSUzI1NiIsImtpZCI6IkJMWDNXUWwyWVI0NXg1TmZ2WGZjRFl5LUNnYVhCb1ptQXdHSXJBS2hOUmMifQ", 256, vectorRS256},
	{"ec-p256-sec1.pem", "ES256", "QMY9BTOplhdXaP9qLbK04Oa2bCmSQR2IbmX7U4dEuLk", "eyJhbGciOiJFUzI1NiIsImtpZCI6IlFNWTlCVE9wbGhkWGFQOXFMYkswNE9hMmJDbVNRUjJJYm1YN1U0ZEV1TGsifQ", 64, ""},
	{"ec-p384-pkcs8.pem", "ES384", "8qk24IE4s_ubsbh6pVwlMq4TX9mOBu-k2eFifFs6wzM", "eyJhbGciOiJFUzM4NCIsImtpZCI6IjhxazI0SUU0c191YnNiaDZwVndsTXE0VFg5bU9CdS1rMmVGaWZGczZ3ek0ifQ", 96, ""},
	{"ec-p521-sec1.pem", "ES512", "f-4NyPzOwOBs5vYXBeNBkMYxvxwPd2dy0aElgRedyIk", "eyJhbGciOiJFUzUxMiIsImtpZCI6ImYtNE55UHpPd09CczV2WVhCZU5Ca01ZeHZ4d1BkMmR5MGFFbGdSZWR5SWsifQ", 132, ""},
}

func testSigner(t testing.TB, file string) *Signer {
	t.Helper()
	key, err := ReadKeyFile(filepath.Join("testdata", file))
	if err != nil {
		t.Fatal(err)
	}
	s, err := NewSigner(key)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// verify checks token's signature with pub, as kube-apiserver does with
// --service-account-key-file, and returns its header and claims.
func verify(t testing.TB, token string, pub crypto.PublicKey) (header map[string]string, claims map[string]any) {
	t.Helper()
	parts := strings.Split(token, ".")
	if len(parts) != 3 {
		t.Fatalf("token %q has %d parts", token, len(parts))
	}
	sig, err := base64.RawURLEncoding.DecodeString(parts[2])
	if err != nil {
		t.Fatal(err)
	}
	input := []byte(parts[0] + "." + parts[1])
	switch k := pub.(type) {
	case *rsa.PublicKey:
		sum := sha256.Sum256(input)
		if err := rsa.VerifyPKCS1v15(k, crypto.SHA256, sum[:], sig); err != nil {
			t.Fatalf("RS256 signature does not verify: %v", err)
		}
	case *ecdsa.PublicKey:
		var digest []byte
		switch k.Curve.Params().BitSize {
		case 256:
			s := sha256.Sum256(input)
			digest = s[:]
		case 384:
			s := sha512.Sum384(input)
			digest = s[:]
		case 521:
			s := sha512.Sum512(input)
			digest = s[:]
		}
		n := len(sig) / 2
		r, s := new(big.Int).SetBytes(sig[:n]), new(big.Int).SetBytes(sig[n:])
		if !ecdsa.Verify(k, digest, r, s) {
			t.Fatalf("ECDSA signature does not verify")
		}
	default:
		t.Fatalf("public key %T", pub)
	}
	for i, out := range []any{&header, &claims} {
		b, err := base64.RawURLEncoding.DecodeString(parts[i])
		if err != nil {
			t.Fatal(err)
		}
		if err := json.Unmarshal(b, out); err != nil {
			t.Fatal(err)
		}
	}
	return header, claims
}

// TestSignMatchesUpstream: for each key kind, the header (alg, kid) and
// payload are byte for byte upstream's; an RS256 token is upstream's
// whole; every signature verifies with the public key and has JWS's
// fixed size (RFC 7518 3.4 for ECDSA: r||s, each the curve's size).
func TestSignMatchesUpstream(t *testing.T) {
	for _, v := range vectors {
		t.Run(v.file, func(t *testing.T) {
			s := testSigner(t, v.file)
			if s.Algorithm() != v.alg || s.KeyID() != v.kid {
				t.Fatalf("alg %s kid %s, want %s %s", s.Algorithm(), s.KeyID(), v.alg, v.kid)
			}
			token, err := s.Sign(LegacyClaims(vectorAccount, vectorSecret))
			if err != nil {
				t.Fatal(err)
			}
			if want := v.header + "." + vectorPayload + "."; !strings.HasPrefix(token, want) {
				t.Fatalf("signed input differs from upstream's:\n got %s\nwant %s…", token, want)
			}
			if v.whole != "" && token != v.whole {
				t.Fatalf("token differs from upstream's:\n got %s\nwant %s", token, v.whole)
			}
			sig, _ := base64.RawURLEncoding.DecodeString(token[strings.LastIndexByte(token, '.')+1:])
			if len(sig) != v.sigBytes {
				t.Fatalf("signature of %d bytes, want %d", len(sig), v.sigBytes)
			}
			header, _ := verify(t, token, s.Public())
			if header["alg"] != v.alg || header["kid"] != v.kid || len(header) != 2 {
				t.Fatalf("header %v", header)
			}
		})
	}
}

// TestLegacyClaims: the claims of pkg/serviceaccount LegacyClaims and the
// legacy issuer — what kube-apiserver's legacy validator requires (sub
// agreeing with namespace and name, the secret name, the account UID).
func TestLegacyClaims(t *testing.T) {
	s := testSigner(t, "ec-p256-sec1.pem")
	token, err := s.Sign(LegacyClaims(vectorAccount, vectorSecret))
	if err != nil {
		t.Fatal(err)
	}
	_, claims := verify(t, token, s.Public())
	want := map[string]any{
		"iss":                                    "kubernetes/serviceaccount",
		"sub":                                    "system:serviceaccount:team-a:builder",
		"kubernetes.io/serviceaccount/namespace": "team-a",
		"kubernetes.io/serviceaccount/secret.name":          "builder-token",
		"kubernetes.io/serviceaccount/service-account.name": "builder",
		"kubernetes.io/serviceaccount/service-account.uid":  "6b1f0c3e-1111-4a2b-9c3d-0123456789ab",
	}
	if fmt.Sprint(claims) != fmt.Sprint(want) {
		t.Fatalf("claims\n got %v\nwant %v", claims, want)
	}
}

// TestSignerNeverShowsItsKey: no fmt verb, json.Marshal or zerolog
// rendering of a Signer (alone, in a struct, in a slice) holds any part
// of the private key, in decimal, hex or the PEM's base64.
func TestSignerNeverShowsItsKey(t *testing.T) {
	for _, file := range []string{"rsa-pkcs1.pem", "ec-p256-sec1.pem"} {
		s := testSigner(t, file)
		var secrets []string
		switch k := s.key.(type) {
		case *rsa.PrivateKey:
			secrets = append(secrets, k.D.String(), k.D.Text(16), k.Primes[0].String(), k.Primes[0].Text(16))
		case *ecdsa.PrivateKey:
			d, _ := k.Bytes()
			secrets = append(secrets, new(big.Int).SetBytes(d).String(), fmt.Sprintf("%x", d), fmt.Sprintf("%X", d))
		}
		pemText := mustRead(t, filepath.Join("testdata", file))
		for _, line := range strings.Split(pemText, "\n")[1:3] {
			secrets = append(secrets, line[:32])
		}
		wrapped := struct {
			S  *Signer
			SS []*Signer
		}{s, []*Signer{s}}
		var out []string
		for _, verb := range []string{"%v", "%+v", "%#v", "%s", "%q", "%x", "%X", "%d", "%t"} {
			out = append(out, fmt.Sprintf(verb, s), fmt.Sprintf(verb, wrapped), fmt.Sprintf(verb, []*Signer{s}))
		}
		j, err := json.Marshal(wrapped)
		if err != nil {
			t.Fatal(err)
		}
		var buf bytes.Buffer
		logger := zeroLogger(&buf)
		logger.Info().Object("signer", s).Interface("any", s).Msg("x")
		out = append(out, string(j), buf.String())
		all := strings.Join(out, "\n")
		for _, sec := range secrets {
			if strings.Contains(all, sec) {
				t.Fatalf("%s: a rendering shows key material %q:\n%s", file, sec, all)
			}
		}
		if !strings.Contains(all, s.KeyID()) {
			t.Fatalf("renderings should name the key ID:\n%s", all)
		}
	}
}
