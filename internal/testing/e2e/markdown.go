package e2e

import (
	"fmt"
	"sort"
	"strings"
	"time"
)

// Run describes one of the two runs for the table's header.
type Run struct {
	// Label names the run in the table ("kube-controller-manager").
	Label string
	// Managers says which process ran which controllers.
	Managers string
	// Wall is the e2e binary's wall-clock time (the cluster's start and
	// stop excluded).
	Wall time.Duration
}

// Page is everything the results page shows.
type Page struct {
	// Title is the page's heading.
	Title string
	// About lines go under the title as a list: versions, commit, machine,
	// focus, how to regenerate.
	About []string
	Kube  Run
	KCM   Run
	// KubeSuite and KCMSuite are the two reports, for their suite-level
	// failures.
	KubeSuite, KCMSuite Suite
	Rows                []Row
	// Groups and Exclusions say which specs ran, and which of those were
	// left out, with why.
	Groups     []Group
	Exclusions []Exclusion
}

// failureLines is how many lines of a failure message the page quotes.
const failureLines = 6

// Markdown renders the page: header, summary, one table row per spec,
// then the failure messages of every spec that failed somewhere.
func (p Page) Markdown() string {
	var b strings.Builder
	fmt.Fprintf(&b, "# %s\n\n", p.Title)
	for _, a := range p.About {
		fmt.Fprintf(&b, "- %s\n", a)
	}
	fmt.Fprintf(&b, "- Run **%s**: %s; e2e wall time %s.\n", p.Kube.Label, p.Kube.Managers, roundDur(p.Kube.Wall))
	fmt.Fprintf(&b, "- Run **%s**: %s; e2e wall time %s.\n\n", p.KCM.Label, p.KCM.Managers, roundDur(p.KCM.Wall))

	p.selection(&b)
	p.summary(&b)
	for _, sf := range []struct {
		label string
		s     Suite
	}{{p.Kube.Label, p.KubeSuite}, {p.KCM.Label, p.KCMSuite}} {
		for _, f := range sf.s.SuiteFailures {
			fmt.Fprintf(&b, "**Suite failure under %s** (%s, %s): %s\n\n", sf.label, f.Name, f.State, quoteLine(f.Failure))
		}
	}

	b.WriteString("## Specs\n\n")
	fmt.Fprintf(&b, "| # | Spec | %s | %s | Verdict and reason |\n|---:|---|---|---|---|\n", p.Kube.Label, p.KCM.Label)
	for i, r := range p.Rows {
		fmt.Fprintf(&b, "| %d | %s | %s | %s | %s |\n", i+1, cell(r.Name), outcome(r.Kube), outcome(r.KCM), note(r))
	}
	b.WriteString("\n")

	var failed []Row
	for _, r := range p.Rows {
		if r.Kube.State.Failed() || r.KCM.State.Failed() {
			failed = append(failed, r)
		}
	}
	if len(failed) > 0 {
		fmt.Fprintf(&b, "## Failure messages\n\nThe first %d lines of ginkgo's failure message, per run.\n\n", failureLines)
		for _, r := range failed {
			fmt.Fprintf(&b, "### %s\n\n", r.Name)
			for _, s := range []struct {
				label string
				spec  Spec
			}{{p.Kube.Label, r.Kube}, {p.KCM.Label, r.KCM}} {
				if !s.spec.State.Failed() {
					fmt.Fprintf(&b, "- %s: %s\n", s.label, s.spec.State)
					continue
				}
				fmt.Fprintf(&b, "- %s: %s at `%s`\n\n", s.label, s.spec.State, s.spec.Where)
				fmt.Fprintf(&b, "  ```\n%s\n  ```\n\n", indent(firstLines(s.spec.Failure, failureLines), "  "))
			}
			if !r.KCM.State.Failed() {
				b.WriteString("\n")
			}
		}
	}
	return b.String()
}

// selection writes which specs run and which are left out.
func (p Page) selection(b *strings.Builder) {
	if len(p.Groups) == 0 {
		return
	}
	b.WriteString("## What runs\n\n| Specs (--ginkgo.focus) | kcm controller | What they check |\n|---|---|---|\n")
	for _, g := range p.Groups {
		fmt.Fprintf(b, "| `%s` | %s | %s |\n", strings.ReplaceAll(g.Pattern, "|", `\|`), g.Controller, cell(g.Why))
	}
	b.WriteString("\n")
	if len(p.Exclusions) > 0 {
		b.WriteString("Left out (--ginkgo.skip), because no test cluster here can run them:\n\n")
		for _, e := range p.Exclusions {
			fmt.Fprintf(b, "- `%s`: %s\n", e.Pattern, e.Why)
		}
		b.WriteString("\n")
	}
}

