package authdelegate

import (
	"errors"
	"fmt"
	"strings"
)

// pathMatcher is --authorization-always-allow-paths: exact paths, and
// prefixes written with a trailing "*" (k8s.io/apiserver's path
// authorizer). A "*" anywhere else is an error.
type pathMatcher struct {
	exact    map[string]bool
	prefixes []string
}

func newPathMatcher(paths []string) (*pathMatcher, error) {
	m := &pathMatcher{exact: map[string]bool{}}
	for _, p := range paths {
		p = strings.TrimPrefix(p, "/")
		if i := strings.Index(p, "*"); i >= 0 {
			if i != len(p)-1 {
				return nil, fmt.Errorf("%q: %w", p, errors.New("only a trailing * is allowed"))
			}
			m.prefixes = append(m.prefixes, strings.TrimSuffix(p, "*"))
			continue
		}
		m.exact[p] = true
	}
	return m, nil
}

// match reports whether path is always allowed.
func (m *pathMatcher) match(path string) bool {
	p := strings.TrimPrefix(path, "/")
	if m.exact[p] {
		return true
	}
	for _, pre := range m.prefixes {
		if strings.HasPrefix(p, pre) {
			return true
		}
	}
	return false
}
