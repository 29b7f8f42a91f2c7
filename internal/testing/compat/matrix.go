package compat

import (
	"fmt"
	"strings"
	"time"
)

// Matrix renders the results as a markdown table: one column per release,
// one row for the build ("cached" when the binaries were there already),
// one per group with pass/FAIL and the time its tests took, and the total.
func Matrix(results []ReleaseResult, gs []Group) string {
	var b strings.Builder
	b.WriteString("| group |")
	for _, r := range results {
		fmt.Fprintf(&b, " %s (etcd %s) |", r.Release.Kubernetes, r.Release.Etcd)
	}
	b.WriteString("\n|---|")
	for range results {
		b.WriteString("---|")
	}
	b.WriteString("\n| build |")
	for _, r := range results {
		switch {
		case r.BuildErr != nil:
			fmt.Fprintf(&b, " **FAIL** %s |", duration(r.BuildTime))
		case r.BuildTime < time.Second: // linking kube-apiserver alone takes longer
			b.WriteString(" cached |")
		default:
			fmt.Fprintf(&b, " %s |", duration(r.BuildTime))
		}
	}
	b.WriteString("\n")
	for _, g := range gs {
		fmt.Fprintf(&b, "| %s |", g.Name)
		for _, r := range results {
			b.WriteString(" " + cell(r.Group(g)) + " |")
		}
		b.WriteString("\n")
	}
	b.WriteString("| all tests |")
	for _, r := range results {
		all, sum := r.BuildErr == nil, time.Duration(0)
		for _, g := range gs {
			ok, took := r.Group(g)
			all, sum = all && ok, sum+took
		}
		b.WriteString(" " + cell(all, sum) + " |")
	}
	b.WriteString("\n")
	return b.String()
}

// Legend lists what each group checks and its tests, as markdown.
func Legend(gs []Group) string {
	var b strings.Builder
	for _, g := range gs {
		var names []string
		for _, t := range g.Tests {
			names = append(names, fmt.Sprintf("`%s` %s", t.ShortPkg(), t.Name))
		}
		fmt.Fprintf(&b, "- **%s**: %s (%s)\n", g.Name, g.What, strings.Join(names, ", "))
	}
	return b.String()
}

func cell(passed bool, took time.Duration) string {
	if passed {
		return "pass " + duration(took)
	}
	return "**FAIL** " + duration(took)
}

// duration rounds to a tenth of a second, or to 10ms below a second:
// "12.3s", "2m5.1s", "40ms".
func duration(d time.Duration) string {
	if d < time.Second {
		return d.Round(10 * time.Millisecond).String()
	}
	return d.Round(100 * time.Millisecond).String()
}
