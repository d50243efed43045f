//go:build !linux

package supervise

// RemoveCommandCgroups has nothing to remove: only Linux supervisors make
// cgroups.
func RemoveCommandCgroups(Limits, int) {}
