package decode

import (
	"fmt"

	"github.com/kcmlab/kcm/kube/api"
	"github.com/kcmlab/kcm/kube/internal/jsonx"
)

// StripManagedFields returns the object's JSON without
// metadata.managedFields. The input is not modified; when there is nothing
// to cut it is returned as is.
func StripManagedFields(obj []byte) ([]byte, error) {
	top, err := jsonx.Members(obj, 0)
	if err != nil {
		return nil, fmt.Errorf("%w: object: %w", api.ErrDecode, err)
	}
	for _, t := range top {
		if string(obj[t.KeyStart:t.KeyEnd]) != "metadata" || obj[t.ValStart] != '{' {
			continue
		}
		meta, err := jsonx.Members(obj, t.ValStart)
		if err != nil {
			return nil, fmt.Errorf("%w: metadata: %w", api.ErrDecode, err)
		}
		_, raw, err := cutManagedFields(obj, t.ValStart, t.End, meta, true, nil)
		return raw, err
	}
	return obj, nil
}
