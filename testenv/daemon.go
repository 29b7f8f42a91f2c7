package testenv

import (
	"context"
	"crypto/tls"
	"fmt"
	"io"
	"net/http"
	"strings"
	"time"
)

// daemonStopGrace is how long kube-scheduler and kwok get to exit after
// SIGTERM. Neither has anything to save.
const daemonStopGrace = 5 * time.Second

// daemon is a helper process a cluster runs next to its control plane
// (kube-scheduler, kwok): started at most once at a time, health-checked
// over HTTP(S), stopped by Cluster.Stop.
type daemon struct {
	proc      *process
	healthURL string
}

// running reports whether d is a started process that has not exited.
func (d *daemon) running() bool {
	if d == nil {
		return false
	}
	select {
	case <-d.proc.exited:
		return false
	default:
		return true
	}
}

// daemonSpec says how to start one helper process.
type daemonSpec struct {
	name    string
	bin     string
	logPath string
	env     []string // added to the environment
	// args returns the command line for a serving port.
	args func(port int) []string
	// healthURL returns the URL probed for readiness on that port.
	healthURL func(port int) string
}

// startDaemon starts the process on a free loopback port and waits until
// its health URL answers 200, retrying with a fresh port if the one chosen
// was taken meanwhile. On error nothing is left running; the error carries
// the log's tail.
func startDaemon(ctx context.Context, s daemonSpec) (*daemon, error) {
	var d *daemon
	err := retryPortClash(func() error {
		ports, err := freePorts(1)
		if err != nil {
			return err
		}
		p, err := startProcessEnv(s.name, s.bin, s.args(ports[0]), s.env, s.logPath)
		if err != nil {
			return err
		}
		url := s.healthURL(ports[0])
		if err := waitHealthz(ctx, p, url); err != nil {
			p.stop(daemonStopGrace)
			return err
		}
		d = &daemon{proc: p, healthURL: url}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("testenv: start %s: %w", s.name, err)
	}
	return d, nil
}

// waitHealthz polls url until it answers 200. An https URL's certificate
// is not verified: the components serve a self-signed one, and the probe
// only asks a local test process whether it is up, sending nothing secret.
func waitHealthz(ctx context.Context, p *process, url string) error {
	tr := &http.Transport{TLSClientConfig: &tls.Config{InsecureSkipVerify: true}}
	defer tr.CloseIdleConnections()
	client := &http.Client{Transport: tr}
	return waitReady(ctx, p, func(ctx context.Context) error {
		req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
		if err != nil {
			return err
		}
		resp, err := client.Do(req)
		if err != nil {
			return err
		}
		defer resp.Body.Close()
		body, _ := io.ReadAll(io.LimitReader(resp.Body, 4096))
		if resp.StatusCode != http.StatusOK {
			return fmt.Errorf("GET %s: HTTP %d: %s", url, resp.StatusCode, strings.TrimSpace(string(body)))
		}
		return nil
	})
}
