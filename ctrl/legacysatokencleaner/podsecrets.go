package legacysatokencleaner

import (
	"encoding/json"
	"fmt"

	"github.com/kcmlab/kcm/kube/api"
)

// podSecretNames adds to names every Secret pod refers to, as
// pkg/api/v1/pod's VisitPodSecretNames visits them: imagePullSecrets;
// envFrom secretRef and env secretKeyRef of init, regular and ephemeral
// containers; and the Secrets of azureFile, cephfs, cinder, flexVolume,
// projected, rbd, secret, scaleIO, iscsi, storageos and csi volumes.
// kcm's api.Pod models only some of these, so they are read from the
// pod's JSON (its Raw form, rebuilt for a cached compact pod; the typed
// fields for a pod built in code). Empty names are skipped.
func podSecretNames(pod *api.Pod, names map[string]bool) error {
	data := pod.Raw()
	if data == nil {
		var err error
		if data, err = json.Marshal(pod); err != nil {
			return fmt.Errorf("encoding pod %s: %w", pod.Key(), err)
		}
	}
	var p podRefs
	if err := json.Unmarshal(data, &p); err != nil {
		return fmt.Errorf("reading the secrets of pod %s: %w", pod.Key(), err)
	}
	add := func(n string) {
		if n != "" {
			names[n] = true
		}
	}
	for _, r := range p.Spec.ImagePullSecrets {
		add(r.Name)
	}
	for _, cs := range [][]containerRefs{p.Spec.InitContainers, p.Spec.Containers, p.Spec.EphemeralContainers} {
		for _, c := range cs {
			for _, e := range c.EnvFrom {
				if e.SecretRef != nil {
					add(e.SecretRef.Name)
				}
			}
			for _, e := range c.Env {
				if e.ValueFrom != nil && e.ValueFrom.SecretKeyRef != nil {
					add(e.ValueFrom.SecretKeyRef.Name)
				}
			}
		}
	}
	// One source per volume; the chain tries them in VisitPodSecretNames'
	// order.
	for _, v := range p.Spec.Volumes {
		if v.AzureFile != nil {
			add(v.AzureFile.SecretName)
		} else if v.CephFS != nil {
			add(v.CephFS.name())
		} else if v.Cinder != nil {
			add(v.Cinder.name())
		} else if v.FlexVolume != nil {
			add(v.FlexVolume.name())
		} else if v.Projected != nil {
			for _, s := range v.Projected.Sources {
				if s.Secret != nil {
					add(s.Secret.Name)
				}
			}
		} else if v.RBD != nil {
			add(v.RBD.name())
		} else if v.Secret != nil {
			add(v.Secret.SecretName)
		} else if v.ScaleIO != nil {
			add(v.ScaleIO.name())
		} else if v.ISCSI != nil {
			add(v.ISCSI.name())
		} else if v.StorageOS != nil {
			add(v.StorageOS.name())
		} else if v.CSI != nil && v.CSI.NodePublishSecretRef != nil {
			add(v.CSI.NodePublishSecretRef.Name)
		}
	}
	return nil
}

// podRefs is the part of a core/v1 Pod that names Secrets.
type podRefs struct {
	Spec struct {
		ImagePullSecrets    []nameRef       `json:"imagePullSecrets"`
		InitContainers      []containerRefs `json:"initContainers"`
		Containers          []containerRefs `json:"containers"`
		EphemeralContainers []containerRefs `json:"ephemeralContainers"`
		Volumes             []volumeRefs    `json:"volumes"`
	} `json:"spec"`
}

type nameRef struct {
	Name string `json:"name"`
}

type containerRefs struct {
	EnvFrom []struct {
		SecretRef *nameRef `json:"secretRef"`
	} `json:"envFrom"`
	Env []struct {
		ValueFrom *struct {
			SecretKeyRef *nameRef `json:"secretKeyRef"`
		} `json:"valueFrom"`
	} `json:"env"`
}

// secretRefSource is a volume source with a secretRef.
type secretRefSource struct {
	SecretRef *nameRef `json:"secretRef"`
}

func (s *secretRefSource) name() string {
	if s.SecretRef == nil {
		return ""
	}
	return s.SecretRef.Name
}

type volumeRefs struct {
	AzureFile *struct {
		SecretName string `json:"secretName"`
	} `json:"azureFile"`
	CephFS     *secretRefSource `json:"cephfs"`
	Cinder     *secretRefSource `json:"cinder"`
	FlexVolume *secretRefSource `json:"flexVolume"`
	Projected  *struct {
		Sources []struct {
			Secret *nameRef `json:"secret"`
		} `json:"sources"`
	} `json:"projected"`
	RBD    *secretRefSource `json:"rbd"`
	Secret *struct {
		SecretName string `json:"secretName"`
	} `json:"secret"`
	ScaleIO   *secretRefSource `json:"scaleIO"`
	ISCSI     *secretRefSource `json:"iscsi"`
	StorageOS *secretRefSource `json:"storageos"`
	CSI       *struct {
		NodePublishSecretRef *nameRef `json:"nodePublishSecretRef"`
	} `json:"csi"`
}
