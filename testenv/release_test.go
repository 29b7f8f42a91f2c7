package testenv

import (
	"errors"
	"path/filepath"
	"strings"
	"testing"
)

// The table of supported releases: each Kubernetes release with the etcd
// its sources name (build/dependencies.yaml, hack/lib/etcd.sh), oldest
// first, the reference release last.
func TestReleases(t *testing.T) {
	want := []Release{
		{Kubernetes: "v1.35.4", Etcd: "v3.6.6"},
		{Kubernetes: "v1.36.3", Etcd: "v3.6.8"},
		{Kubernetes: "v1.37.2", Etcd: "v3.7.0"},
	}
	got := Releases()
	if len(got) != len(want) {
		t.Fatalf("Releases() = %v, want %v", got, want)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("Releases()[%d] = %v, want %v", i, got[i], want[i])
		}
	}
	if ref := ReferenceRelease(); got[len(got)-1] != ref || ref.Kubernetes != KubernetesVersion || ref.Etcd != EtcdVersion {
		t.Errorf("the last release %v is not the reference release %v", got[len(got)-1], ref)
	}
	got[0].Etcd = "changed"
	if Releases()[0].Etcd != "v3.6.6" {
		t.Error("Releases returns the table itself: a caller can change it")
	}
}

func TestLookupRelease(t *testing.T) {
	for _, tc := range []struct {
		in      string
		want    Release
		wantErr bool
	}{
		{in: "v1.35.4", want: Release{"v1.35.4", "v3.6.6"}},
		{in: "v1.36.3", want: Release{"v1.36.3", "v3.6.8"}},
		{in: "v1.37.2", want: Release{"v1.37.2", "v3.7.0"}},
		{in: "1.36.3", want: Release{"v1.36.3", "v3.6.8"}},
		{in: " v1.35.4 ", want: Release{"v1.35.4", "v3.6.6"}},
		{in: "v1.34.4", wantErr: true}, // the old reference: no longer supported
		{in: "v1.36.2", wantErr: true}, // only the newest patch of each minor
		{in: "v1.36", wantErr: true},
		{in: "latest", wantErr: true},
		{in: "", wantErr: true},
	} {
		got, err := LookupRelease(tc.in)
		if tc.wantErr {
			if !errors.Is(err, ErrUnknownRelease) {
				t.Errorf("LookupRelease(%q) = %v, %v; want ErrUnknownRelease", tc.in, got, err)
			}
			continue
		}
		if err != nil || got != tc.want {
			t.Errorf("LookupRelease(%q) = %v, %v; want %v", tc.in, got, err, tc.want)
		}
	}
}

// An unknown release is refused with a message that names the variable,
// the value and every supported release, never silently replaced by the
// reference release.
func TestSelectedRelease(t *testing.T) {
	for _, tc := range []struct {
		env     string
		want    Release
		wantErr string
	}{
		{env: "", want: ReferenceRelease()},
		{env: "  ", want: ReferenceRelease()},
		{env: "v1.35.4", want: Release{"v1.35.4", "v3.6.6"}},
		{env: "v1.36.3", want: Release{"v1.36.3", "v3.6.8"}},
		{env: "v1.37.2", want: Release{"v1.37.2", "v3.7.0"}},
		{env: "v1.34.4", wantErr: `KCM_KUBE_VERSION: testenv: unknown Kubernetes release "v1.34.4": ` +
			`the supported releases are v1.35.4, v1.36.3, v1.37.2 (the table is in testenv/release.go)`},
	} {
		t.Run(tc.env, func(t *testing.T) {
			t.Setenv(EnvKubeVersion, tc.env)
			got, err := SelectedRelease()
			if tc.wantErr != "" {
				if err == nil || err.Error() != tc.wantErr || !errors.Is(err, ErrUnknownRelease) {
					t.Fatalf("SelectedRelease() = %v, %v; want the error %q", got, err, tc.wantErr)
				}
				return
			}
			if err != nil || got != tc.want {
				t.Fatalf("SelectedRelease() = %v, %v; want %v", got, err, tc.want)
			}
		})
	}
}

// Each release builds its own kube-apiserver and etcd, in its own cache
// directory, with its own version in the binary and the stamp; no two
// recipes of the table share a directory.
func TestReleaseRecipes(t *testing.T) {
	root := "/cache"
	dirs := map[string]string{}
	for _, rel := range Releases() {
		etcd, api := etcdRecipe(rel.Etcd), apiserverRecipe(rel.Kubernetes)
		for _, tc := range []struct {
			r       recipe
			wantDir string
		}{
			{etcd, "etcd-" + rel.Etcd},
			{api, "kube-apiserver-" + rel.Kubernetes},
		} {
			dir := tc.r.cacheDir(root)
			if dir != filepath.Join(root, tc.wantDir) {
				t.Errorf("%s: cache dir %s, want %s", rel, dir, filepath.Join(root, tc.wantDir))
			}
			if other, ok := dirs[dir]; ok {
				t.Errorf("%s and %s share the cache dir %s", other, rel, dir)
			}
			dirs[dir] = rel.String()
			if !strings.Contains(tc.r.stamp(), tc.r.version) {
				t.Errorf("%s: stamp %q lacks the version", rel, tc.r.stamp())
			}
		}
		if etcd.version != rel.Etcd || api.version != rel.Kubernetes {
			t.Errorf("%s: recipes at etcd %s, kube-apiserver %s", rel, etcd.version, api.version)
		}
		if !strings.Contains(api.ldflags, "k8s.io/component-base/version.gitVersion="+rel.Kubernetes+" ") {
			t.Errorf("%s: kube-apiserver's ldflags do not set its version: %s", rel, api.ldflags)
		}
	}
	// kube-controller-manager stays at the reference release.
	if v := controllerManagerRecipe().version; v != KubernetesVersion {
		t.Errorf("kube-controller-manager at %s, want the reference %s", v, KubernetesVersion)
	}
}
