package main

import (
	"fmt"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"
)

// formatIndexes describes how an object's index entries changed from old to
// now, index by index: entries kept are listed plainly, changes follow in
// parentheses as +added and -removed, e.g.
//
//	namespace kcm-demo, label app=web (+tier=backend -tier=frontend)
//
// Indexes with no entries before or after are left out.
func formatIndexes(old, now indexEntries) string {
	var parts []string
	changed := false
	for _, ix := range []struct {
		name     string
		old, now []string
		short    bool
	}{
		{"namespace", old.Namespace, now.Namespace, false},
		{"label", old.Label, now.Label, false},
		{"owner", old.Owner, now.Owner, true},
	} {
		if len(ix.old) == 0 && len(ix.now) == 0 {
			continue
		}
		kept, added, removed := diffSorted(ix.old, ix.now)
		if ix.short {
			kept, added, removed = shortUIDs(kept), shortUIDs(added), shortUIDs(removed)
		}
		parts = append(parts, formatIndex(ix.name, kept, added, removed))
		changed = changed || len(added)+len(removed) > 0
	}
	out := "index " + strings.Join(parts, ", ")
	switch {
	case len(parts) == 0:
		return "no index entries"
	case !changed:
		out += " (no index change)"
	}
	return out
}

// formatIndex writes one index: "label app=web (+tier=be -tier=fe)".
func formatIndex(name string, kept, added, removed []string) string {
	var b strings.Builder
	b.WriteString(name)
	for _, v := range kept {
		b.WriteByte(' ')
		b.WriteString(v)
	}
	if len(added)+len(removed) == 0 {
		return b.String()
	}
	b.WriteString(" (")
	sep := ""
	for _, v := range added {
		b.WriteString(sep + "+" + v)
		sep = " "
	}
	for _, v := range removed {
		b.WriteString(sep + "-" + v)
		sep = " "
	}
	b.WriteByte(')')
	return b.String()
}

// diffSorted splits two sorted, duplicate-free lists into the values in
// both, only in now, and only in old.
func diffSorted(old, now []string) (kept, added, removed []string) {
	i, j := 0, 0
	for i < len(old) || j < len(now) {
		switch {
		case j == len(now) || (i < len(old) && old[i] < now[j]):
			removed = append(removed, old[i])
			i++
		case i == len(old) || now[j] < old[i]:
			added = append(added, now[j])
			j++
		default:
			kept = append(kept, old[i])
			i, j = i+1, j+1
		}
	}
	return kept, added, removed
}

// shortUIDs keeps the first 8 characters of each UID: enough to tell owners
// apart on screen.
func shortUIDs(uids []string) []string {
	out := make([]string, len(uids))
	for i, u := range uids {
		if len(u) > 8 {
			u = u[:8] + "…"
		}
		out[i] = u
	}
	return out
}

// fmtBytes formats a size: 850B, 1.9KB, 2.3MB.
func fmtBytes(n int) string {
	switch {
	case n < 1024:
		return fmt.Sprintf("%dB", n)
	case n < 1024*1024:
		return fmt.Sprintf("%.1fKB", float64(n)/1024)
	}
	return fmt.Sprintf("%.1fMB", float64(n)/(1024*1024))
}

// fmtDur formats a duration at a precision that suits its size.
func fmtDur(d time.Duration) string {
	switch {
	case d < 0:
		return "0s"
	case d < time.Millisecond:
		return fmt.Sprintf("%dµs", d.Microseconds())
	case d < 10*time.Millisecond:
		return fmt.Sprintf("%.1fms", float64(d)/float64(time.Millisecond))
	case d < time.Second:
		return fmt.Sprintf("%dms", d.Milliseconds())
	}
	return d.Round(10 * time.Millisecond).String()
}

// fmtRate formats n objects over d as a rate.
func fmtRate(n int, d time.Duration) string {
	if d <= 0 {
		return "rate n/a"
	}
	return fmt.Sprintf("%.0f objects/s", float64(n)/d.Seconds())
}

func plural(n int) string {
	if n == 1 {
		return ""
	}
	return "s"
}

// escapeTerminal makes s safe to print on a terminal: control characters
// (C0 including newline and carriage return, DEL, C1), Unicode's bidi
// controls and bytes that are not UTF-8 are written as Go escapes (\n,
// \x1b, \u202e, \xff). Object names, resourceVersions, label values and Status
// messages come from the server; without this a hostile one could clear
// the screen, set the window title, reorder text or start a line that
// looks like one of the trace's own. Strings without such runes are
// returned as they are.
func escapeTerminal(s string) string {
	i := strings.IndexFunc(s, needsEscape)
	if i < 0 && utf8.ValidString(s) {
		return s
	}
	var b strings.Builder
	b.Grow(len(s) + 16)
	for len(s) > 0 {
		r, n := utf8.DecodeRuneInString(s)
		switch {
		case r == utf8.RuneError && n == 1:
			fmt.Fprintf(&b, `\x%02x`, s[0])
		case r == '\n':
			b.WriteString(`\n`)
		case r == '\r':
			b.WriteString(`\r`)
		case r == '\t':
			b.WriteString(`\t`)
		case r < 0x80 && needsEscape(r):
			fmt.Fprintf(&b, `\x%02x`, r)
		case needsEscape(r):
			fmt.Fprintf(&b, `\u%04x`, r)
		default:
			b.WriteString(s[:n])
		}
		s = s[n:]
	}
	return b.String()
}

// needsEscape reports the runes escapeTerminal escapes.
func needsEscape(r rune) bool {
	return unicode.IsControl(r) || unicode.Is(unicode.Bidi_Control, r) || r == utf8.RuneError
}
