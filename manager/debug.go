package manager

import (
	"net/http"
	"strings"
	"sync"

	"github.com/kcmlab/kcm/ctrl"
)

// debugPrefix is where controllers' debugging pages are served
// (kube-controller-manager's /debug/controllers/<name>/).
const debugPrefix = "/debug/controllers/"

// debugHandlers serves the pages of the controllers that are
// ctrl.Debuggable — the garbage collector's graph — under
// /debug/controllers/<name>/, the prefix stripped, as
// kube-controller-manager mounts them. They exist only while this
// instance leads and its controllers are built; otherwise every path
// answers 404.
type debugHandlers struct {
	mu     sync.RWMutex
	byName map[string]http.Handler
}

func newDebugHandlers() *debugHandlers { return &debugHandlers{byName: map[string]http.Handler{}} }

// mount registers the handler of every Debuggable controller under its
// canonical name (kube-controller-manager v1.37's path) and its aliases
// (the names older releases served it under, e.g. garbagecollector).
func (d *debugHandlers) mount(controllers []ctrl.Controller, descriptors []*ctrl.ControllerDescriptor) {
	d.mu.Lock()
	defer d.mu.Unlock()
	for _, c := range controllers {
		dbg, ok := c.(ctrl.Debuggable)
		if !ok {
			continue
		}
		h := dbg.DebuggingHandler()
		if h == nil {
			continue
		}
		names := []string{c.Name()}
		for _, desc := range descriptors {
			if desc.Name == c.Name() {
				names = append(names, desc.Aliases...)
			}
		}
		for _, n := range names {
			d.byName[n] = http.StripPrefix(strings.TrimSuffix(debugPrefix, "/")+"/"+n, h)
		}
	}
}

// unmount removes every handler (the controllers stopped).
func (d *debugHandlers) unmount() {
	d.mu.Lock()
	defer d.mu.Unlock()
	clear(d.byName)
}

// ServeHTTP routes /debug/controllers/<name>/... to the controller's
// handler.
func (d *debugHandlers) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	name, _, _ := strings.Cut(strings.TrimPrefix(r.URL.Path, debugPrefix), "/")
	d.mu.RLock()
	h := d.byName[name]
	d.mu.RUnlock()
	if h == nil {
		http.NotFound(w, r)
		return
	}
	h.ServeHTTP(w, r)
}
