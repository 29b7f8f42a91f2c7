package clientcmd

import (
	"bytes"
	"errors"
	"fmt"
	"reflect"
	"regexp"
	"strconv"
	"strings"

	"go.yaml.in/yaml/v3"
)

// Errors of the YAML decoder, redacted. yaml.v3 quotes what it could not
// decode in several of its messages: the start of a value in type errors,
// anchor names in alias errors, tags, a map key it could not hash, the
// value a tag did not fit. In a kubeconfig any of these can be a secret (an
// unquoted `password: *Secr3t` is an alias). So no text of the decoder's
// reaches an error as is: redactYAMLError rebuilds each message from the
// line, the field (a kubeconfig key name, never a value) and a fixed
// description of what is wrong. The parser's own problems (libyaml's fixed
// sentences, "did not find expected key") are kept when they carry no
// quoted text.

// errYAML is the cause of every redacted YAML error.
var errYAML = errors.New("yaml")

var (
	// yamlPrefix splits "yaml: line 3: problem" (the line is optional).
	yamlPrefix = regexp.MustCompile(`^yaml: (?:line (\d+): )?(.*)$`)
	// yamlTypeErrorLine matches one line of a yaml.TypeError.
	yamlTypeErrorLine = regexp.MustCompile(`^line (\d+): cannot unmarshal (\S+)(?: .*)? into (.*)$`)
	// yamlDuplicateKey matches a TypeError line about a repeated key.
	yamlDuplicateKey = regexp.MustCompile(`^line (\d+): mapping key .* already defined at line (\d+)$`)
	// yamlAnchorName extracts the anchor of an alias error, only to find
	// its line: the name itself is never printed.
	yamlAnchorName = regexp.MustCompile(`^(unknown anchor|anchor) '(.*)' (referenced|value contains itself)$`)
	// yamlFixedProblem is what a message of libyaml's parser looks like:
	// words, with at most single characters quoted (',' or ']').
	yamlFixedProblem = regexp.MustCompile(`^[A-Za-z0-9 ,:-]*(?:'[^']?'[A-Za-z0-9 ,:-]*)*$`)
	// yamlKeyAt finds the mapping key of a line: "  key: ...", "- key: ...".
	yamlKeyAt = regexp.MustCompile(`^\s*(?:-\s+)*([A-Za-z][A-Za-z0-9_.-]*)\s*:`)
	// yamlStandardTag matches the core schema's tags, which say a kind of
	// value; any other tag is the author's text.
	yamlStandardTag = regexp.MustCompile(`^!!(str|int|bool|float|null|map|seq|timestamp|binary|merge)$`)
)

// kubeconfigKeys holds every key of the kubeconfig format kcm reads, from
// the yaml tags of kubeconfigDoc, plus those it ignores. Only these are named
// in errors: a key that is not one of them is the author's text.
var kubeconfigKeys = func() map[string]bool {
	keys := map[string]bool{"apiVersion": true, "kind": true, "preferences": true, "extensions": true,
		"extension": true, "proxy-url": true, "disable-compression": true, "config": true}
	var walk func(reflect.Type)
	walk = func(t reflect.Type) {
		for t.Kind() == reflect.Pointer || t.Kind() == reflect.Slice {
			t = t.Elem()
		}
		if t.Kind() != reflect.Struct {
			return
		}
		for i := range t.NumField() {
			f := t.Field(i)
			if name, _, _ := strings.Cut(f.Tag.Get("yaml"), ","); name != "" && name != "-" {
				keys[name] = true
			}
			walk(f.Type)
		}
	}
	walk(reflect.TypeFor[kubeconfigDoc]())
	return keys
}()

