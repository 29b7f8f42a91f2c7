package kcm_test

import (
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// contributingNotPaths are words with a slash that CONTRIBUTING.md writes
// in backticks and that are not paths of this repository.
var contributingNotPaths = map[string]bool{
	"testing/synctest": true, // the standard library's package
}

var (
	// contributingSpan is an inline code span on one line.
	contributingSpan = regexp.MustCompile("`([^`\n]+)`")
	// contributingCitation is "`Name` (`path:line`": the line must hold Name.
	contributingCitation = regexp.MustCompile("`([A-Za-z_][A-Za-z0-9_]*)`\\s*\\(`([^`\\s]+):([0-9]+)`")
	// contributingDeclaredIn is "`Name` in `path`" (or from): a Go file or
	// package there must declare Name.
	contributingDeclaredIn = regexp.MustCompile("`([A-Za-z_][A-Za-z0-9_]*)`\\s+(?:in|from)\\s+`([^`\\s]+)`")
	// contributingMake is a make command inside a code span.
	contributingMake = regexp.MustCompile(`(?:^|\s)make\s+([a-z][a-z0-9-]*)`)
	// contributingTarget is a rule's target in the Makefile.
	contributingTarget = regexp.MustCompile(`(?m)^([A-Za-z0-9_-]+):(?:\s|$)`)
)

// TestContributing keeps CONTRIBUTING.md true: every repository path it
// writes in backticks exists (a cited line exists too), every name cited
// with its file and line is on that line, every name said to be in a Go
// file or package is declared there, and every make target it names is in
// the Makefile.
func TestContributing(t *testing.T) {
	text, err := os.ReadFile("CONTRIBUTING.md")
	if err != nil {
		t.Fatal(err)
	}
	bad, checked := contributingViolations(".", string(text))
	for _, v := range bad {
		t.Errorf("CONTRIBUTING.md: %s", v)
	}
	t.Logf("checked %d paths, %d cited lines, %d declarations, %d make targets", checked.paths, checked.citations, checked.declared, checked.targets)
	// A checker that finds nothing to check passes anything: the page
	// cites its worked example by path and line.
	if checked.paths < 50 || checked.citations < 20 || checked.declared < 20 || checked.targets < 4 {
		t.Errorf("CONTRIBUTING.md: only %+v checked; the parser lost the page's references", checked)
	}
}

// TestContributingChecksCatch: each kind of stale reference is reported,
// and the good ones are not.
func TestContributingChecksCatch(t *testing.T) {
	root := t.TempDir()
	for name, body := range map[string]string{
		"lib/pkg/a.go": "package pkg\n\n// The function.\nfunc Foo() {}\n\ntype T struct{}\n\n// Method is.\nfunc (T) Method() {}\n\nvar (\n\tV = 1\n)\n",
		"lib/pkg/b.go": "package pkg\n\nconst C = 2\n",
		"Makefile":     "X ?= 1\ntest: vet\n\tgo test ./...\nvet:\n\tgo vet\n",
		"deploy.md":    "# a\n",
	} {
		if err := os.MkdirAll(filepath.Join(root, filepath.Dir(name)), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(root, name), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	good := "`lib/pkg/a.go`, `./lib/...`, `deploy.md`, `Makefile`, `testing/synctest`, `--flag=x`, `~/.cache/x`, `<name>/x`\n" +
		"`Foo` (`lib/pkg/a.go:4`), `Method` (`lib/pkg/a.go:9`), `Foo` in `lib/pkg/a.go`, `Method` in `lib/pkg/a.go`,\n" +
		"`V` in `lib/pkg/a.go`, `C` in `lib/pkg`, `T` from\n`lib/pkg/a.go`, `make test`, `make vet PKG=./lib/pkg`\n" +
		"```sh\nmake test   # lib/missing.go in a comment is not checked\ngo test ./lib/pkg/\n```\n"
	if bad, _ := contributingViolations(root, good); len(bad) != 0 {
		t.Fatalf("good references reported: %q", bad)
	}
	for _, tc := range []struct{ text, want string }{
		{"`lib/missing.go`", "lib/missing.go does not exist"},
		{"`lib/pkg/a.go:99`", "lib/pkg/a.go:99: the file has 13 lines"},
		{"`lib/pkg:3`", "lib/pkg:3 is not a file"},
		{"`Foo` (`lib/pkg/a.go:3`)", "`Foo` is not on lib/pkg/a.go:3 (it is declared on line 4)"},
		{"`Gone` (`lib/pkg/a.go:4`)", "`Gone` is not on lib/pkg/a.go:4 (it is not in the file)"},
		{"`Method` (`lib/pkg/a.go:8`)", "`Method` is not on lib/pkg/a.go:8 (it is declared on line 9)"},
		{"`Bar` in `lib/pkg/a.go`", "`Bar` is not declared in lib/pkg/a.go"},
		{"`C` in `lib/pkg/a.go`", "`C` is not declared in lib/pkg/a.go"},
		{"`Bar` in `lib/pkg`", "`Bar` is not declared in lib/pkg"},
		{"`Bar` in `deploy.md`", "`Bar` is not in deploy.md"},
		{"```\nmake deploy\n```", "make deploy: the Makefile has no target deploy"},
		{"`make e2e`", "make e2e: the Makefile has no target e2e"},
		{"`go test ./nowhere/...`", "nowhere does not exist"},
	} {
		bad, _ := contributingViolations(root, tc.text)
		if !slices.Contains(bad, tc.want) {
			t.Errorf("%q: reported %q, want %q among them", tc.text, bad, tc.want)
		}
	}
}

// contributingChecked counts what contributingViolations looked at.
type contributingChecked struct{ paths, citations, declared, targets int }

// contributingViolations checks the references of a CONTRIBUTING.md text
// against the repository at root.
func contributingViolations(root, text string) ([]string, contributingChecked) {
	var bad []string
	var n contributingChecked
	prose, spans := contributingSplit(text)

	for _, span := range spans {
		for _, w := range strings.Fields(span) {
			p, line, ok := contributingPath(w)
			if !ok {
				continue
			}
			n.paths++
			if v := contributingCheckPath(root, p, line); v != "" {
				bad = append(bad, v)
			}
		}
		for _, m := range contributingMake.FindAllStringSubmatch(span, -1) {
			n.targets++
			if v := contributingCheckMake(root, m[1]); v != "" {
				bad = append(bad, v)
			}
		}
	}
	for _, m := range contributingCitation.FindAllStringSubmatch(prose, -1) {
		n.citations++
		line, _ := strconv.Atoi(m[3])
		if v := contributingCheckCitation(root, m[1], m[2], line); v != "" {
			bad = append(bad, v)
		}
	}
	for _, m := range contributingDeclaredIn.FindAllStringSubmatch(prose, -1) {
		p, _, ok := contributingPath(m[2])
		if !ok {
			continue
		}
		n.declared++
		if v := contributingCheckDeclared(root, m[1], p); v != "" {
			bad = append(bad, v)
		}
	}
	return bad, n
}

// contributingSplit returns the text outside fenced code blocks, and the
// code: each inline span, and each line of a fenced block without its
// shell comment.
func contributingSplit(text string) (prose string, spans []string) {
	var out strings.Builder
	fenced := false
	for l := range strings.SplitSeq(text, "\n") {
		if strings.HasPrefix(strings.TrimSpace(l), "```") {
			fenced = !fenced
			continue
		}
		if fenced {
			if i := strings.Index(l, " #"); i >= 0 {
				l = l[:i]
			}
			spans = append(spans, l)
			continue
		}
		out.WriteString(l)
		out.WriteByte('\n')
		for _, m := range contributingSpan.FindAllStringSubmatch(l, -1) {
			spans = append(spans, m[1])
		}
	}
	return out.String(), spans
}

// contributingPath reads a word of a code span as a repository path, with
// an optional ":line": a word with a slash or a file name with an
// extension the repository uses. Flags, placeholders, home paths,
// comments, expressions and the words in contributingNotPaths are not
// paths.
func contributingPath(w string) (path string, line int, ok bool) {
	if i := strings.LastIndexByte(w, '='); i >= 0 {
		w = w[i+1:] // PKG=./ctrl/x
	}
	w = strings.TrimRight(w, ",;")
	if w == "" || strings.HasPrefix(w, "-") || strings.HasPrefix(w, "~") || strings.HasPrefix(w, "//") ||
		strings.ContainsAny(w, "<>*{}()[]!'\"$@&") || strings.Contains(w, "://") {
		return "", 0, false
	}
	if i := strings.LastIndexByte(w, ':'); i >= 0 {
		n, err := strconv.Atoi(w[i+1:])
		if err != nil {
			return "", 0, false
		}
		w, line = w[:i], n
	}
	isFile := w == "Makefile"
	for _, ext := range []string{".go", ".md", ".yaml", ".yml", ".mod", ".sum"} {
		isFile = isFile || strings.HasSuffix(w, ext)
	}
	if !strings.Contains(w, "/") && !isFile {
		return "", 0, false
	}
	w = strings.TrimSuffix(strings.TrimPrefix(w, "./"), "/...")
	w = strings.TrimSuffix(w, "/")
	if w == "" || w == "." || w == "..." || contributingNotPaths[w] {
		return "", 0, false
	}
	return w, line, true
}

// contributingCheckPath reports a path that does not exist under root, or a line
// beyond the end of its file.
func contributingCheckPath(root, p string, line int) string {
	fi, err := os.Stat(filepath.Join(root, filepath.FromSlash(p)))
	if err != nil {
		return fmt.Sprintf("%s does not exist", p)
	}
	if line == 0 {
		return ""
	}
	if fi.IsDir() {
		return fmt.Sprintf("%s:%d is not a file", p, line)
	}
	if lines := len(contributingLines(root, p)); line > lines {
		return fmt.Sprintf("%s:%d: the file has %d lines", p, line, lines)
	}
	return ""
}

// contributingCheckCitation reports a name that is not on the line cited for it,
// saying where it is.
func contributingCheckCitation(root, name, p string, line int) string {
	lines := contributingLines(root, p)
	if line < 1 || line > len(lines) {
		return "" // contributingCheckPath reports it
	}
	word := regexp.MustCompile(`\b` + regexp.QuoteMeta(name) + `\b`)
	if word.MatchString(contributingCode(lines[line-1])) {
		return ""
	}
	decl := regexp.MustCompile(`^(func (\([^)]*\) )?|type |const |var |\t)` + regexp.QuoteMeta(name) + `\b`)
	for i, l := range lines {
		if decl.MatchString(l) {
			return fmt.Sprintf("`%s` is not on %s:%d (it is declared on line %d)", name, p, line, i+1)
		}
	}
	for i, l := range lines {
		if word.MatchString(contributingCode(l)) {
			return fmt.Sprintf("`%s` is not on %s:%d (it is on line %d)", name, p, line, i+1)
		}
	}
	return fmt.Sprintf("`%s` is not on %s:%d (it is not in the file)", name, p, line)
}

// contributingCode is a line without its // comment: a citation points
// at code, not at the comment above it.
func contributingCode(line string) string {
	if i := strings.Index(line, "//"); i >= 0 {
		return line[:i]
	}
	return line
}

// contributingCheckDeclared reports a name that the Go file p, or the Go files of the
// directory p, do not declare at the top level (a function, a method, a
// type, a constant or a variable). A file that is not Go must contain the
// name.
func contributingCheckDeclared(root, name, p string) string {
	full := filepath.Join(root, filepath.FromSlash(p))
	fi, err := os.Stat(full)
	if err != nil {
		return "" // contributingCheckPath reports it
	}
	files := []string{full}
	if fi.IsDir() {
		files, _ = filepath.Glob(filepath.Join(full, "*.go"))
	} else if !strings.HasSuffix(p, ".go") {
		if regexp.MustCompile(`\b` + regexp.QuoteMeta(name) + `\b`).Match(contributingRead(full)) {
			return ""
		}
		return fmt.Sprintf("`%s` is not in %s", name, p)
	}
	for _, f := range files {
		if slices.Contains(contributingDeclarations(f), name) {
			return ""
		}
	}
	return fmt.Sprintf("`%s` is not declared in %s", name, p)
}

// contributingCheckMake reports a make target the Makefile does not define.
func contributingCheckMake(root, target string) string {
	for _, m := range contributingTarget.FindAllStringSubmatch(string(contributingRead(filepath.Join(root, "Makefile"))), -1) {
		if m[1] == target {
			return ""
		}
	}
	return fmt.Sprintf("make %s: the Makefile has no target %s", target, target)
}

// contributingDeclarations lists the top-level names a Go file declares; a file
// that does not parse declares nothing.
func contributingDeclarations(path string) []string {
	f, err := parser.ParseFile(token.NewFileSet(), path, nil, parser.SkipObjectResolution)
	if err != nil {
		return nil
	}
	var names []string
	for _, d := range f.Decls {
		switch d := d.(type) {
		case *ast.FuncDecl:
			names = append(names, d.Name.Name)
		case *ast.GenDecl:
			for _, s := range d.Specs {
				switch s := s.(type) {
				case *ast.TypeSpec:
					names = append(names, s.Name.Name)
				case *ast.ValueSpec:
					for _, n := range s.Names {
						names = append(names, n.Name)
					}
				}
			}
		}
	}
	return names
}

// contributingLines returns the lines of root/p (nil if it cannot be read).
func contributingLines(root, p string) []string {
	b := contributingRead(filepath.Join(root, filepath.FromSlash(p)))
	if b == nil {
		return nil
	}
	return strings.Split(strings.TrimSuffix(string(b), "\n"), "\n")
}

// contributingRead returns a file's bytes, nil if it cannot be read.
func contributingRead(path string) []byte {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil
	}
	return b
}
