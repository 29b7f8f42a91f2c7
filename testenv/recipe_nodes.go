package testenv

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/rs/zerolog"
)

// KwokVersion is the release of kwok (sigs.k8s.io/kwok, the kubelet
// simulator SIG Scalability uses) that plays the cluster's nodes.
const KwokVersion = "v0.8.0"

// kwokModule is kwok's module path.
const kwokModule = "sigs.k8s.io/kwok"

// KwokStagesFile is the name of the kwok configuration testenv writes next
// to the cached kwok binary: the Stage objects below, read from kwok's own
// module at build time and concatenated into one multi-document YAML file.
const KwokStagesFile = "kwok-stages.yaml"

// kwokStages are the Stage files of kwok's module (under kustomize/stage)
// that make up testenv's kwok configuration, in order:
//
//   - node-initialize: a managed node that is not Ready gets Ready=True and
//     the other conditions, addresses, capacity (if none), nodeInfo;
//   - node-heartbeat-with-lease: a Ready node's conditions get a fresh
//     lastHeartbeatTime every 10-20 min, as a kubelet that also renews its
//     Lease (kwok renews the Lease itself, every quarter of its duration);
//   - pod-ready: a scheduled, Pending pod gets a pod IP from its node's
//     podCIDR, Running, and Ready/ContainersReady/Initialized;
//   - pod-complete: a Running pod owned by a Job becomes Succeeded;
//   - pod-delete: a pod with a deletionTimestamp is deleted for good, as a
//     kubelet does once its containers stopped.
var kwokStages = []string{
	"kustomize/stage/node/fast/node-initialize.yaml",
	"kustomize/stage/node/heartbeat-with-lease/node-heartbeat-with-lease.yaml",
	"kustomize/stage/pod/fast/pod-ready.yaml",
	"kustomize/stage/pod/fast/pod-complete.yaml",
	"kustomize/stage/pod/fast/pod-delete.yaml",
}

// schedulerRecipe builds kube-scheduler from the same throw-away module as
// kube-apiserver (same go.mod, same module name), so the Go build cache
// already holds most of its packages once kube-apiserver was built.
func schedulerRecipe() recipe {
	return recipe{
		name:     "kube-scheduler",
		version:  KubernetesVersion,
		pkg:      "k8s.io/kubernetes/cmd/kube-scheduler",
		ldflags:  versionLDFlags(KubernetesVersion),
		estimate: "about 1-3 min on 2 cores after kube-apiserver",
		setup:    kubernetesSetup("k8s.io/kubernetes/cmd/kube-scheduler"),
	}
}

// kwokRecipe builds kwok's controller (cmd/kwok) in a throw-away module of
// its own: kwok requires its own k8s.io/* releases, and nothing of it may
// reach kcm's go.mod. After the build it writes KwokStagesFile from the
// Stage files of the very module it built.
func kwokRecipe() recipe {
	return recipe{
		name:      "kwok",
		version:   KwokVersion,
		pkg:       kwokModule + "/cmd/kwok",
		estimate:  "about 3-6 min on 2 cores",
		extras:    []string{KwokStagesFile},
		stampNote: "stages " + strings.Join(kwokStages, " "),
		setup: func(ctx context.Context, g *goTool) error {
			if err := g.run(ctx, "mod", "init", "kcm.local/testenv-kwok"); err != nil {
				return err
			}
			return g.run(ctx, "get", kwokModule+"/cmd/kwok@"+KwokVersion)
		},
		finish: writeKwokStages,
	}
}

// writeKwokStages finds kwok's module directory (the go command extracted
// it for the build) and writes the concatenated Stage files into dir.
func writeKwokStages(ctx context.Context, g *goTool, dir string) error {
	out, err := g.output(ctx, "mod", "download", "-json", kwokModule+"@"+KwokVersion)
	if err != nil {
		return err
	}
	var dl struct{ Dir, Error string }
	if err := json.Unmarshal(out, &dl); err != nil {
		return fmt.Errorf("decode go mod download output: %w", err)
	}
	if dl.Error != "" || dl.Dir == "" {
		return fmt.Errorf("go mod download %s@%s: %s", kwokModule, KwokVersion, dl.Error)
	}
	text, err := concatStages(dl.Dir, kwokStages)
	if err != nil {
		return err
	}
	tmp := filepath.Join(dir, "."+KwokStagesFile+".tmp")
	if err := os.WriteFile(tmp, []byte(text), 0o644); err != nil {
		return fmt.Errorf("write kwok stages: %w", err)
	}
	if err := os.Rename(tmp, filepath.Join(dir, KwokStagesFile)); err != nil {
		return fmt.Errorf("install kwok stages: %w", err)
	}
	return nil
}

// concatStages joins the files (paths relative to moduleDir) into one
// multi-document YAML stream, each document preceded by a comment naming
// its source. Every file must hold a kwok Stage.
func concatStages(moduleDir string, files []string) (string, error) {
	var b strings.Builder
	fmt.Fprintf(&b, "# kwok %s Stage objects, copied by testenv from the module %s@%s.\n", KwokVersion, kwokModule, KwokVersion)
	for _, f := range files {
		data, err := os.ReadFile(filepath.Join(moduleDir, filepath.FromSlash(f)))
		if err != nil {
			return "", fmt.Errorf("kwok stage: %w", err)
		}
		text := string(data)
		if !strings.Contains(text, "kind: Stage") {
			return "", fmt.Errorf("kwok stage %s holds no Stage object", f)
		}
		fmt.Fprintf(&b, "---\n# %s\n%s", f, strings.TrimPrefix(text, "---\n"))
		if !strings.HasSuffix(text, "\n") {
			b.WriteByte('\n')
		}
	}
	return b.String(), nil
}

// EnsureScheduler returns the cached kube-scheduler, building it first if
// it is not cached yet. Like EnsureControllerManager it is separate from
// EnsureBinaries: only clusters that ask for a scheduler wait for it.
func EnsureScheduler(ctx context.Context, progress io.Writer, log zerolog.Logger) (string, error) {
	b, err := newBuilder(progress, log)
	if err != nil {
		return "", err
	}
	return b.ensure(ctx, schedulerRecipe())
}

// KwokFiles are the cached kwok binary and its Stage configuration.
type KwokFiles struct {
	Binary string
	Stages string // KwokStagesFile, beside Binary
}

// EnsureKwok returns the cached kwok and its Stage configuration, building
// them first if they are not cached yet. Only clusters that ask for nodes
// wait for it.
func EnsureKwok(ctx context.Context, progress io.Writer, log zerolog.Logger) (KwokFiles, error) {
	b, err := newBuilder(progress, log)
	if err != nil {
		return KwokFiles{}, err
	}
	bin, err := b.ensure(ctx, kwokRecipe())
	if err != nil {
		return KwokFiles{}, err
	}
	return KwokFiles{Binary: bin, Stages: filepath.Join(filepath.Dir(bin), KwokStagesFile)}, nil
}
