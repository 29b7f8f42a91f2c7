package legacysatokencleaner

import (
	"encoding/json"
	"fmt"

	"github.com/kcmlab/kcm/kube/api"
	"github.com/kcmlab/kcm/kube/api/protocodec"
)

// podSecretNames adds to names every Secret pod refers to, as
// pkg/api/v1/pod's VisitPodSecretNames visits them: imagePullSecrets;
// envFrom secretRef and env secretKeyRef of init, regular and ephemeral
// containers; and the Secrets of azureFile, cephfs, cinder, flexVolume,
// projected, rbd, secret, scaleIO, iscsi, storageos and csi volumes.
// kcm's api.Pod models only some of these, so they are read from the
// pod's JSON (its Raw form, rebuilt for a cached compact pod; the typed
// fields for a pod built in code) or, for a pod read as protobuf, from its
// message by the same members' field numbers (podRefs' pb tags). Empty
// names are skipped.
func podSecretNames(pod *api.Pod, names map[string]bool) error {
	var p podRefs
	if pod.IsProto() {
		msg, err := pod.OriginalProto()
		if err != nil {
			return fmt.Errorf("reading the secrets of pod %s: %w", pod.Key(), err)
		}
		if err := protocodec.Unmarshal(msg, &p); err != nil {
			return fmt.Errorf("reading the secrets of pod %s: %w", pod.Key(), err)
		}
		p.addTo(names)
		return nil
	}
	data := pod.Raw()
	if data == nil {
		var err error
		if data, err = json.Marshal(pod); err != nil {
			return fmt.Errorf("encoding pod %s: %w", pod.Key(), err)
		}
	}
	if err := json.Unmarshal(data, &p); err != nil {
		return fmt.Errorf("reading the secrets of pod %s: %w", pod.Key(), err)
	}
	p.addTo(names)
	return nil
}

// addTo adds the Secrets p names to names.
func (p *podRefs) addTo(names map[string]bool) {
	add := func(n string) {
		if n != "" {
			names[n] = true
		}
	}
	for _, r := range p.Spec.ImagePullSecrets {
		add(r.Name)
	}
	ephemeral := make([]containerRefs, len(p.Spec.EphemeralContainers))
	for i, e := range p.Spec.EphemeralContainers {
		ephemeral[i] = e.containerRefs
	}
	for _, cs := range [][]containerRefs{p.Spec.InitContainers, p.Spec.Containers, ephemeral} {
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
			add(refName(v.CephFS.SecretRef))
		} else if v.Cinder != nil {
			add(refName(v.Cinder.SecretRef))
		} else if v.FlexVolume != nil {
			add(refName(v.FlexVolume.SecretRef))
		} else if v.Projected != nil {
			for _, s := range v.Projected.Sources {
				if s.Secret != nil {
					add(s.Secret.Name)
				}
			}
		} else if v.RBD != nil {
			add(refName(v.RBD.SecretRef))
		} else if v.Secret != nil {
			add(v.Secret.SecretName)
		} else if v.ScaleIO != nil {
			add(refName(v.ScaleIO.SecretRef))
		} else if v.ISCSI != nil {
			add(refName(v.ISCSI.SecretRef))
		} else if v.StorageOS != nil {
			add(refName(v.StorageOS.SecretRef))
		} else if v.CSI != nil && v.CSI.NodePublishSecretRef != nil {
			add(v.CSI.NodePublishSecretRef.Name)
		}
	}
}

// podRefs is the part of a core/v1 Pod that names Secrets, with the JSON
// names and the protobuf field numbers of k8s.io/api v0.37.2's
// core/v1 generated.proto (`N.M`: field M of the message in field N, where
// JSON flattens an embedded message: a LocalObjectReference inside a
// SecretEnvSource, SecretKeySelector or SecretProjection; a Volume's
// VolumeSource; an EphemeralContainer's EphemeralContainerCommon).
type podRefs struct {
	Spec struct {
		ImagePullSecrets    []localRef      `json:"imagePullSecrets" pb:"15"`
		InitContainers      []containerRefs `json:"initContainers" pb:"20"`
		Containers          []containerRefs `json:"containers" pb:"2"`
		EphemeralContainers []ephemeralRefs `json:"ephemeralContainers" pb:"34"`
		Volumes             []volumeRefs    `json:"volumes" pb:"1"`
	} `json:"spec" pb:"2"`
}

// localRef is a core/v1 LocalObjectReference.
type localRef struct {
	Name string `json:"name" pb:"1"`
}

// embeddedRef is the name of a LocalObjectReference embedded in field 1
// (SecretEnvSource, SecretKeySelector, SecretProjection).
type embeddedRef struct {
	Name string `json:"name" pb:"1.1"`
}

type containerRefs struct {
	EnvFrom []struct {
		SecretRef *embeddedRef `json:"secretRef" pb:"3"`
	} `json:"envFrom" pb:"19"`
	Env []struct {
		ValueFrom *struct {
			SecretKeyRef *embeddedRef `json:"secretKeyRef" pb:"4"`
		} `json:"valueFrom" pb:"3"`
	} `json:"env" pb:"7"`
}

// ephemeralRefs is an EphemeralContainer: in JSON its container's members
// are its own (the embedded struct flattens), in protobuf they are field
// 1's (EphemeralContainerCommon, whose numbers are Container's).
type ephemeralRefs struct {
	containerRefs `pb:"1"`
}

type volumeRefs struct {
	AzureFile *struct {
		SecretName string `json:"secretName" pb:"1"`
	} `json:"azureFile" pb:"2.18"`
	CephFS     *secretRef5 `json:"cephfs" pb:"2.14"`
	Cinder     *secretRef4 `json:"cinder" pb:"2.13"`
	FlexVolume *secretRef3 `json:"flexVolume" pb:"2.12"`
	Projected  *struct {
		Sources []struct {
			Secret *embeddedRef `json:"secret" pb:"1"`
		} `json:"sources" pb:"1"`
	} `json:"projected" pb:"2.26"`
	RBD    *secretRef7 `json:"rbd" pb:"2.11"`
	Secret *struct {
		SecretName string `json:"secretName" pb:"1"`
	} `json:"secret" pb:"2.6"`
	ScaleIO   *secretRef3  `json:"scaleIO" pb:"2.25"`
	ISCSI     *secretRef10 `json:"iscsi" pb:"2.8"`
	StorageOS *secretRef5  `json:"storageos" pb:"2.27"`
	CSI       *struct {
		NodePublishSecretRef *localRef `json:"nodePublishSecretRef" pb:"5"`
	} `json:"csi" pb:"2.28"`
}

// The volume sources' secretRef, by its field number: FlexVolume and
// ScaleIO 3, Cinder 4, CephFS and StorageOS 5, RBD 7, ISCSI 10.
type (
	secretRef3 struct {
		SecretRef *localRef `json:"secretRef" pb:"3"`
	}
	secretRef4 struct {
		SecretRef *localRef `json:"secretRef" pb:"4"`
	}
	secretRef5 struct {
		SecretRef *localRef `json:"secretRef" pb:"5"`
	}
	secretRef7 struct {
		SecretRef *localRef `json:"secretRef" pb:"7"`
	}
	secretRef10 struct {
		SecretRef *localRef `json:"secretRef" pb:"10"`
	}
)

func refName(r *localRef) string {
	if r == nil {
		return ""
	}
	return r.Name
}
