package manager

import (
	"fmt"
	"runtime"
	"runtime/debug"
)

// Version is kcm's version. Release builds set it with
//
//	go build -ldflags "-X github.com/kcmlab/kcm/manager.Version=v0.3.0" ./cmd/kcm
//
// When it is empty, GetVersion falls back to the main module's version
// from the build info ("(devel)" for a build from a work tree).
var Version string

// GetVersion returns the version in force: Version, else the main
// module's version recorded by the go command, else "v0.0.0-unknown".
func GetVersion() string {
	if Version != "" {
		return Version
	}
	return versionFrom(debug.ReadBuildInfo())
}

// versionFrom is GetVersion's fallback, on build info that may be absent.
func versionFrom(bi *debug.BuildInfo, ok bool) string {
	if ok && bi != nil && bi.Main.Version != "" {
		return bi.Main.Version
	}
	return "v0.0.0-unknown"
}

// VersionString is what `kcm version` prints: kcm's version, the
// Kubernetes release whose kube-controller-manager flags it follows, and
// the Go toolchain and platform.
func VersionString() string {
	return fmt.Sprintf("kcm %s (kube-controller-manager %s flags; %s %s/%s)",
		GetVersion(), KubeControllerManagerVersion, runtime.Version(), runtime.GOOS, runtime.GOARCH)
}
