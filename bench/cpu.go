package bench

import (
	"syscall"
	"time"
)

// CPUTime returns the CPU time (user + system) this process has used so
// far, all threads included. On a shared machine it is steadier than wall
// time: other processes' load stretches wall time but not the CPU time an
// engine needs.
func CPUTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
