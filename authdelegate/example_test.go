package authdelegate_test

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"

	"github.com/rs/zerolog"

	"github.com/kcmlab/kcm/authdelegate"
	"github.com/kcmlab/kcm/kube/clientcmd"
	"github.com/kcmlab/kcm/kube/rest"
)

// Without --authentication-kubeconfig and --authorization-kubeconfig,
// outside a pod, kube-controller-manager's rules leave only the health
// paths open: an anonymous scrape of /metrics is forbidden.
func Example() {
	d, err := authdelegate.New(context.Background(), authdelegate.Config{
		Options: authdelegate.NewOptions(),
		Logger:  zerolog.Nop(),
		InCluster: func() (*rest.Config, error) {
			return nil, clientcmd.ErrNotInCluster
		},
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	h := d.Handler(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { fmt.Fprint(w, "ok") }))
	for _, path := range []string{"/healthz", "/livez", "/metrics", "/debug/pprof/"} {
		w := httptest.NewRecorder()
		h.ServeHTTP(w, httptest.NewRequest(http.MethodGet, path, nil))
		fmt.Println(path, w.Code)
	}
	// Output:
	// /healthz 200
	// /livez 200
	// /metrics 403
	// /debug/pprof/ 403
}
