package protowire_test

import (
	"errors"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// self is this package's import path.
const self = "github.com/kcmlab/kcm/kube/protowire"

// TestOnlyBenchImportsIt holds the status doc.go states: the package is a
// prototype that only the bench/ module imports. A package of kcm's main
// module that imports it (outside kube/protowire itself) fails the test;
// making protowire kcm's wire format (issue 34) starts by changing
// doc.go and this test.
func TestOnlyBenchImportsIt(t *testing.T) {
	root := moduleRoot(t)
	importers, err := importersOf(root, self)
	if err != nil {
		t.Fatal(err)
	}
	if len(importers) > 0 {
		t.Errorf("%s is a prototype only bench/ may import (doc.go), but the main module imports it in %q", self, importers)
	}
	// The bench/ files doc.go names are exactly those that import it.
	bench, err := importersOf(filepath.Join(root, "bench"), self)
	if err != nil {
		t.Fatal(err)
	}
	slices.Sort(bench)
	if want := []string{"proto_integration_test.go", "proto_test.go", "protolist.go"}; !slices.Equal(bench, want) {
		t.Errorf("bench/ imports %s in %q; doc.go's status names %q", self, bench, want)
	}
}

// importersOf lists, relative to dir, the .go files of dir's module that
// import path. Nested modules (a directory with its own go.mod), testdata
// and the package's own directory are left out.
func importersOf(dir, path string) ([]string, error) {
	own := filepath.Join(strings.Split(strings.TrimPrefix(path, "github.com/kcmlab/kcm/"), "/")...)
	var found []string
	fset := token.NewFileSet()
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(dir, p)
		if d.IsDir() {
			if p != dir {
				if name := d.Name(); name == "testdata" || strings.HasPrefix(name, ".") {
					return filepath.SkipDir
				}
				if _, err := os.Stat(filepath.Join(p, "go.mod")); err == nil {
					return filepath.SkipDir
				}
			}
			if rel == own {
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
		for _, imp := range f.Imports {
			if v, err := strconv.Unquote(imp.Path.Value); err == nil && v == path {
				found = append(found, filepath.ToSlash(rel))
			}
		}
		return nil
	})
	return found, err
}

// moduleRoot is the directory of kcm's go.mod, above this package's.
func moduleRoot(t *testing.T) string {
	t.Helper()
	dir, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return dir
		} else if !errors.Is(err, fs.ErrNotExist) {
			t.Fatal(err)
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			t.Fatal("no go.mod above the test's directory")
		}
		dir = parent
	}
}
