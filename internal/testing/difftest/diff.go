package difftest

import (
	"fmt"
	"strings"
)

// Difference is one way two recordings disagree.
type Difference struct {
	// Key names what differs: a Snapshot key ("ReplicaSet ns/web-<hash:rev 1>"),
	// or "timeline: ..." for a timeline difference.
	Key string
	// Detail is a readable explanation: a line diff ("-" lines are A's,
	// "+" lines B's) or a sentence.
	Detail string
}

// Allowance is a deliberate difference: what it matches is not reported.
// Every allowance states why the difference is acceptable, so a reader of
// the test sees the list of known divergences and their reasons.
type Allowance struct {
	// Key is the Snapshot key (or key prefix ending in "*") the allowance
	// applies to.
	Key string
	// Line is a substring of the differing lines ("-" or "+" lines of the
	// line diff) that the allowance absorbs. Empty absorbs the whole
	// object.
	Line string
	// Reason says why the difference is deliberate.
	Reason string
}

func (a Allowance) matchesKey(key string) bool {
	if p, ok := strings.CutSuffix(a.Key, "*"); ok {
		return strings.HasPrefix(key, p)
	}
	return a.Key == key
}

// DiffSnapshots compares two snapshots, A and B, and returns their
// differences in key order: objects only one side has, and objects whose
// renderings differ (as a line diff). Differing lines that an allowance
// absorbs are dropped; an object whose every differing line is absorbed
// is not reported.
func DiffSnapshots(a, b Snapshot, allow []Allowance) []Difference {
	var out []Difference
	for _, k := range union(a, b) {
		ta, inA := a[k]
		tb, inB := b[k]
		switch {
		case inA && !inB:
			if !absorbedWhole(k, allow) {
				out = append(out, Difference{Key: k, Detail: "only in A:\n" + indent(ta, "- ")})
			}
		case inB && !inA:
			if !absorbedWhole(k, allow) {
				out = append(out, Difference{Key: k, Detail: "only in B:\n" + indent(tb, "+ ")})
			}
		case ta != tb:
			if d, differs := lineDiff(ta, tb, k, allow); differs {
				out = append(out, Difference{Key: k, Detail: d})
			}
		}
	}
	return out
}

// union returns the keys of a and b, sorted.
func union(a, b Snapshot) []string {
	m := Snapshot{}
	for k := range a {
		m[k] = ""
	}
	for k := range b {
		m[k] = ""
	}
	return m.Keys()
}

// absorbedWhole reports whether an allowance without Line covers key.
func absorbedWhole(key string, allow []Allowance) bool {
	for _, a := range allow {
		if a.Line == "" && a.matchesKey(key) {
			return true
		}
	}
	return false
}

// absorbedLine reports whether an allowance covers one differing line.
func absorbedLine(key, line string, allow []Allowance) bool {
	for _, a := range allow {
		if a.matchesKey(key) && (a.Line == "" || strings.Contains(line, a.Line)) {
			return true
		}
	}
	return false
}

// lineDiff renders the line diff of a and b (longest common subsequence),
// with two lines of context around each change. differs is false when
// every changed line is absorbed by an allowance.
func lineDiff(a, b, key string, allow []Allowance) (text string, differs bool) {
	la := strings.Split(strings.TrimRight(a, "\n"), "\n")
	lb := strings.Split(strings.TrimRight(b, "\n"), "\n")
	ops := lcsDiff(la, lb)
	for _, op := range ops {
		if op.kind != ' ' && !absorbedLine(key, op.line, allow) {
			differs = true
		}
	}
	if !differs {
		return "", false
	}
	const context = 2
	var sb strings.Builder
	last := -1 // index of the last op written
	for i, op := range ops {
		near := false
		for j := max(0, i-context); j <= min(len(ops)-1, i+context); j++ {
			if ops[j].kind != ' ' {
				near = true
				break
			}
		}
		if !near {
			continue
		}
		if last >= 0 && i > last+1 {
			sb.WriteString("  ...\n")
		}
		fmt.Fprintf(&sb, "%c %s\n", op.kind, op.line)
		last = i
	}
	return sb.String(), true
}

// diffOp is one line of a line diff: ' ' common, '-' only in A, '+' only
// in B.
type diffOp struct {
	kind byte
	line string
}

// lcsDiff is the classic dynamic-programming diff; the texts are objects
// of at most a few hundred lines, so O(n·m) is fine.
func lcsDiff(a, b []string) []diffOp {
	n, m := len(a), len(b)
	lcs := make([][]int, n+1)
	for i := range lcs {
		lcs[i] = make([]int, m+1)
	}
	for i := n - 1; i >= 0; i-- {
		for j := m - 1; j >= 0; j-- {
			if a[i] == b[j] {
				lcs[i][j] = lcs[i+1][j+1] + 1
			} else {
				lcs[i][j] = max(lcs[i+1][j], lcs[i][j+1])
			}
		}
	}
	var ops []diffOp
	i, j := 0, 0
	for i < n && j < m {
		switch {
		case a[i] == b[j]:
			ops = append(ops, diffOp{' ', a[i]})
			i++
			j++
		case lcs[i+1][j] >= lcs[i][j+1]:
			ops = append(ops, diffOp{'-', a[i]})
			i++
		default:
			ops = append(ops, diffOp{'+', b[j]})
			j++
		}
	}
	for ; i < n; i++ {
		ops = append(ops, diffOp{'-', a[i]})
	}
	for ; j < m; j++ {
		ops = append(ops, diffOp{'+', b[j]})
	}
	return ops
}

// indent prefixes every line of s.
func indent(s, prefix string) string {
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	for i, l := range lines {
		lines[i] = prefix + l
	}
	return strings.Join(lines, "\n") + "\n"
}

// Report renders differences for a test failure: a header naming the two
// sides, then each difference under its key.
func Report(nameA, nameB string, diffs []Difference) string {
	if len(diffs) == 0 {
		return ""
	}
	var sb strings.Builder
	fmt.Fprintf(&sb, "%d difference(s) between A = %s and B = %s:\n", len(diffs), nameA, nameB)
	for _, d := range diffs {
		fmt.Fprintf(&sb, "\n=== %s\n%s", d.Key, d.Detail)
		if !strings.HasSuffix(d.Detail, "\n") {
			sb.WriteByte('\n')
		}
	}
	return sb.String()
}
