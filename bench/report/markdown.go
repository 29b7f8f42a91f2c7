package report

import (
	"fmt"
	"io"
	"math"
	"strings"
)

// Markdown writes rows as a Markdown table.
func Markdown(w io.Writer, rows []Row) error {
	var b strings.Builder
	b.WriteString("| figure | unit | kcm | client-go | client-go+strip | floor | floor (read only) | kcm/client-go | kcm/client-go+strip | target | verdict |\n")
	b.WriteString("|---|---|--:|--:|--:|--:|--:|--:|--:|---|---|\n")
	for _, r := range rows {
		cells := []string{r.Figure, r.Unit}
		for _, col := range Columns {
			if v, ok := r.Values[col]; ok {
				cells = append(cells, Num(v))
			} else {
				cells = append(cells, "")
			}
		}
		cells = append(cells, ratioCell(r.Ratio), ratioCell(r.RatioStrip), r.Target, r.Verdict)
		b.WriteString("| " + strings.Join(cells, " | ") + " |\n")
	}
	_, err := io.WriteString(w, b.String())
	return err
}

func ratioCell(v float64) string {
	if math.IsNaN(v) {
		return ""
	}
	return fmt.Sprintf("%.2f", v)
}

// Num formats a value with three or so significant digits and a k/M
// suffix for large ones.
func Num(v float64) string {
	a := math.Abs(v)
	switch {
	case a >= 1e7:
		return fmt.Sprintf("%.1fM", v/1e6)
	case a >= 1e6:
		return fmt.Sprintf("%.2fM", v/1e6)
	case a >= 1e5:
		return fmt.Sprintf("%.0fk", v/1e3)
	case a >= 1e4:
		return fmt.Sprintf("%.1fk", v/1e3)
	case a >= 100:
		return fmt.Sprintf("%.0f", v)
	case a >= 10:
		return fmt.Sprintf("%.1f", v)
	case a >= 1 || a == 0:
		return fmt.Sprintf("%.2f", v)
	}
	return fmt.Sprintf("%.3f", v)
}
