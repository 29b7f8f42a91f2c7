package clientcmd

import (
	"errors"
	"fmt"
	"net"
	"os"
	"path/filepath"

	"github.com/kcmlab/kcm/clock"
	"github.com/kcmlab/kcm/kube/rest"
	"github.com/rs/zerolog"
)

// ServiceAccountDir is where the kubelet mounts a pod's service-account
// token, CA bundle and namespace.
const ServiceAccountDir = "/var/run/secrets/kubernetes.io/serviceaccount"

// ErrNotInCluster: the process does not run in a pod (KUBERNETES_SERVICE_HOST
// or KUBERNETES_SERVICE_PORT is unset).
var ErrNotInCluster = errors.New("not running in a Kubernetes cluster")

// InClusterOptions locate a pod's service account. The zero value reads the
// real environment and ServiceAccountDir; tests point both elsewhere.
type InClusterOptions struct {
	// Getenv reads KUBERNETES_SERVICE_HOST and KUBERNETES_SERVICE_PORT; nil
	// means os.Getenv.
	Getenv func(string) string
	// Dir holds "token" and "ca.crt"; empty means ServiceAccountDir.
	Dir string
	// Clock schedules the token's re-reads; nil means clock.Real.
	Clock clock.Clock
	// Logger hears about failed token re-reads. The zero Logger discards.
	Logger zerolog.Logger
}

// InClusterConfig returns the Config of a process running in a pod: the
// apiserver's service address from the environment, the mounted CA, and the
// mounted token, re-read as the kubelet rotates it (see TokenFile). Outside a
// pod it returns an error wrapping ErrNotInCluster.
func InClusterConfig(opts InClusterOptions) (*rest.Config, error) {
	getenv := opts.Getenv
	if getenv == nil {
		getenv = os.Getenv
	}
	dir := opts.Dir
	if dir == "" {
		dir = ServiceAccountDir
	}
	host, port := getenv("KUBERNETES_SERVICE_HOST"), getenv("KUBERNETES_SERVICE_PORT")
	if host == "" || port == "" {
		return nil, fmt.Errorf("in-cluster: KUBERNETES_SERVICE_HOST and KUBERNETES_SERVICE_PORT must both be set: %w",
			ErrNotInCluster)
	}
	token, err := NewTokenFile(filepath.Join(dir, "token"), TokenFileOptions{Clock: opts.Clock, Logger: opts.Logger})
	if err != nil {
		return nil, fmt.Errorf("in-cluster: service-account token: %w", err)
	}
	caPath := filepath.Join(dir, "ca.crt")
	ca, err := readFileLimited(caPath, "service-account CA", MaxPEMFileBytes)
	if err != nil {
		return nil, fmt.Errorf("in-cluster: service-account CA: %w", err)
	}
	if !validCAPEM(ca) {
		return nil, fmt.Errorf("in-cluster: service-account CA %s holds no PEM certificate", caPath)
	}
	return &rest.Config{
		// JoinHostPort brackets an IPv6 address: https://[fd00::1]:443.
		Host:        "https://" + net.JoinHostPort(host, port),
		TLS:         rest.TLSConfig{CAData: ca},
		Credentials: token,
		Source:      "in-cluster",
	}, nil
}
