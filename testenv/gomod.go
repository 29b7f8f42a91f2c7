package testenv

import (
	"fmt"
	"sort"
	"strconv"
	"strings"
)

// modFile is the little that testenv needs to know about k8s.io/kubernetes's
// go.mod: its language line, its godebug defaults, and which modules it
// points at its own ./staging tree.
type modFile struct {
	// Go is the argument of the "go" directive ("1.24.0"), or "".
	Go string
	// Godebug holds the "key=value" arguments of godebug directives, in file
	// order.
	Godebug []string
	// Staging lists, sorted, every module path that a replace directive points
	// at a directory under ./staging/.
	Staging []string
}

// parseModFile reads the directives testenv needs from go.mod text. It
// understands single-line and parenthesised blocks, // comments and quoted
// paths, which is all the go.mod grammar that appears in a replace, go or
// godebug directive. Anything else is ignored.
func parseModFile(text string) (modFile, error) {
	var mf modFile
	block := "" // the verb of the "verb (" block we are inside, or ""
	for n, raw := range strings.Split(text, "\n") {
		line := stripComment(raw)
		if line == "" {
			continue
		}
		if block != "" {
			if line == ")" {
				block = ""
				continue
			}
			if err := mf.directive(block, line); err != nil {
				return modFile{}, fmt.Errorf("go.mod line %d: %w", n+1, err)
			}
			continue
		}
		verb, rest, _ := strings.Cut(line, " ")
		rest = strings.TrimSpace(rest)
		if rest == "(" {
			block = verb
			continue
		}
		if err := mf.directive(verb, rest); err != nil {
			return modFile{}, fmt.Errorf("go.mod line %d: %w", n+1, err)
		}
	}
	if block != "" {
		return modFile{}, fmt.Errorf("go.mod: %s block not closed", block)
	}
	sort.Strings(mf.Staging)
	return mf, nil
}

// directive records one directive's arguments; verbs testenv does not need
// are skipped.
func (mf *modFile) directive(verb, args string) error {
	switch verb {
	case "go":
		mf.Go = args
	case "godebug":
		mf.Godebug = append(mf.Godebug, strings.Join(strings.Fields(args), ""))
	case "replace":
		from, to, ok := strings.Cut(args, "=>")
		if !ok {
			return fmt.Errorf("replace without =>: %q", args)
		}
		oldPath, err := firstField(from)
		if err != nil {
			return err
		}
		newPath, err := firstField(to)
		if err != nil {
			return err
		}
		if strings.HasPrefix(newPath, "./staging/") {
			mf.Staging = append(mf.Staging, oldPath)
		}
	}
	return nil
}

// firstField returns the first whitespace-separated token of s, unquoting
// it when go.mod quoted it.
func firstField(s string) (string, error) {
	f := strings.Fields(s)
	if len(f) == 0 {
		return "", fmt.Errorf("empty module path")
	}
	if strings.HasPrefix(f[0], `"`) || strings.HasPrefix(f[0], "`") {
		return strconv.Unquote(f[0])
	}
	return f[0], nil
}

// stripComment removes a trailing // comment and surrounding space. Paths in
// go.mod never contain "//", so a plain search is enough.
func stripComment(line string) string {
	if i := strings.Index(line, "//"); i >= 0 {
		line = line[:i]
	}
	return strings.TrimSpace(line)
}

// stagingVersion maps a Kubernetes release to the version its staging
// modules are published under: v1.Y.Z becomes v0.Y.Z.
func stagingVersion(kubeVersion string) (string, error) {
	rest, ok := strings.CutPrefix(kubeVersion, "v1.")
	if !ok || rest == "" {
		return "", fmt.Errorf("kubernetes version %q is not v1.Y.Z", kubeVersion)
	}
	return "v0." + rest, nil
}
