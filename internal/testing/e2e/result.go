package e2e

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
)

// resultPath is where a mode's Result is saved in dir, beside its report,
// so that the page can be rendered again without running (kcm-e2e
// --render-only).
func resultPath(dir string, m Mode) string { return filepath.Join(dir, string(m)+".result.json") }

// Save writes the result into dir.
func (r Result) Save(dir string) error {
	b, err := json.MarshalIndent(r, "", "  ")
	if err != nil {
		return fmt.Errorf("e2e: %w", err)
	}
	if err := os.WriteFile(resultPath(dir, r.Mode), append(b, '\n'), 0o644); err != nil {
		return fmt.Errorf("e2e: save result: %w", err)
	}
	return nil
}

// LoadResult reads the result a run of mode m saved into dir, and its
// report.
func LoadResult(dir string, m Mode) (Result, Suite, error) {
	var r Result
	b, err := os.ReadFile(resultPath(dir, m))
	if err != nil {
		return r, Suite{}, fmt.Errorf("e2e: %w", err)
	}
	if err := json.Unmarshal(b, &r); err != nil {
		return r, Suite{}, fmt.Errorf("e2e: %s: %w", resultPath(dir, m), err)
	}
	path := ReportPath(dir, m)
	f, err := os.Open(path)
	if err != nil {
		return r, Suite{}, fmt.Errorf("e2e: %w", err)
	}
	defer f.Close()
	s, err := ReadReport(f)
	if err != nil {
		return r, Suite{}, fmt.Errorf("e2e: %s: %w", path, err)
	}
	return r, s, nil
}
