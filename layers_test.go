package kcm_test

import (
	"fmt"
	"slices"
	"strings"
	"testing"
)

// layer is one layer of kcm, lowest first. A pattern is a package directory,
// "dir/..." (dir and everything below it: one unit, whose packages may import
// each other) or "dir/*" (each package directly below dir that no more
// specific pattern names: peers, which may not import each other). A package
// belongs to its most specific pattern.
type layer struct {
	name string
	pkgs []string
	why  string
}

// layers is the architecture, lowest first, as the pipeline draws it
// (kube-apiserver → reflector → deltafifo → store → processor → handler →
// queue → workers, under a lease): a non-test file may import only packages
// of lower layers, or of its own "dir/..." unit. Packages of one layer are
// independent of each other. The order is today's import graph, written
// down so that a new arrow upwards fails: root doc.go shows this table
// (TestLayersAreDocumented).
var layers = []layer{
	{"contents", []string{".", "kube", "docs/tour"},
		"chapters without code: the table of contents, the kube overview and the guided tour import nothing"},
	{"base", []string{"clock", "internal/ring", "internal/promreg", "kube/internal/jsonx", "kube/internal/redact"},
		"leaves every layer may use: the injectable clock, the FIFO buffer under deltafifo, processor and queue, " +
			"the Prometheus register-or-reuse helper, kcm's JSON bytes, secret redaction; they import no kcm package"},
	{"model", []string{"kube/api/...", "tap"},
		"what every layer passes and reports: the object model (the cache imports nothing more) and the observation points"},
	{"client", []string{"kube/labels", "kube/rest"},
		"talking to the apiserver about objects: selectors, the REST client"},
	{"stages", []string{"reflector", "deltafifo", "store", "processor", "queue", "lease", "kube/clientcmd", "testenv"},
		"the pipeline's stages and the ways to reach a cluster: none imports another, so each is tested alone"},
	{"assembly", []string{"informer", "pipeview", "authdelegate"},
		"informer assembles reflector, deltafifo, store and processor; pipeview draws what tap reports and the lease; " +
			"authdelegate guards the secure port with the apiserver's TokenReview and SubjectAccessReview"},
	{"framework", []string{"ctrl", "ctrl/controllerref", "ctrl/history", "ctrl/internal/..."},
		"what every controller shares: registry, context, wiring, work loop, expectations, events; ownership; " +
			"revision history; " +
			"the parts the endpoint controllers share (pod rules, Services of a pod, repacked subsets, hash order, " +
			"endpoint sets, the slice tracker, well-known labels) and the metadata monitors the resource quota controller " +
			"and the garbage collector keep"},
	{"controllers", []string{"ctrl/*", "ctrl/endpointslice/...", "ctrl/nodelifecycle/...", "ctrl/resourcequota/..."},
		"one package per controller; a controller never imports another (the EndpointSlice, node lifecycle and resource quota controllers' own packages import each other)"},
	{"manager", []string{"manager"},
		"the controller manager: flags, endpoints, leader election, start-up of every controller"},
	{"binary", []string{"cmd/kcm"},
		"the kcm binary; it links testenv for `kcm dev`, a product feature"},
	{"verification", []string{"internal/testing/...", "kube/internal/redact/redacttest"},
		"test and verification support (fakes, fixtures, differential and benchmark harnesses): " +
			"it may import any layer, and only tests and the harness binaries import it (restricted)"},
	{"harness", []string{"cmd/kcm-bench", "cmd/kcm-compat", "cmd/kcm-e2e"},
		"the binaries behind make bench-manager, make compat and make e2e"},
}

// restricted names packages that most packages may import only from their
// _test.go files, whatever their layer.
var restricted = []struct {
	pkg       string
	importers []string // who may import it from a non-test file
	why       string
}{
	{"internal/testing/...", []string{"internal/testing/...", "cmd/kcm-bench", "cmd/kcm-compat", "cmd/kcm-e2e"},
		"test and verification support: fakes, fixtures, harnesses; no library links it"},
	{"kube/internal/redact/redacttest", nil,
		"the secret-leak check run by kube/rest's and kube/clientcmd's tests"},
	{"testenv", []string{"cmd/kcm", "internal/testing/...", "cmd/kcm-bench", "cmd/kcm-compat", "cmd/kcm-e2e"},
		"a real control plane for tests; cmd/kcm links it for `kcm dev` (a product feature), no library does"},
}

// placement is where a package sits: its layer and the pattern that put it there.
type placement struct {
	layer   int
	pattern string
}

// place finds a package's layer by its most specific pattern.
func place(dir string) (placement, bool) {
	best, score := placement{}, -1
	for i, l := range layers {
		for _, p := range l.pkgs {
			if s := specificity(p); match(p, dir) && s > score {
				best, score = placement{i, p}, s
			}
		}
	}
	return best, score >= 0
}

