package manager

import (
	"encoding/json"
	"net/http"
)

// ConfigzPath serves the running configuration, as kube-controller-manager's
// /configz does (component-base's configz, under the name
// "componentconfig").
const ConfigzPath = "/configz"

// configzHandler answers GET with o as JSON under "componentconfig". The
// options hold no secret: credentials live in the kubeconfig files they
// name, never in the flags.
func configzHandler(o *Options) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodGet {
			http.Error(w, "only GET is allowed", http.StatusMethodNotAllowed)
			return
		}
		body, err := json.MarshalIndent(map[string]any{"componentconfig": o}, "", "  ")
		if err != nil {
			http.Error(w, err.Error(), http.StatusInternalServerError)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write(append(body, '\n'))
	})
}
