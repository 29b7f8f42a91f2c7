package kcm_test

import (
	"bufio"
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// goFile is one .go file of the module, as the layout tests see it.
type goFile struct {
	dir     string   // its package's directory, slash-separated, relative to the module root ("." for the root)
	name    string   // its base name
	test    bool     // a _test.go file
	imports []string // the kcm packages it imports, as directories like dir
}

// module is every .go file of the main module, read with go/parser: no
// `go list`, no build, so the layout tests take milliseconds and see every
// file whatever its build constraints.
type module struct {
	path  string               // the module path, from go.mod
	files []goFile             // in directory, then name order
	pkgs  map[string][]*goFile // a package directory → its files
}

// packages is every directory holding a non-test .go file: what a reader
// can import or run, and so what a table of contents must name.
func (m *module) packages() []string {
	var out []string
	for dir, files := range m.pkgs {
		if slices.ContainsFunc(files, func(f *goFile) bool { return !f.test }) {
			out = append(out, dir)
		}
	}
	slices.Sort(out)
	return out
}

// loadModule walks the module rooted at the working directory (the test's
// package is the module root). Directories the go command ignores (testdata,
// names starting with . or _) and nested modules (bench/) are left out.
func loadModule(t *testing.T) *module {
	t.Helper()
	m := &module{path: modulePath(t, "go.mod"), pkgs: map[string][]*goFile{}}
	fset := token.NewFileSet()
	err := filepath.WalkDir(".", func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if p == "." {
				return nil
			}
			base := d.Name()
			if base == "testdata" || strings.HasPrefix(base, ".") || strings.HasPrefix(base, "_") {
				return filepath.SkipDir
			}
			if _, err := os.Stat(filepath.Join(p, "go.mod")); err == nil {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(p, ".go") {
			return nil
		}
		f, err := parser.ParseFile(fset, p, nil, parser.ImportsOnly)
		if err != nil {
			return err
		}
		m.files = append(m.files, goFile{
			dir:     filepath.ToSlash(filepath.Dir(p)),
			name:    d.Name(),
			test:    strings.HasSuffix(p, "_test.go"),
			imports: m.kcmImports(f),
		})
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	for i := range m.files {
		f := &m.files[i]
		m.pkgs[f.dir] = append(m.pkgs[f.dir], f)
	}
	if len(m.pkgs) < 10 {
		t.Fatalf("found only %d packages: is the working directory the module root?", len(m.pkgs))
	}
	return m
}

// kcmImports returns the packages of this module that f imports.
func (m *module) kcmImports(f *ast.File) []string {
	var out []string
	for _, spec := range f.Imports {
		p, err := strconv.Unquote(spec.Path.Value)
		if err != nil {
			continue
		}
		switch {
		case p == m.path:
			out = append(out, ".")
		case strings.HasPrefix(p, m.path+"/"):
			out = append(out, strings.TrimPrefix(p, m.path+"/"))
		}
	}
	return out
}

// modulePath reads the module directive of a go.mod file.
func modulePath(t *testing.T, gomod string) string {
	t.Helper()
	f, err := os.Open(gomod)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	s := bufio.NewScanner(f)
	for s.Scan() {
		if rest, ok := strings.CutPrefix(strings.TrimSpace(s.Text()), "module "); ok {
			return strings.Trim(strings.TrimSpace(rest), `"`)
		}
	}
	t.Fatalf("%s has no module directive", gomod)
	return ""
}

// packageDoc returns the package comment of dir/doc.go as text (comment
// markers removed), or "" when the package has no doc.go.
func packageDoc(t *testing.T, dir string) string {
	t.Helper()
	p := path.Join(dir, "doc.go")
	if _, err := os.Stat(p); err != nil {
		return ""
	}
	f, err := parser.ParseFile(token.NewFileSet(), p, nil, parser.ParseComments|parser.PackageClauseOnly)
	if err != nil {
		t.Fatal(err)
	}
	if f.Doc == nil {
		return ""
	}
	return f.Doc.Text()
}

// match reports whether a package directory matches a pattern: "dir" is that
// package, "dir/..." it and every package below it, "dir/*" every package
// directly below it.
func match(pattern, dir string) bool {
	if base, ok := strings.CutSuffix(pattern, "/..."); ok {
		return dir == base || strings.HasPrefix(dir, base+"/")
	}
	if base, ok := strings.CutSuffix(pattern, "/*"); ok {
		return path.Dir(dir) == base
	}
	return pattern == dir
}

// specificity orders the patterns that match one directory: a longer base
// wins; at the same base, a package beats its children, which beat the
// subtree.
func specificity(pattern string) int {
	if base, ok := strings.CutSuffix(pattern, "/..."); ok {
		return 4*len(base) + 1
	}
	if base, ok := strings.CutSuffix(pattern, "/*"); ok {
		return 4*len(base) + 2
	}
	return 4*len(pattern) + 3
}
