package fidelity_test

import (
	"fmt"

	corev1 "k8s.io/api/core/v1"

	"github.com/kcmlab/kcm/bench/fidelity"
)

// A container with "securityContext": {} and one without it are different
// templates to Kubernetes (a non-nil pointer against a nil one), and so
// they are to kcm; an empty list of ports and none are the same template.
func ExampleCheckCompare() {
	with := &corev1.PodTemplateSpec{Spec: corev1.PodSpec{Containers: []corev1.Container{
		{Name: "c", Image: "nginx", SecurityContext: &corev1.SecurityContext{}, Ports: []corev1.ContainerPort{}},
	}}}
	without := with.DeepCopy()
	without.Spec.Containers[0].SecurityContext = nil
	noPorts := with.DeepCopy()
	noPorts.Spec.Containers[0].Ports = nil
	fmt.Println(fidelity.CheckCompare(with, without))
	fmt.Println(fidelity.CheckCompare(with, noPorts))
	// Output:
	// <nil>
	// <nil>
}
