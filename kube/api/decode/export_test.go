package decode

import (
	"github.com/kcmlab/kcm/kube/api"
	"github.com/kcmlab/kcm/kube/api/internal/objsrc"
)

// IsCompact reports whether m's object is in the compact form: described
// by a remainder rather than by its kept JSON (tests only).
func IsCompact(m *api.ObjectMeta) bool {
	rb, _ := objsrc.Of(m).Rebuilder()
	return rb != nil && rb != &familyRebuilder
}
