package controllerref

import (
	"encoding/json"

	"github.com/kcmlab/kcm/kube/api"
)

// The patches are strategic merge patches on metadata. ownerReferences
// merge by uid, so adoption adds one entry and release deletes one with
// the "$patch": "delete" directive; metadata.uid in the patch is a
// precondition the apiserver checks (a mismatch is 422 Invalid).

type patchMeta struct {
	Metadata struct {
		OwnerReferences []any  `json:"ownerReferences"`
		UID             string `json:"uid"`
	} `json:"metadata"`
}

func adoptPatch(ref api.OwnerReference, depUID string) ([]byte, error) {
	var p patchMeta
	p.Metadata.OwnerReferences = []any{ref}
	p.Metadata.UID = depUID
	return json.Marshal(&p)
}

func releasePatch(ownerUID, depUID string) ([]byte, error) {
	var p patchMeta
	p.Metadata.OwnerReferences = []any{map[string]string{"$patch": "delete", "uid": ownerUID}}
	p.Metadata.UID = depUID
	return json.Marshal(&p)
}
