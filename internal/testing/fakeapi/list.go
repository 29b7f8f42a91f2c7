package fakeapi

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"net/http"
	"strconv"
	"time"

	"github.com/kcmlab/kcm/kube/api/protowire"
)

// listPage is what one LIST request resolved to.
type listPage struct {
	rv        int64 // the snapshot's revision
	items     []item
	cont      string // continue token for the rest; "" on the last page
	remaining int
}

// apiError is a failure to answer with a Status.
type apiError struct {
	code   int
	reason string
	msg    string
	cause  string
}

// continueToken is the (opaque to clients) continue value: the snapshot
// revision and the last key returned.
type continueToken struct {
	RV    int64  `json:"rv"`
	After string `json:"after"`
}

func (s *Server) serveList(w http.ResponseWriter, r *http.Request, res int, ns string) {
	s.lists.Add(1)
	s.resumes.listed(res, ns)
	q := r.URL.Query()
	limit, _ := strconv.Atoi(q.Get("limit"))
	proto := s.servesProto(r, res) // first: it may turn the store's protobuf forms on
	page, aerr := s.list(res, ns, q.Get("resourceVersion"), q.Get("resourceVersionMatch"), q.Get("continue"), limit)
	if aerr != nil {
		writeStatusCause(w, r, aerr.code, aerr.reason, aerr.msg, causes(aerr.cause)...)
		return
	}
	cands := []Fault{ListTruncated, ListGarbage, SlowLoris}
	var body []byte
	if proto {
		s.protobuf.Add(1)
		cands = append(cands, ProtoListUnknownFields)
		if len(page.items) > 0 {
			cands = append(cands, ProtoListOversize)
		}
		body = s.encodeProtoList(s.o.Resources[res], page)
		w.Header().Set("Content-Type", protowire.ContentType)
	} else {
		body = s.encodeList(s.o.Resources[res], page)
		w.Header().Set("Content-Type", "application/json")
	}
	switch f := s.faults.roll(cands...); f {
	case ProtoListUnknownFields, ProtoListOversize:
		w.WriteHeader(http.StatusOK)
		_, _ = w.Write(s.protoListFault(f, s.o.Resources[res], page))
	case SlowLoris:
		w.WriteHeader(http.StatusOK)
		s.trickle(w, r, body)
	case ListTruncated:
		w.WriteHeader(http.StatusOK)
		_, _ = w.Write(body[:1+s.faults.intN(len(body)-1)])
		_ = http.NewResponseController(w).Flush()
		cut(w)
	case ListGarbage:
		w.WriteHeader(http.StatusOK)
		g := s.faults.garbage()
		if proto {
			g = s.faults.protoGarbage()
		}
		_, _ = w.Write(append(body[:len(body)/2:len(body)/2], g...))
	default:
		w.WriteHeader(http.StatusOK)
		_, _ = w.Write(body)
	}
}

func causes(c string) []string {
	if c == "" {
		return nil
	}
	return []string{c}
}

// list resolves a LIST's resourceVersion semantics (API conventions,
// "Resource versions"): unset = newest; "0" = any (the fake serves the
// newest, or an older snapshot when the StaleList fault strikes, and
// ignores limit); "N" with NotOlderThan, or without limit = not
// older than N; "N" with limit, or Exact = exactly N, 410 when compacted.
// A continue token reads on from its own snapshot, 410 when compacted or
// when the ContinueExpired fault strikes.
func (s *Server) list(res int, ns, rvParam, match, cont string, limit int) (*listPage, *apiError) {
	s.db.mu.Lock()
	defer s.db.mu.Unlock()
	at, after := s.db.rv, ""
	switch {
	case cont != "":
		tok, ok := decodeContinue(cont)
		if !ok || rvParam != "" {
			return nil, &apiError{code: 400, reason: "BadRequest", msg: "fakeapi: invalid continue token, or resourceVersion given with it"}
		}
		if tok.RV < s.db.floor || s.faults.roll(ContinueExpired) == ContinueExpired {
			return nil, &apiError{code: 410, reason: "Expired", msg: "The provided continue parameter is too old to display a consistent list result. You can start a new list without the continue parameter."}
		}
		at, after = tok.RV, tok.After
	case rvParam == "" || rvParam == "0":
		if rvParam == "0" {
			limit = 0 // a watch cache ignores the limit at "0"
			if s.faults.roll(StaleList) == StaleList {
				at = s.db.floor + int64(s.faults.intN(int(s.db.rv-s.db.floor+1)))
			}
		}
	default:
		n, err := strconv.ParseInt(rvParam, 10, 64)
		if err != nil {
			return nil, &apiError{code: 400, reason: "BadRequest", msg: "fakeapi: invalid resourceVersion " + strconv.Quote(rvParam)}
		}
		if n > s.db.rv {
			return nil, &apiError{code: 504, reason: "Timeout", msg: "Too large resource version: " + rvParam,
				cause: "ResourceVersionTooLarge"}
		}
		exact := match == "Exact" || (match == "" && limit > 0)
		if exact && n < s.db.floor {
			return nil, &apiError{code: 410, reason: "Expired", msg: "too old resource version: " + rvParam}
		}
		if exact {
			at = n
		}
	}
	items := s.db.snapshotLocked(res, ns, at)
	for len(items) > 0 && after != "" && items[0].key <= after {
		items = items[1:]
	}
	p := &listPage{rv: at, items: items}
	if limit > 0 && len(items) > limit {
		p.items, p.remaining = items[:limit], len(items)-limit
		p.cont = encodeContinue(continueToken{RV: at, After: items[limit-1].key})
	}
	return p, nil
}

func encodeContinue(t continueToken) string {
	data, _ := json.Marshal(t)
	return base64.RawURLEncoding.EncodeToString(data)
}

func decodeContinue(s string) (continueToken, bool) {
	var t continueToken
	data, err := base64.RawURLEncoding.DecodeString(s)
	if err != nil || json.Unmarshal(data, &t) != nil || t.RV <= 0 {
		return t, false
	}
	return t, true
}

// encodeList writes the list response by hand, the stored objects
// verbatim.
func (s *Server) encodeList(res Resource, p *listPage) []byte {
	var b bytes.Buffer
	b.WriteString(`{"kind":` + strconv.Quote(res.Kind+"List") + `,"apiVersion":` + strconv.Quote(res.APIVersion()))
	b.WriteString(`,"metadata":{"resourceVersion":"` + strconv.FormatInt(p.rv, 10) + `"`)
	if p.cont != "" {
		b.WriteString(`,"continue":"` + p.cont + `","remainingItemCount":` + strconv.Itoa(p.remaining))
	}
	b.WriteString(`},"items":[`)
	for i, it := range p.items {
		if i > 0 {
			b.WriteByte(',')
		}
		b.Write(it.obj)
	}
	b.WriteString("]}")
	return b.Bytes()
}

// trickle writes body a byte at a time, each flushed after a pause of up
// to the injector's slow delay (plus a millisecond): every pause is shorter
// than any sane idle timeout, so only a total deadline on the page ends a
// body of a few KiB before it is complete. It stops when the client goes
// away or the server closes.
func (s *Server) trickle(w http.ResponseWriter, r *http.Request, body []byte) {
	rc := http.NewResponseController(w)
	for i := range body {
		if _, err := w.Write(body[i : i+1]); err != nil || rc.Flush() != nil {
			return
		}
		s.pause(time.Millisecond+s.faults.slow(), r.Context().Done())
		select {
		case <-r.Context().Done():
			return
		case <-s.stop:
			return
		default:
		}
	}
}
