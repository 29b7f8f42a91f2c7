package fakeapi

import (
	"net/http"

	"github.com/kcmlab/kcm/kube/api/protowire"
)

// serveGet answers a GET of one object: its JSON, or its protobuf message
// in the k8s envelope when the request asks for protobuf (proto.go); 404
// NotFound, as a Status in the request's encoding, when it does not
// exist. The request faults (500, 503, 429, a slow start) strike it as
// they strike a LIST.
func (s *Server) serveGet(w http.ResponseWriter, r *http.Request, res int, ns, name string) {
	proto := s.servesProto(r, res) // first: it may turn the store's protobuf forms on
	s.db.mu.Lock()
	e, ok := s.db.objects[res][ns+"/"+name]
	s.db.mu.Unlock()
	rs := s.o.Resources[res]
	if !ok {
		writeStatus(w, r, http.StatusNotFound, "NotFound", rs.Resource+" \""+name+"\" not found")
		return
	}
	if proto {
		s.protobuf.Add(1)
		w.Header().Set("Content-Type", protowire.ContentType)
		w.WriteHeader(http.StatusOK)
		_, _ = w.Write(wrapObject(rs, e.pb))
		return
	}
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(http.StatusOK)
	_, _ = w.Write(e.obj)
}
