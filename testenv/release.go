package testenv

import (
	"errors"
	"fmt"
	"os"
	"strings"
)

// EnvKubeVersion names the environment variable that picks the Kubernetes
// release whose kube-apiserver (and etcd) testenv builds and runs, e.g.
// KCM_KUBE_VERSION=v1.35.4. Unset or empty: KubernetesVersion, the
// reference release. `make compat` runs the same tests once per supported
// release this way.
const EnvKubeVersion = "KCM_KUBE_VERSION"

// ErrUnknownRelease is returned for a Kubernetes release testenv has no
// entry for in its table of supported releases.
var ErrUnknownRelease = errors.New("unknown Kubernetes release")

// Release is a Kubernetes release testenv can run: the version of
// kube-apiserver and the version of the etcd that release is tested with.
type Release struct {
	Kubernetes string // "v1.36.3"
	Etcd       string // "v3.6.8"
}

func (r Release) String() string { return "Kubernetes " + r.Kubernetes + " (etcd " + r.Etcd + ")" }

// releases are the supported releases, oldest first: the newest patch of
// each minor release the module proxy serves. Each etcd is the one the
// release is tested with, read from its sources: build/dependencies.yaml
// (name "etcd") and hack/lib/etcd.sh (ETCD_VERSION) agree in all three.
// v1.35.4's go.mod requires the go.etcd.io/etcd v3.6.5 libraries while its
// tests run etcd 3.6.6; the server is what testenv runs, so 3.6.6. No two
// releases share an etcd, so each has its own build.
var releases = []Release{
	{Kubernetes: "v1.35.4", Etcd: "v3.6.6"},
	{Kubernetes: "v1.36.3", Etcd: "v3.6.8"},
	{Kubernetes: KubernetesVersion, Etcd: EtcdVersion},
}

// Releases returns the supported releases, oldest first; the last one is
// the reference release (KubernetesVersion).
func Releases() []Release { return append([]Release(nil), releases...) }

// ReferenceRelease is the release testenv runs when EnvKubeVersion is not
// set.
func ReferenceRelease() Release { return Release{Kubernetes: KubernetesVersion, Etcd: EtcdVersion} }

// LookupRelease returns the supported release with Kubernetes version v
// ("v1.36.3"; the leading "v" may be left out), or an error wrapping
// ErrUnknownRelease that lists the supported ones.
func LookupRelease(v string) (Release, error) {
	want := strings.TrimSpace(v)
	if want != "" && !strings.HasPrefix(want, "v") {
		want = "v" + want
	}
	known := make([]string, len(releases))
	for i, r := range releases {
		if r.Kubernetes == want {
			return r, nil
		}
		known[i] = r.Kubernetes
	}
	return Release{}, fmt.Errorf("testenv: %w %q: the supported releases are %s (the table is in testenv/release.go)",
		ErrUnknownRelease, v, strings.Join(known, ", "))
}

// SelectedRelease returns the release named by EnvKubeVersion, or the
// reference release when it is unset or empty. An unknown release is an
// error that names the variable, so a typo never silently tests the
// reference release instead.
func SelectedRelease() (Release, error) {
	v := os.Getenv(EnvKubeVersion)
	if strings.TrimSpace(v) == "" {
		return ReferenceRelease(), nil
	}
	r, err := LookupRelease(v)
	if err != nil {
		return Release{}, fmt.Errorf("%s: %w", EnvKubeVersion, err)
	}
	return r, nil
}
