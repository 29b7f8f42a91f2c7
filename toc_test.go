package kcm_test

import (
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// tocs are the doc.go files that are tables of contents, and which packages
// each must name: the root doc.go every package, kube/doc.go every package
// under kube/. An entry is a line "path — what it is", optionally numbered
// ("3. clock — ...") or a list item ("- clock — ...").
var tocs = []struct {
	dir    string
	covers func(pkg string) bool
}{
	{".", func(pkg string) bool { return pkg != "." }},
	{"kube", func(pkg string) bool { return strings.HasPrefix(pkg, "kube/") }},
}

var tocEntry = regexp.MustCompile(`^\s*(?:\d+\.\s*|-\s+)?([a-z][a-z0-9_./-]*)\s+— `)

// tocViolations compares the entries of a table of contents (its # Layers
// section left out) with the packages it must name, both ways.
func tocViolations(name, doc string, pkgs []string) []string {
	if i := strings.Index(doc, "\n# Layers\n"); i >= 0 {
		rest := doc[i+len("\n# Layers\n"):]
		if j := strings.Index(rest, "\n# "); j >= 0 {
			doc = doc[:i] + rest[j:]
		} else {
			doc = doc[:i]
		}
	}
	named := map[string]int{}
	for line := range strings.SplitSeq(doc, "\n") {
		if m := tocEntry.FindStringSubmatch(line); m != nil {
			named[m[1]]++
		}
	}
	var bad []string
	for _, p := range pkgs {
		if named[p] == 0 {
			bad = append(bad, fmt.Sprintf("%s does not name package %s (a line \"%s — what it is\")", name, p, p))
		}
	}
	for e, n := range named {
		switch {
		case !slices.Contains(pkgs, e):
			bad = append(bad, fmt.Sprintf("%s names %s, which is no package it covers", name, e))
		case n > 1:
			bad = append(bad, fmt.Sprintf("%s names %s %d times", name, e, n))
		}
	}
	slices.Sort(bad)
	return bad
}

// TestTableOfContents: root doc.go names every package of the module and
// kube/doc.go every package under kube/, and neither names one that does not
// exist.
func TestTableOfContents(t *testing.T) {
	pkgs := loadModule(t).packages()
	for _, toc := range tocs {
		var want []string
		for _, p := range pkgs {
			if toc.covers(p) {
				want = append(want, p)
			}
		}
		doc := packageDoc(t, toc.dir)
		if doc == "" {
			t.Fatalf("%s has no doc.go", toc.dir)
		}
		for _, v := range tocViolations(path.Join(toc.dir, "doc.go"), doc, want) {
			t.Error(v)
		}
	}
}

// readmeViolations: the README's "## Reading order" section names every
// package, as `path`.
func readmeViolations(readme string, pkgs []string) []string {
	_, section, ok := strings.Cut(readme, "\n## Reading order\n")
	if !ok {
		return []string{"README.md has no \"## Reading order\" section"}
	}
	if i := strings.Index(section, "\n## "); i >= 0 {
		section = section[:i]
	}
	var bad []string
	for _, p := range pkgs {
		if p != "." && !strings.Contains(section, "`"+p+"`") {
			bad = append(bad, fmt.Sprintf("README.md's reading order does not name package %s (as `%s`)", p, p))
		}
	}
	return bad
}

func TestReadmeReadingOrder(t *testing.T) {
	readme, err := os.ReadFile("README.md")
	if err != nil {
		t.Fatal(err)
	}
	for _, v := range readmeViolations(string(readme), loadModule(t).packages()) {
		t.Error(v)
	}
}

// fileListMarker opens the paragraph or list in which a doc.go names its
// package's files. The list runs to the first blank line that is not
// followed by an indented line (a list item), so it may be one paragraph or
// a marker line and a list. Every file.go named there must exist, and every
// non-test .go file of the package but doc.go must be named.
const fileListMarker = "One concept per file:"

// oldMarkers are other openings once used for a file list; they would hide a
// list from the check.
var oldMarkers = []string{"Files:", "One file per concept:"}

var goFileName = regexp.MustCompile(`(?:^|[^\w/.-])([a-z0-9_]+\.go)\b`)

// fileListViolations checks the file list of one package's doc.go against
// its files (base names, test files included).
func fileListViolations(dir, doc string, files []string) []string {
	lines := strings.Split(doc, "\n")
	var bad []string
	start := -1
	for i, l := range lines {
		l = strings.TrimSpace(l)
		for _, old := range oldMarkers {
			if strings.HasPrefix(l, old) {
				bad = append(bad, fmt.Sprintf("%s/doc.go opens a file list with %q: write %q", dir, old, fileListMarker))
			}
		}
		if strings.HasPrefix(l, fileListMarker) {
			if start >= 0 {
				bad = append(bad, fmt.Sprintf("%s/doc.go has two file lists", dir))
			}
			start = i
		}
	}
	if start < 0 {
		return bad
	}
	var block []string
	for j := start; j < len(lines); j++ {
		if lines[j] == "" {
			if j+1 < len(lines) && strings.HasPrefix(lines[j+1], " ") {
				continue
			}
			break
		}
		block = append(block, lines[j])
	}
	named := map[string]bool{}
	for _, m := range goFileName.FindAllStringSubmatch(strings.Join(block, "\n"), -1) {
		named[m[1]] = true
	}
	for n := range named {
		if !slices.Contains(files, n) {
			bad = append(bad, fmt.Sprintf("%s/doc.go's file list names %s, which does not exist", dir, n))
		}
	}
	for _, f := range files {
		if !strings.HasSuffix(f, "_test.go") && f != "doc.go" && !named[f] {
			bad = append(bad, fmt.Sprintf("%s/doc.go's file list omits %s", dir, f))
		}
	}
	slices.Sort(bad)
	return bad
}

// TestDocFileLists: where a doc.go lists its package's files, the list is
// the package's files.
func TestDocFileLists(t *testing.T) {
	m := loadModule(t)
	lists := 0
	for _, dir := range m.packages() {
		doc := packageDoc(t, dir)
		if strings.Contains(doc, fileListMarker) {
			lists++
		}
		var files []string
		for _, f := range m.pkgs[dir] {
			files = append(files, f.name)
		}
		for _, v := range fileListViolations(dir, doc, files) {
			t.Error(v)
		}
	}
	if lists < 6 {
		t.Errorf("only %d doc.go files list their files; ctrl, its four listing controllers and manager do", lists)
	}
}

var mdLink = regexp.MustCompile(`\]\(([^)\s]+)\)`)

// TestMarkdownLinks: every relative link of every Markdown file in the
// repository (bench/ included) leads to a file or directory that exists, so
// a moved package cannot leave a README pointing at its old place.
func TestMarkdownLinks(t *testing.T) {
	n := 0
	err := filepath.WalkDir(".", func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && p != "." && strings.HasPrefix(d.Name(), ".") {
			return filepath.SkipDir
		}
		if d.IsDir() || !strings.HasSuffix(p, ".md") {
			return nil
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		for _, m := range mdLink.FindAllStringSubmatch(string(b), -1) {
			target, _, _ := strings.Cut(m[1], "#")
			if target == "" || strings.Contains(target, "://") || strings.HasPrefix(target, "mailto:") {
				continue
			}
			n++
			if _, err := os.Stat(filepath.Join(filepath.Dir(p), filepath.FromSlash(target))); err != nil {
				t.Errorf("%s links to %s, which does not exist", p, m[1])
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if n < 50 {
		t.Errorf("found only %d relative links: is the working directory the module root?", n)
	}
}

// The checks themselves are checked: each kind of untrue table of contents
// is reported.
func TestTableOfContentsCatches(t *testing.T) {
	pkgs := []string{"clock", "kube/api", "ctrl/deployment"}
	doc := "Intro.\n\n\t1. clock — the clock\n\t   kube/api — the model\n\n  - ctrl/deployment — a controller\n\n# Layers\n\n\tkube/rest — not an entry here\n"
	if got := tocViolations("doc.go", doc, pkgs); len(got) != 0 {
		t.Fatalf("a true table of contents fails: %q", got)
	}
	for _, tc := range []struct {
		name, doc string
		pkgs      []string
		want      string
	}{
		{"missing", doc, append(slices.Clone(pkgs), "tap"), `doc.go does not name package tap`},
		{"stale", strings.Replace(doc, "clock — the clock", "clock — the clock\n\t   pipeview — gone", 1), pkgs, "doc.go names pipeview, which is no package"},
		{"twice", "\tclock — again\n" + doc, pkgs, "doc.go names clock 2 times"},
	} {
		if got := tocViolations("doc.go", tc.doc, tc.pkgs); !slices.ContainsFunc(got, func(s string) bool { return strings.HasPrefix(s, tc.want) }) {
			t.Errorf("%s: want %q, got %q", tc.name, tc.want, got)
		}
	}

	readme := "# x\n\n## Reading order\n\n1. [`clock`](clock) 2. `kube/api`\n\n## Next\n\n`ctrl/deployment`\n"
	if got := readmeViolations(readme, pkgs); len(got) != 1 || !strings.Contains(got[0], "package ctrl/deployment") {
		t.Errorf("a package named only outside the reading order: got %q", got)
	}

	files := []string{"a.go", "b.go", "doc.go", "a_test.go"}
	for _, tc := range []struct {
		name, doc string
		want      []string
	}{
		{"true", "X.\n\nOne concept per file: a.go (A), b.go (B), a_test.go.\n\nSee other/c.go and c.go.\n", nil},
		{"list", "One concept per file:\n\n  - a.go: A\n  - b.go: B\n\n# Next\n\nc.go\n", nil},
		{"no list", "Mentions c.go only.\n", nil},
		{"omits", "One concept per file: a.go.\n", []string{"d/doc.go's file list omits b.go"}},
		{"stale", "One concept per file: a.go, b.go, c.go.\n", []string{"d/doc.go's file list names c.go, which does not exist"}},
		{"old marker", "Files: a.go, b.go.\n", []string{`d/doc.go opens a file list with "Files:": write "One concept per file:"`}},
	} {
		if got := fileListViolations("d", tc.doc, files); !slices.Equal(got, tc.want) {
			t.Errorf("%s: got %q, want %q", tc.name, got, tc.want)
		}
	}
}
