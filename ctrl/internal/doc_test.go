package internal

import (
	"os"
	"regexp"
	"slices"
	"testing"
)

// TestEveryPieceIsListed: every package under ctrl/internal opens with a
// doc.go and is named in this package's list of pieces, and the list
// names no package that does not exist, so the shelf's table of contents
// cannot drift from the shelf.
func TestEveryPieceIsListed(t *testing.T) {
	doc, err := os.ReadFile("doc.go")
	if err != nil {
		t.Fatal(err)
	}
	var listed []string
	for _, m := range regexp.MustCompile(`(?m)^//\t([a-z]+) +\S`).FindAllStringSubmatch(string(doc), -1) {
		listed = append(listed, m[1])
	}
	entries, err := os.ReadDir(".")
	if err != nil {
		t.Fatal(err)
	}
	var dirs []string
	for _, e := range entries {
		if !e.IsDir() {
			continue
		}
		dirs = append(dirs, e.Name())
		if _, err := os.Stat(e.Name() + "/doc.go"); err != nil {
			t.Errorf("ctrl/internal/%s has no doc.go", e.Name())
		}
	}
	slices.Sort(listed)
	if !slices.Equal(listed, dirs) {
		t.Errorf("doc.go lists %v, the directory holds %v", listed, dirs)
	}
}
