package testenv

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"
)

// Pinned versions of the binaries testenv builds. kcm is tested against the
// kube-apiserver and kube-controller-manager of this release; etcd is the
// version that release is tested with (k8s.io/kubernetes v1.37.2's
// build/dependencies.yaml, hack/lib/etcd.sh and its go.etcd.io/etcd
// requirements all say 3.7.0). They are the defaults: KCM_KUBE_VERSION
// picks another supported release's kube-apiserver and etcd (release.go).
const (
	KubernetesVersion = "v1.37.2"
	EtcdVersion       = "v3.7.0"
)

// recipe says how to build one binary from the Go module proxy inside a
// throw-away module.
type recipe struct {
	name     string // binary name: "etcd", "kube-apiserver"
	version  string // the pinned version, part of the cache key
	pkg      string // the main package handed to go build
	ldflags  string // linker flags; they do not affect the compile cache
	estimate string // how long a first build takes, for the progress line
	setup    func(ctx context.Context, g *goTool) error

	// test makes pkg a test package: the binary is its test binary,
	// built by go test -c.
	test bool
	// compile, when set, lists packages that go build -v compiles before
	// the binary is built. They land in the Go build cache, where the
	// binary's build finds them; the step exists so that the progress
	// line can count packages, which go test -c does not name.
	compile []string
	// extras names files the recipe writes next to the binary (kwok's
	// Stage configuration); a binary whose extras are missing is rebuilt.
	extras []string
	// finish, if set, runs after go build succeeded and before the binary
	// is installed, in the same throw-away module; it writes the extras
	// into dir (each one atomically).
	finish func(ctx context.Context, g *goTool, dir string) error
	// stampNote is added to the stamp: whatever else shapes the outputs
	// (which Stage files kwok's configuration is made of).
	stampNote string
}

// buildArgs are the go build arguments that produce the binary at out.
// CGO_ENABLED=0 is set in the environment (see goTool); GOFLAGS is
// inherited. -v makes the go command name each package it compiles, which
// is what the progress line counts.
func (r recipe) buildArgs(out string) []string {
	args := []string{"build", "-trimpath", "-v"}
	if r.test {
		args = []string{"test", "-c", "-trimpath"}
	}
	if r.ldflags != "" {
		args = append(args, "-ldflags="+r.ldflags)
	}
	return append(args, "-o", out, r.pkg)
}

// compileArgs are the go build arguments of the compile step (see
// recipe.compile), or nil when the recipe has none. The flags that shape
// compilation are buildArgs's, so the binary's build reuses the results.
func (r recipe) compileArgs() []string {
	if len(r.compile) == 0 {
		return nil
	}
	return append([]string{"build", "-trimpath", "-v"}, r.compile...)
}

// stamp identifies everything that shapes the binary. It is stored next
// to the cached binary; a binary whose stamp differs is rebuilt, so a
// change of recipe never reuses a stale build.
func (r recipe) stamp() string {
	s := fmt.Sprintf("%s %s\nCGO_ENABLED=0 go %s\n", r.name, r.version, strings.Join(r.buildArgs("BINARY"), " "))
	if len(r.compile) > 0 {
		s += "compiled first: " + strings.Join(r.compile, " ") + "\n"
	}
	if r.stampNote != "" {
		s += r.stampNote + "\n"
	}
	return s
}

// etcdRecipe builds etcd at version: its server module's root package is
// the etcd command.
func etcdRecipe(version string) recipe {
	return recipe{
		name:     "etcd",
		version:  version,
		pkg:      "go.etcd.io/etcd/server/v3",
		estimate: "about 1-2 min on 2 cores",
		setup: func(ctx context.Context, g *goTool) error {
			if err := g.run(ctx, "mod", "init", "kcm.local/testenv-etcd"); err != nil {
				return err
			}
			return g.run(ctx, "get", "go.etcd.io/etcd/server/v3@"+version)
		},
	}
}

// apiserverRecipe builds kube-apiserver at the Kubernetes release version
// (KubernetesVersion unless KCM_KUBE_VERSION picks another).
// k8s.io/kubernetes's go.mod points every k8s.io/<staging> module at
// ./staging, which does not exist in the module zip, so the throw-away
// module replaces each of them with its published v0.Y.Z version. The list
// is read from that go.mod, never hard-coded, so a version bump needs no
// code change.
func apiserverRecipe(version string) recipe {
	return recipe{
		name:     "kube-apiserver",
		version:  version,
		pkg:      "k8s.io/kubernetes/cmd/kube-apiserver",
		ldflags:  versionLDFlags(version),
		estimate: "about 5 min on 2 cores",
		setup:    kubernetesSetup(version, "k8s.io/kubernetes/cmd/kube-apiserver"),
	}
}

