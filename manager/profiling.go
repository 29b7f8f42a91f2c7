package manager

import (
	"net/http"
	"net/http/pprof"
)

// ProfilingPath is where --profiling serves Go's profiles on the secure
// port, as kube-controller-manager does (k8s.io/apiserver routes.Profiling).
const ProfilingPath = "/debug/pprof/"

// installProfiling serves the runtime profiles under ProfilingPath the way
// kube-controller-manager's --profiling does: the index and every named
// profile (heap, allocs, goroutine, ...) below it, a CPU profile at
// profile, symbol lookup at symbol and an execution trace at trace, and a
// redirect from the path without its slash. Like kube-controller-manager
// it registers no cmdline handler: the process's arguments are not served.
func installProfiling(mux *http.ServeMux) {
	mux.Handle("/debug/pprof", http.RedirectHandler(ProfilingPath, http.StatusFound))
	// Index serves the runtime's named profiles below the path; a name
	// that is none (cmdline among them) gets 404.
	mux.HandleFunc(ProfilingPath, pprof.Index)
	mux.HandleFunc(ProfilingPath+"profile", pprof.Profile)
	mux.HandleFunc(ProfilingPath+"symbol", pprof.Symbol)
	mux.HandleFunc(ProfilingPath+"trace", pprof.Trace)
}
