package api_test

import (
	"testing"

	"github.com/kcmlab/kcm/kube/api"
	"github.com/kcmlab/kcm/kube/api/decode"
)

// TestSecretJSON: a token Secret as kube-apiserver returns it round-trips
// with nothing wrong or dropped under both codecs; data is base64 on the
// wire and bytes in memory; decode.Compact rebuilds the JSON as read.
func TestSecretJSON(t *testing.T) {
	const in = `{"kind":"Secret","apiVersion":"v1","metadata":{"name":"builder-token","namespace":"team-a","uid":"s1",
	"resourceVersion":"10","creationTimestamp":"2025-09-01T08:00:01Z",
	"annotations":{"kubernetes.io/service-account.name":"builder","kubernetes.io/service-account.uid":"u1"},
	"labels":{"kubernetes.io/legacy-token-last-used":"2025-09-02"}},
	"data":{"ca.crt":"LS0tLS1CRUdJTg==","namespace":"dGVhbS1h","token":"ZXlKaGJHY2lPaUpTVXpJMU5pSjkuZS5z"},
	"type":"kubernetes.io/service-account-token","immutable":false}`
	for _, c := range apiCodecs {
		s, out := apiRoundTrip[api.Secret](t, c, in)
		if s.Type != api.SecretTypeServiceAccountToken || string(s.Data[api.ServiceAccountNamespaceKey]) != "team-a" ||
			string(s.Data[api.ServiceAccountTokenKey]) != "eyJhbGciOiJSUzI1NiJ9.e.s" || s.Immutable == nil || *s.Immutable ||
			s.Annotations[api.ServiceAccountNameKey] != "builder" || s.Annotations[api.ServiceAccountUIDKey] != "u1" {
			t.Errorf("%s: %+v", c.name, s)
		}
		wrong, dropped := apiDiffPaths(t, in, out)
		apiMustEqualPaths(t, c.name+": wrong", wrong, nil)
		apiMustEqualPaths(t, c.name+": dropped", dropped, nil)
	}
	s, err := decode.Compact[api.Secret]().Decode([]byte(in))
	if err != nil {
		t.Fatal(err)
	}
	raw, err := s.Original()
	if err != nil || string(s.Data["ca.crt"]) != "-----BEGIN" {
		t.Fatalf("compact: %q, %v", s.Data, err)
	}
	wrong, dropped := apiDiffPaths(t, in, raw)
	apiMustEqualPaths(t, "compact: wrong", wrong, nil)
	apiMustEqualPaths(t, "compact: dropped", dropped, nil)
}
