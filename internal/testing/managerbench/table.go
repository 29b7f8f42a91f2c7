package managerbench

import (
	"strings"
)

// Table is a table for a markdown report: a header row and data rows.
// Cells are printed as they are, except that "|" is escaped so that a cell
// cannot split a row.
type Table struct {
	Columns []string
	Rows    [][]string
}

// AddRow appends a row; missing cells print empty, extra cells are kept.
func (t *Table) AddRow(cells ...string) { t.Rows = append(t.Rows, cells) }

// Markdown renders the table as GitHub-flavoured markdown, every column
// padded to its widest cell so that the source reads as a table too.
func (t Table) Markdown() string {
	cols := len(t.Columns)
	for _, r := range t.Rows {
		cols = max(cols, len(r))
	}
	cell := func(row []string, i int) string {
		if i < len(row) {
			return strings.ReplaceAll(row[i], "|", `\|`)
		}
		return ""
	}
	width := make([]int, cols)
	for i := range width {
		width[i] = 3 // the "---" of the separator
		for _, r := range append([][]string{t.Columns}, t.Rows...) {
			width[i] = max(width[i], len([]rune(cell(r, i))))
		}
	}
	var b strings.Builder
	line := func(row []string) {
		b.WriteString("|")
		for i := range cols {
			c := cell(row, i)
			b.WriteString(" " + c + strings.Repeat(" ", width[i]-len([]rune(c))) + " |")
		}
		b.WriteString("\n")
	}
	line(t.Columns)
	b.WriteString("|")
	for i := range cols {
		b.WriteString(strings.Repeat("-", width[i]+2) + "|")
	}
	b.WriteString("\n")
	for _, r := range t.Rows {
		line(r)
	}
	return b.String()
}