// summary writes the count of specs per verdict, the reasons of specs
// that failed under both, and the regressions by name.
func (p Page) summary(b *strings.Builder) {
	s := Summarize(p.Rows)
	b.WriteString("## Summary\n\n| Verdict | Specs |\n|---|---:|\n")
	for _, v := range []Verdict{BothPassed, Regression, KCMOnly, BothFailed, BothSkipped, Incomplete} {
		if n := s.ByVerdict[v]; n > 0 || v == BothPassed || v == Regression {
			fmt.Fprintf(b, "| %s | %d |\n", v, n)
		}
	}
	fmt.Fprintf(b, "| **total** | **%d** |\n\n", s.Total)
	kinds := map[string]int{}
	for _, r := range p.Rows {
		if r.Verdict == BothFailed || r.Verdict == BothSkipped {
			k := r.Reason.Kind
			switch {
			case k == "" && r.Verdict == BothSkipped:
				k = "the e2e framework's own skip (its reason is in the row)"
			case k == "":
				k = "no reason listed"
			}
			kinds[string(r.Verdict)+": "+k]++
		}
	}
	if len(kinds) > 0 {
		keys := make([]string, 0, len(kinds))
		for k := range kinds {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		b.WriteString("Specs that fail or are skipped under both managers, by reason:\n\n")
		for _, k := range keys {
			fmt.Fprintf(b, "- %s: %d\n", k, kinds[k])
		}
		b.WriteString("\n")
	}
	var regressions, stale []string
	for _, r := range p.Rows {
		if r.Verdict == Regression {
			regressions = append(regressions, r.Name)
		}
		if r.Stale {
			stale = append(stale, r.Name)
		}
	}
	if len(regressions) > 0 {
		b.WriteString("**Regressions** (pass under kube-controller-manager, fail under kcm):\n\n")
		for _, n := range regressions {
			fmt.Fprintf(b, "- %s\n", n)
		}
		b.WriteString("\n")
	}
	if len(stale) > 0 {
		b.WriteString("**Known reasons out of date** (listed as failing under both, but did not):\n\n")
		for _, n := range stale {
			fmt.Fprintf(b, "- %s\n", n)
		}
		b.WriteString("\n")
	}
}

// outcome is a table cell: the state and how long the spec took.
func outcome(s Spec) string {
	switch {
	case s.State == NotRun:
		return "not run"
	case s.State == Skipped:
		return "skipped"
	case s.State.Failed():
		return fmt.Sprintf("**%s** %s", s.State, roundDur(s.Duration))
	}
	return fmt.Sprintf("%s %s", s.State, roundDur(s.Duration))
}

// note is the last cell: the verdict when it is not a plain pass, and the
// reason.
func note(r Row) string {
	switch {
	case r.Verdict == BothPassed:
		return ""
	case r.Verdict == Regression:
		return "**" + string(r.Verdict) + "**"
	case r.Reason.Text != "":
		return cell(string(r.Verdict) + ": " + r.Reason.Kind + ": " + r.Reason.Text)
	case r.Verdict == BothSkipped:
		return cell(string(r.Verdict) + ": " + firstLines(r.Kube.Failure, 1))
	case r.Verdict == BothFailed:
		return string(r.Verdict) + ": **no reason listed**"
	}
	return string(r.Verdict)
}

func roundDur(d time.Duration) string {
	switch {
	case d >= time.Minute:
		return d.Round(time.Second).String()
	case d >= time.Second:
		return d.Round(100 * time.Millisecond).String()
	}
	return d.Round(time.Millisecond).String()
}

// cell makes text safe in a markdown table cell.
func cell(s string) string {
	s = strings.ReplaceAll(s, "|", `\|`)
	return strings.Join(strings.Fields(s), " ")
}

func quoteLine(s string) string { return "`" + strings.ReplaceAll(firstLines(s, 1), "`", "'") + "`" }

// maxLineRunes is where firstLines cuts a long line.
const maxLineRunes = 300

// firstLines returns at most n non-empty lines of s, each cut at
// maxLineRunes characters, with "…" when something was left out.
func firstLines(s string, n int) string {
	var out []string
	cut := false
	for _, l := range strings.Split(strings.TrimSpace(s), "\n") {
		l = strings.TrimRight(l, " \t")
		if l == "" {
			continue
		}
		if len(out) == n {
			cut = true
			break
		}
		if r := []rune(l); len(r) > maxLineRunes {
			l, cut = string(r[:maxLineRunes]), true
		}
		out = append(out, l)
	}
	r := strings.Join(out, "\n")
	if cut {
		r += " …"
	}
	return r
}

func indent(s, prefix string) string {
	return prefix + strings.ReplaceAll(s, "\n", "\n"+prefix)
}