// redactYAMLError rebuilds a yaml.v3 error of data's decoding without any
// value: each problem becomes "line N: field: what is wrong", with the line
// and field when they are known.
func redactYAMLError(err error, data []byte) error {
	lines := bytes.Split(data, []byte("\n"))
	var te *yaml.TypeError
	if errors.As(err, &te) {
		out := make([]string, len(te.Errors))
		for i, l := range te.Errors {
			out[i] = redactTypeErrorLine(l, lines)
		}
		return fmt.Errorf("%w: %s", errYAML, strings.Join(out, "; "))
	}
	m := yamlPrefix.FindStringSubmatch(err.Error())
	if m == nil {
		return fmt.Errorf("%w: the file cannot be decoded", errYAML)
	}
	line, problem := atoiOrZero(m[1]), m[2]
	if a := yamlAnchorName.FindStringSubmatch(problem); a != nil {
		what := "an alias to an undefined anchor"
		mark := "*" + a[2]
		if a[3] != "referenced" {
			what, mark = "an anchor whose value contains itself", "&"+a[2]
		}
		n := lineOf(lines, mark)
		return fmt.Errorf("%w: %s%s", errYAML, where(n, lines), what)
	}
	switch {
	case strings.HasPrefix(problem, "cannot decode ") && strings.Contains(problem, " as a "),
		problem == "!!binary value contains invalid base64 data":
		problem = "a value that does not fit its tag"
	case strings.HasPrefix(problem, "invalid map key"):
		problem = "an invalid mapping key"
	case !yamlFixedProblem.MatchString(problem):
		problem = "the file cannot be decoded"
	}
	// The parser's line is where it noticed the problem, often a line
	// after it: naming the key found there would mislead, so only the line.
	if line > 0 {
		return fmt.Errorf("%w: line %d: %s", errYAML, line, problem)
	}
	return fmt.Errorf("%w: %s", errYAML, problem)
}

// redactTypeErrorLine rewrites one line of a yaml.TypeError.
func redactTypeErrorLine(l string, lines [][]byte) string {
	if m := yamlDuplicateKey.FindStringSubmatch(l); m != nil {
		n := atoiOrZero(m[1])
		if f := fieldAt(lines, n); f != "" {
			return fmt.Sprintf("line %d: %s: defined twice (first at line %s)", n, f, m[2])
		}
		return fmt.Sprintf("line %d: a mapping key defined twice (first at line %s)", n, m[2])
	}
	m := yamlTypeErrorLine.FindStringSubmatch(l)
	if m == nil {
		return "a value cannot be decoded"
	}
	n := atoiOrZero(m[1])
	kind := "tagged value"
	if yamlStandardTag.MatchString(m[2]) {
		kind = m[2] + " value"
	}
	return fmt.Sprintf("%sunexpected %s, want %s", where(n, lines), kind, yamlWantedKind(m[3]))
}

// where is "line N: field: " (the parts that are known), or "".
func where(n int, lines [][]byte) string {
	if n <= 0 {
		return ""
	}
	if f := fieldAt(lines, n); f != "" {
		return fmt.Sprintf("line %d: %s: ", n, f)
	}
	return fmt.Sprintf("line %d: ", n)
}

// fieldAt returns the kubeconfig key on line n (1-based), or "" when the
// line holds none that kcm knows.
func fieldAt(lines [][]byte, n int) string {
	if n <= 0 || n > len(lines) {
		return ""
	}
	m := yamlKeyAt.FindSubmatch(lines[n-1])
	if m == nil || !kubeconfigKeys[string(m[1])] {
		return ""
	}
	return string(m[1])
}

// lineOf returns the 1-based line of the first occurrence of mark as a
// whole token (followed by neither a letter nor a digit), or 0.
func lineOf(lines [][]byte, mark string) int {
	for i, l := range lines {
		for rest := l; ; {
			j := bytes.Index(rest, []byte(mark))
			if j < 0 {
				break
			}
			rest = rest[j+len(mark):]
			if len(rest) == 0 || strings.IndexByte(" \t,]}\r#", rest[0]) >= 0 {
				return i + 1
			}
		}
	}
	return 0
}

func atoiOrZero(s string) int {
	n, _ := strconv.Atoi(s)
	return n
}

// yamlWantedKind names a Go type the way a kubeconfig author thinks of it.
func yamlWantedKind(goType string) string {
	switch {
	case strings.HasPrefix(goType, "[]"):
		return "a list"
	case strings.HasPrefix(goType, "struct"), strings.HasPrefix(goType, "map"),
		strings.HasPrefix(goType, "kube."), strings.HasPrefix(goType, "clientcmd."), strings.HasPrefix(goType, "*"):
		return "a mapping"
	default:
		return "a " + goType
	}
}
