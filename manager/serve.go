package manager

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"net"
	"net/http"
	"strconv"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/rs/zerolog"

	"github.com/kcmlab/kcm/authdelegate"
	"github.com/kcmlab/kcm/ctrl"
	"github.com/kcmlab/kcm/lease"
)

// shutdownTimeout bounds how long stopping the server waits for requests
// in flight (a scrape, a probe).
const shutdownTimeout = 5 * time.Second

// endpoints are the health checks of the three health endpoints.
type endpoints struct {
	healthz, readyz, livez []HealthCheck
	// debug serves /debug/controllers/; nil serves nothing there.
	debug http.Handler
}

// newMux routes the endpoints kcm serves: /healthz, /readyz and /livez
// (with one path per check below each), /metrics and the controllers'
// debugging pages under /debug/controllers/.
func newMux(e endpoints, reg *prometheus.Registry, log zerolog.Logger) *http.ServeMux {
	mux := http.NewServeMux()
	InstallHealthChecks(mux, "/healthz", log, e.healthz...)
	InstallHealthChecks(mux, "/readyz", log, e.readyz...)
	InstallHealthChecks(mux, "/livez", log, e.livez...)
	mux.Handle("/metrics", metricsHandler(reg))
	if e.debug != nil {
		mux.Handle(debugPrefix, e.debug)
	}
	return mux
}

// server is the HTTPS server of the health and metrics endpoints. It runs
// whether or not this instance leads, so a standby answers probes too.
type server struct {
	srv  *http.Server
	ln   net.Listener
	done chan error // receives Serve's error once, then is closed
	// stopGuard ends the delegate's refresh and waits for it.
	stopGuard func()
}

// listen opens the serving socket: ln when given, else
// --bind-address:--secure-port. A nil server means serving is off
// (--secure-port 0 and no listener).
func listen(s ServingOptions, ln net.Listener) (net.Listener, error) {
	if ln != nil || s.SecurePort == 0 {
		return ln, nil
	}
	addr := net.JoinHostPort(s.BindAddress, strconv.Itoa(s.SecurePort))
	l, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, fmt.Errorf("--secure-port: %w", err)
	}
	return l, nil
}

// startServer serves h with TLS on ln in a goroutine; clientAuth says
// whether client certificates are asked for.
func startServer(ln net.Listener, cert tls.Certificate, clientAuth tls.ClientAuthType, h http.Handler, log zerolog.Logger) *server {
	s := &server{
		srv: &http.Server{
			Handler: h,
			TLSConfig: &tls.Config{Certificates: []tls.Certificate{cert}, MinVersion: tls.VersionTLS12,
				ClientAuth: clientAuth},
			ReadHeaderTimeout: 10 * time.Second,
		},
		ln:   ln,
		done: make(chan error, 1),
	}
	log.Info().Str("address", ln.Addr().String()).
		Msg("serving /healthz, /readyz, /livez and /metrics over HTTPS, authenticated and authorized through the apiserver")
	go func() {
		defer close(s.done)
		err := s.srv.ServeTLS(ln, "", "")
		if !errors.Is(err, http.ErrServerClosed) {
			s.done <- fmt.Errorf("serving on %s: %w", ln.Addr(), err)
		}
	}()
	return s
}

// failed delivers a serving error, or is closed when Serve returned
// after stop.
func (s *server) failed() <-chan error { return s.done }

// stop shuts the server down, waiting for requests in flight for at most
// shutdownTimeout, and returns once Serve has returned.
func (s *server) stop() {
	if s == nil {
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), shutdownTimeout)
	defer cancel()
	if err := s.srv.Shutdown(ctx); err != nil {
		_ = s.srv.Close()
	}
	for range s.done {
	}
	if s.stopGuard != nil {
		s.stopGuard()
	}
}

// endpoints returns the health checks of each endpoint:
//
//	/healthz  leaderElection (with --leader-elect), then one per enabled controller
//	/readyz   the same, then informer-sync
//	/livez    leaderElection (a wedged elector is what a restart cures), or ping without one
func (m *manager) endpoints(elector *lease.Elector) endpoints {
	var e endpoints
	if elector != nil {
		le := leaderElectionCheck(elector, m.cfg.Clock)
		e.healthz = append(e.healthz, le)
		e.livez = append(e.livez, le)
	}
	for _, d := range m.enabled {
		e.healthz = append(e.healthz, m.status.controllerCheck(d.Name))
	}
	e.readyz = append(append(e.readyz, e.healthz...), m.status.syncCheck())
	if m.debug != nil {
		e.debug = m.debug
	}
	if len(e.livez) == 0 {
		e.livez = append(e.livez, NamedCheck("ping", func() error { return nil }))
	}
	return e
}

// serve starts the server, unless serving is off (nil server). Every
// request is authenticated and authorized (package authdelegate) before
// it reaches the mux; the delegate's refresh of the cluster's client CA
// runs until ctx ends.
func (m *manager) serve(ctx context.Context, elector *lease.Elector) (*server, error) {
	ln, err := listen(m.o.Serving, m.cfg.Listener)
	if err != nil || ln == nil {
		return nil, err
	}
	cert, err := servingCertificate(m.o.Serving, m.cfg.Clock.Now())
	if err != nil {
		_ = ln.Close()
		return nil, err
	}
	guard, err := authdelegate.New(ctx, authdelegate.Config{Options: m.o.Auth, Clock: m.cfg.Clock, Logger: m.log,
		UserAgent: ctrl.UserAgent(GetVersion(), "kcm-delegated-auth"), Registerer: m.reg})
	if err != nil {
		_ = ln.Close()
		return nil, fmt.Errorf("secure port authentication and authorization: %w", err)
	}
	gctx, gcancel := context.WithCancel(ctx)
	gdone := make(chan struct{})
	go func() { defer close(gdone); guard.Run(gctx) }()
	mux := newMux(m.endpoints(elector), m.reg, m.log)
	mux.Handle(ConfigzPath, configzHandler(m.o))
	if m.o.Profiling {
		installProfiling(mux)
	}
	if m.o.EnablePipelineView && m.hub != nil {
		m.hub.Install(mux)
	}
	srv := startServer(ln, cert, guard.ClientAuth(), guard.Handler(mux), m.log)
	srv.stopGuard = func() { gcancel(); <-gdone; guard.Close() }
	return srv, nil
}
