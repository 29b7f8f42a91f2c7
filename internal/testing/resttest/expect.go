package resttest

import (
	"slices"
	"strings"
	"testing"
)

// Expect checks that got is exactly the want list, in order: the i-th
// want line names the first words of the i-th action's line (see
// Action.String), so "patch pods ns/p1" accepts that patch whatever its
// body, and a line with the body checks the body too. On a mismatch it
// reports a line diff (-want +got) with t.Errorf and returns false.
func Expect(t testing.TB, got []Action, want ...string) bool {
	t.Helper()
	lines := Lines(got)
	if matchAll(lines, want) {
		return true
	}
	t.Errorf("actions differ (-want +got):\n%s", Diff(want, lines))
	return false
}

// ExpectUnordered is Expect for actions whose order does not matter
// (writes made concurrently): both lists are compared sorted.
func ExpectUnordered(t testing.TB, got []Action, want ...string) bool {
	t.Helper()
	lines := slices.Sorted(slices.Values(Lines(got)))
	want = slices.Sorted(slices.Values(want))
	if matchAll(lines, want) {
		return true
	}
	t.Errorf("actions differ, in any order (-want +got):\n%s", Diff(want, lines))
	return false
}

func matchAll(lines, want []string) bool {
	if len(lines) != len(want) {
		return false
	}
	for i := range lines {
		if !matches(lines[i], want[i]) {
			return false
		}
	}
	return true
}

// Diff renders the line diff from want to got: unchanged lines indented,
// missing ones with "- ", unexpected ones with "+ ". A got line that want
// names by its first words counts as unchanged and is shown in full.
func Diff(want, got []string) string {
	// lcs[i][j]: the longest common run of want[i:] and got[j:].
	lcs := make([][]int, len(want)+1)
	for i := range lcs {
		lcs[i] = make([]int, len(got)+1)
	}
	for i := len(want) - 1; i >= 0; i-- {
		for j := len(got) - 1; j >= 0; j-- {
			if matches(got[j], want[i]) {
				lcs[i][j] = lcs[i+1][j+1] + 1
			} else {
				lcs[i][j] = max(lcs[i+1][j], lcs[i][j+1])
			}
		}
	}
	var b strings.Builder
	i, j := 0, 0
	for i < len(want) || j < len(got) {
		switch {
		case i < len(want) && j < len(got) && matches(got[j], want[i]):
			b.WriteString("  " + got[j] + "\n")
			i, j = i+1, j+1
		case j < len(got) && (i == len(want) || lcs[i][j+1] >= lcs[i+1][j]):
			b.WriteString("+ " + got[j] + "\n")
			j++
		default:
			b.WriteString("- " + want[i] + "\n")
			i++
		}
	}
	return b.String()
}
