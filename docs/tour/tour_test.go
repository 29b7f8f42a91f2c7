package tour

import (
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// link is a Markdown link whose text is in backquotes: [`Name`](path).
var link = regexp.MustCompile("\\[`([^`]+)`\\]\\(([^)#]+)\\)")

// chapterLink is a plain link to another chapter: [title](NN-name.md).
var chapterLink = regexp.MustCompile(`\]\(([0-9]{2}-[a-z0-9-]+\.md)\)`)

func chapters(t *testing.T) []string {
	t.Helper()
	files, err := filepath.Glob("[0-9][0-9]-*.md")
	if err != nil || len(files) == 0 {
		t.Fatalf("no chapters found (%v)", err)
	}
	return files
}

// declared returns the names a Go file declares at top level: functions,
// types, variables and constants as "Name", methods as "Type.Name"
// (receiver without pointer or type parameters), and its package name.
func declared(path string) (pkg string, names map[string]bool, err error) {
	f, err := parser.ParseFile(token.NewFileSet(), path, nil, parser.SkipObjectResolution)
	if err != nil {
		return "", nil, err
	}
	names = map[string]bool{}
	for _, d := range f.Decls {
		switch d := d.(type) {
		case *ast.FuncDecl:
			if d.Recv == nil || len(d.Recv.List) == 0 {
				names[d.Name.Name] = true
				continue
			}
			names[receiver(d.Recv.List[0].Type)+"."+d.Name.Name] = true
		case *ast.GenDecl:
			for _, s := range d.Specs {
				switch s := s.(type) {
				case *ast.TypeSpec:
					names[s.Name.Name] = true
				case *ast.ValueSpec:
					for _, n := range s.Names {
						names[n.Name] = true
					}
				}
			}
		}
	}
	return f.Name.Name, names, nil
}

func receiver(e ast.Expr) string {
	switch e := e.(type) {
	case *ast.StarExpr:
		return receiver(e.X)
	case *ast.IndexExpr:
		return receiver(e.X)
	case *ast.IndexListExpr:
		return receiver(e.X)
	case *ast.Ident:
		return e.Name
	}
	return "?"
}

// resolves reports whether a link text names something path declares:
// "Run" (a function or type), "Loop.process" (a method), "manager.Run" (a
// function of package manager), the package's own name (a link to its
// doc.go), or the file's name or path.
func resolves(text, path, pkg string, names map[string]bool) bool {
	if text == pkg || strings.HasSuffix(filepath.ToSlash(path), text) || names[text] {
		return true
	}
	if p, rest, ok := strings.Cut(text, "."); ok && p == pkg && names[rest] {
		return true
	}
	return false
}

// TestCodeLinksResolve: every [`Name`](path) in a chapter points to a file
// or folder of this repository, and a Go file's link text names what the
// file declares.
func TestCodeLinksResolve(t *testing.T) {
	checked := 0
	for _, ch := range append(chapters(t), "README.md") {
		data, err := os.ReadFile(ch)
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range link.FindAllStringSubmatch(string(data), -1) {
			text, target := m[1], m[2]
			if strings.Contains(target, "://") {
				continue
			}
			path := filepath.Clean(target)
			st, err := os.Stat(path)
			if err != nil {
				t.Errorf("%s: [`%s`](%s): %v", ch, text, target, err)
				continue
			}
			checked++
			if st.IsDir() || !strings.HasSuffix(path, ".go") {
				continue
			}
			pkg, names, err := declared(path)
			if err != nil {
				t.Fatal(err)
			}
			if !resolves(text, path, pkg, names) {
				t.Errorf("%s: [`%s`](%s): %s declares no %q", ch, text, target, path, text)
			}
		}
	}
	if checked < 50 {
		t.Fatalf("only %d code links checked: the link pattern no longer matches the chapters", checked)
	}
}

// TestChaptersInOrder: README lists every chapter, in file order, and
// every chapter has a command to run and something to look at.
func TestChaptersInOrder(t *testing.T) {
	readme, err := os.ReadFile("README.md")
	if err != nil {
		t.Fatal(err)
	}
	var listed []string
	for _, m := range chapterLink.FindAllStringSubmatch(string(readme), -1) {
		listed = append(listed, m[1])
	}
	files := chapters(t)
	if !slices.Equal(listed, files) {
		t.Fatalf("README lists %v, the chapters are %v", listed, files)
	}
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		for _, part := range []string{"**Try it:**", "**Look at:**"} {
			if !strings.Contains(string(data), part) {
				t.Errorf("%s has no %s section", f, part)
			}
		}
	}
}

// TestEverySeedStepHasAChapter: the steps of kube-controller-manager's
// start-up and of one object's trip, as the walkthroughs kcm follows name
// them, each open a chapter.
func TestEverySeedStepHasAChapter(t *testing.T) {
	var titles []string
	for _, f := range chapters(t) {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		first, _, _ := strings.Cut(string(data), "\n")
		titles = append(titles, first)
	}
	all := strings.Join(titles, "\n")
	for _, step := range []string{"main", "Run", "Leader election", "CreateControllerContext", "BuildControllers",
		"InformerFactory.Start", "RunControllers", "reflector", "DeltaFIFO", "indexer", "sharedProcessor",
		"workqueue", "syncHandler", "Lease renew"} {
		if !strings.Contains(all, step) {
			t.Errorf("no chapter title names %q:\n%s", step, all)
		}
	}
}