// layerViolations checks every non-test file's imports against layers and
// restricted, and every package against the table, and returns what is wrong.
func layerViolations(m *module) []string {
	var bad []string
	pkgs := m.packages()
	for _, dir := range pkgs {
		if _, ok := place(dir); !ok {
			bad = append(bad, fmt.Sprintf("package %s is in no layer: add it to layers in layers_test.go (and to root doc.go)", dir))
		}
	}
	for _, l := range layers {
		for _, p := range l.pkgs {
			if !slices.ContainsFunc(pkgs, func(dir string) bool { pl, _ := place(dir); return pl.pattern == p }) {
				bad = append(bad, fmt.Sprintf("layer %q names %s, which places no package", l.name, p))
			}
		}
	}
	for _, f := range m.files {
		if f.test {
			continue
		}
		from, ok := place(f.dir)
		if !ok {
			continue
		}
		file := f.dir + "/" + f.name
		for _, imp := range f.imports {
			for _, r := range restricted {
				if match(r.pkg, imp) && !slices.ContainsFunc(r.importers, func(p string) bool { return match(p, f.dir) }) {
					bad = append(bad, fmt.Sprintf("%s imports %s: only _test.go files may (%s; allowed also in %s)",
						file, imp, r.why, orNone(r.importers)))
				}
			}
			to, ok := place(imp)
			switch {
			case !ok:
				bad = append(bad, fmt.Sprintf("%s imports %s, which is in no layer", file, imp))
			case to.layer < from.layer:
			case to.pattern == from.pattern && strings.HasSuffix(to.pattern, "/..."):
			case to.layer == from.layer:
				bad = append(bad, fmt.Sprintf("%s imports %s: both are in layer %d %q, whose packages are independent of each other",
					file, imp, from.layer, layers[from.layer].name))
			default:
				bad = append(bad, fmt.Sprintf("%s imports %s: layer %d %q imports upwards into layer %d %q",
					file, imp, from.layer, layers[from.layer].name, to.layer, layers[to.layer].name))
			}
		}
	}
	return bad
}

func orNone(s []string) string {
	if len(s) == 0 {
		return "no other package"
	}
	return strings.Join(s, ", ")
}

// TestLayering is the rule that an import never runs up: a package's
// non-test files import only lower layers (or its own unit), and test support
// is imported only by tests, the harness binaries and, for testenv, `kcm dev`.
func TestLayering(t *testing.T) {
	for _, v := range layerViolations(loadModule(t)) {
		t.Error(v)
	}
}

// The rule itself is checked: each kind of wrong import is reported.
func TestLayeringCatches(t *testing.T) {
	m := loadModule(t)
	for _, tc := range []struct {
		dir, imp, want string
	}{
		{"store", "internal/testing/podgen", "store/bad.go imports internal/testing/podgen: only _test.go files may"},
		{"ctrl", "testenv", "ctrl/bad.go imports testenv: only _test.go files may"},
		{"kube/rest", "kube/internal/redact/redacttest", "kube/rest/bad.go imports kube/internal/redact/redacttest: only _test.go files may"},
		{"internal/ring", "deltafifo", `internal/ring/bad.go imports deltafifo: layer 1 "base" imports upwards into layer 4 "stages"`},
		{"deltafifo", "store", `deltafifo/bad.go imports store: both are in layer 4 "stages"`},
		{"ctrl/deployment", "ctrl/replicaset", `ctrl/deployment/bad.go imports ctrl/replicaset: both are in layer 7 "controllers"`},
		{"ctrl/endpointslicemirroring", "ctrl/endpoint", `ctrl/endpointslicemirroring/bad.go imports ctrl/endpoint: both are in layer 7 "controllers"`},
		{"ctrl/internal/endpointset", "ctrl/endpointslice/reconciler", `ctrl/internal/endpointset/bad.go imports ctrl/endpointslice/reconciler: layer 6 "framework" imports upwards into layer 7 "controllers"`},
		{"ctrl", "manager", `ctrl/bad.go imports manager: layer 6 "framework" imports upwards into layer 8 "manager"`},
		{"store", "nosuch/pkg", "store/bad.go imports nosuch/pkg, which is in no layer"},
		{"nosuch", "clock", "package nosuch is in no layer"},
	} {
		t.Run(tc.dir+"→"+tc.imp, func(t *testing.T) {
			bad := &module{path: m.path, files: append(slices.Clone(m.files), goFile{dir: tc.dir, name: "bad.go", imports: []string{tc.imp}})}
			bad.pkgs = map[string][]*goFile{}
			for i := range bad.files {
				bad.pkgs[bad.files[i].dir] = append(bad.pkgs[bad.files[i].dir], &bad.files[i])
			}
			got := layerViolations(bad)
			if !slices.ContainsFunc(got, func(s string) bool { return strings.HasPrefix(s, tc.want) }) {
				t.Errorf("want a violation starting %q, got %q", tc.want, got)
			}
			// The same import from a test file is allowed.
			bad.files[len(bad.files)-1].name, bad.files[len(bad.files)-1].test = "bad_test.go", true
			for _, s := range layerViolations(bad) {
				if strings.Contains(s, "bad_test.go") {
					t.Errorf("a test file is held to the layers: %s", s)
				}
			}
		})
	}
}

// renderLayers is the table as root doc.go's # Layers section shows it.
func renderLayers() string {
	var b strings.Builder
	for i, l := range layers {
		fmt.Fprintf(&b, "%2d. %s: %s — %s\n", i, l.name, strings.Join(l.pkgs, ", "), l.why)
	}
	return b.String()
}

// TestLayersAreDocumented: the indented lines of root doc.go's # Layers
// section are the table above, word for word (line breaks free).
func TestLayersAreDocumented(t *testing.T) {
	doc := packageDoc(t, ".")
	_, section, ok := strings.Cut(doc, "\n# Layers\n")
	if !ok {
		t.Fatal("root doc.go has no # Layers section")
	}
	if i := strings.Index(section, "\n# "); i >= 0 {
		section = section[:i]
	}
	var block []string
	for line := range strings.SplitSeq(section, "\n") {
		if strings.HasPrefix(line, "\t") || strings.HasPrefix(line, " ") {
			block = append(block, line)
		}
	}
	if got, want := strings.Fields(strings.Join(block, " ")), strings.Fields(renderLayers()); !slices.Equal(got, want) {
		t.Errorf("root doc.go's # Layers list is not layers_test.go's table; want (wrap lines as you like):\n%s",
			indent(renderLayers()))
	}
}

func indent(s string) string {
	return "\t" + strings.ReplaceAll(strings.TrimSuffix(s, "\n"), "\n", "\n\t") + "\n"
}
