package api

// This file holds coordination.k8s.io/v1 Lease, the lock leader election
// takes. Every spec field is a pointer, as upstream: an unset holder or
// duration is not the same as an empty one.

var _ Object = (*Lease)(nil)

// Lease is a coordination.k8s.io/v1 Lease.
type Lease struct {
	TypeMeta
	ObjectMeta `json:"metadata" pb:"1"`
	Spec       LeaseSpec `json:"spec,omitempty" pb:"2"`
}

// LeaseSpec is the state of the lock. Writers update it with optimistic
// concurrency (metadata.resourceVersion), so two candidates never both
// believe they took it.
type LeaseSpec struct {
	// HolderIdentity is the current holder; nil or "" means free.
	HolderIdentity       *string `json:"holderIdentity,omitempty" pb:"1"`
	LeaseDurationSeconds *int32  `json:"leaseDurationSeconds,omitempty" pb:"2"`
	// AcquireTime is when the current holder took the lease.
	AcquireTime *MicroTime `json:"acquireTime,omitempty" pb:"3"`
	// RenewTime is the holder's last renewal, by the holder's clock.
	// Candidates must not compare it with their own clock; they time expiry
	// from when they observed it change.
	RenewTime        *MicroTime `json:"renewTime,omitempty" pb:"4"`
	LeaseTransitions *int32     `json:"leaseTransitions,omitempty" pb:"5"`
	// Strategy and PreferredHolder serve coordinated leader election
	// (alpha); kcm only carries them.
	Strategy        *string `json:"strategy,omitempty" pb:"6"`
	PreferredHolder *string `json:"preferredHolder,omitempty" pb:"7"`
}
