package resource_test

import (
	"fmt"

	"github.com/kcmlab/kcm/kube/api/resource"
)

// Summing the memory requests of two containers, as the resourcequota
// controller does, and printing the canonical form Kubernetes writes into
// status.used.
func ExampleQuantity_Add() {
	a, b := resource.MustParse("1.5Gi"), resource.MustParse("512Mi")
	sum := a.Add(b)
	fmt.Println(sum, sum.Format(), sum.Value())
	fmt.Println(resource.MustParse("1.5").Add(resource.MustParse("250m")))
	fmt.Println(resource.MustParse("2").Cmp(resource.MustParse("1999m")))
	// Output:
	// 2Gi BinarySI 2147483648
	// 1750m
	// 1
}
