package serviceaccounttoken_test

import (
	"encoding/base64"
	"fmt"
	"strings"

	"github.com/kcmlab/kcm/ctrl/serviceaccounttoken"
	"github.com/kcmlab/kcm/kube/api"
)

// ExampleSigner_Sign signs the legacy token of Secret team-a/builder-token
// for ServiceAccount team-a/builder with an RSA key, as the controller
// does when it fills the Secret, and shows the token's header and claims.
// The Signer itself prints without its key.
func ExampleSigner_Sign() {
	key, err := serviceaccounttoken.ReadKeyFile("testdata/rsa-pkcs1.pem")
	if err != nil {
		panic(err)
	}
	signer, err := serviceaccounttoken.NewSigner(key)
	if err != nil {
		panic(err)
	}
	sa := &api.ServiceAccount{ObjectMeta: api.ObjectMeta{Namespace: "team-a", Name: "builder", UID: "6b1f0c3e"}}
	secret := &api.Secret{ObjectMeta: api.ObjectMeta{Namespace: "team-a", Name: "builder-token"}}
	token, err := signer.Sign(serviceaccounttoken.LegacyClaims(sa, secret))
	if err != nil {
		panic(err)
	}
	parts := strings.Split(token, ".")
	for _, p := range parts[:2] {
		b, _ := base64.RawURLEncoding.DecodeString(p)
		fmt.Println(string(b))
	}
	fmt.Println(signer)
	// Output:
	// {"alg":"RS256","kid":"BLX3WQl2YR45x5NfvXfcDYy-CgaXBoZmAwGIrAKhNRc"}
	// {"iss":"kubernetes/serviceaccount","kubernetes.io/serviceaccount/namespace":"team-a","kubernetes.io/serviceaccount/secret.name":"builder-token","kubernetes.io/serviceaccount/service-account.name":"builder","kubernetes.io/serviceaccount/service-account.uid":"6b1f0c3e","sub":"system:serviceaccount:team-a:builder"}
	// Signer{alg: RS256, kid: BLX3WQl2YR45x5NfvXfcDYy-CgaXBoZmAwGIrAKhNRc, key: [redacted]}
}