// controllerManagerRecipe builds kube-controller-manager, the reference
// implementation kcm's controllers are compared with (package difftest).
// It comes from the same k8s.io/kubernetes module and version as
// kube-apiserver, through the same throw-away module, so most of its
// packages are already in the Go build cache when kube-apiserver was built.
func controllerManagerRecipe() recipe {
	return recipe{
		name:     "kube-controller-manager",
		version:  KubernetesVersion,
		pkg:      "k8s.io/kubernetes/cmd/kube-controller-manager",
		ldflags:  versionLDFlags(KubernetesVersion),
		estimate: "about 3-5 min on 2 cores",
		setup:    kubernetesSetup(KubernetesVersion, "k8s.io/kubernetes/cmd/kube-controller-manager"),
	}
}

// kubernetesSetup returns the setup step of a recipe for the command cmd
// of k8s.io/kubernetes at version.
func kubernetesSetup(version, cmd string) func(context.Context, *goTool) error {
	return func(ctx context.Context, g *goTool) error { return setupKubernetesModule(ctx, g, version, cmd) }
}

// setupKubernetesModule writes the throw-away go.mod for building the
// k8s.io/kubernetes command cmd at version and resolves its dependencies.
func setupKubernetesModule(ctx context.Context, g *goTool, version, cmd string) error {
	if err := writeKubernetesGoMod(ctx, g, version); err != nil {
		return err
	}
	return g.run(ctx, "get", cmd+"@"+version)
}

// writeKubernetesGoMod writes the go.mod of a throw-away module that
// requires k8s.io/kubernetes at version (see throwAwayGoMod).
func writeKubernetesGoMod(ctx context.Context, g *goTool, version string) error {
	const mod = "k8s.io/kubernetes"
	out, err := g.output(ctx, "mod", "download", "-json", mod+"@"+version)
	if err != nil {
		return err
	}
	var dl struct{ GoMod, Error string }
	if err := json.Unmarshal(out, &dl); err != nil {
		return fmt.Errorf("decode go mod download output: %w", err)
	}
	if dl.Error != "" || dl.GoMod == "" {
		return fmt.Errorf("go mod download %s@%s: %s", mod, version, dl.Error)
	}
	text, err := os.ReadFile(dl.GoMod)
	if err != nil {
		return fmt.Errorf("read %s's go.mod: %w", mod, err)
	}
	mf, err := parseModFile(string(text))
	if err != nil {
		return fmt.Errorf("%s@%s: %w", mod, version, err)
	}
	gomod, err := throwAwayGoMod(mf, version)
	if err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(g.dir, "go.mod"), []byte(gomod), 0o644); err != nil {
		return fmt.Errorf("write go.mod: %w", err)
	}
	return nil
}

// throwAwayGoMod renders the go.mod of the module that builds a Kubernetes
// command: it requires k8s.io/kubernetes, replaces each staging module with
// its published version, and keeps Kubernetes's go and godebug lines so
// the binary gets the same GODEBUG defaults as an official build.
func throwAwayGoMod(mf modFile, kubeVersion string) (string, error) {
	if len(mf.Staging) == 0 {
		return "", fmt.Errorf("k8s.io/kubernetes@%s: go.mod lists no ./staging replaces", kubeVersion)
	}
	sv, err := stagingVersion(kubeVersion)
	if err != nil {
		return "", err
	}
	var b strings.Builder
	b.WriteString("module kcm.local/testenv-build\n\n")
	if mf.Go != "" {
		fmt.Fprintf(&b, "go %s\n\n", mf.Go)
	}
	for _, d := range mf.Godebug {
		fmt.Fprintf(&b, "godebug %s\n", d)
	}
	fmt.Fprintf(&b, "\nrequire k8s.io/kubernetes %s\n\nreplace (\n", kubeVersion)
	for _, p := range mf.Staging {
		fmt.Fprintf(&b, "\t%s => %s %s\n", p, p, sv)
	}
	b.WriteString(")\n")
	return b.String(), nil
}

// versionLDFlags sets the version variables that Kubernetes's release
// build (hack/lib/version.sh) sets, so /version reports the real release
// instead of "v0.0.0-master". Only the linker sees -X, so the Go build
// cache is shared with builds that do not set them.
func versionLDFlags(kubeVersion string) string {
	major, minor := "", ""
	if rest, ok := strings.CutPrefix(kubeVersion, "v"); ok {
		parts := strings.SplitN(rest, ".", 3)
		if len(parts) >= 2 {
			major, minor = parts[0], parts[1]
		}
	}
	var flags []string
	for _, pkg := range []string{"k8s.io/component-base/version", "k8s.io/client-go/pkg/version"} {
		flags = append(flags,
			"-X "+pkg+".gitVersion="+kubeVersion,
			"-X "+pkg+".gitMajor="+major,
			"-X "+pkg+".gitMinor="+minor,
			"-X "+pkg+".gitTreeState=clean",
			"-X "+pkg+".gitCommit=",
		)
	}
	return strings.Join(flags, " ")
}

// buildTimeout bounds one build when the caller's context has no deadline.
const buildTimeout = 30 * time.Minute
