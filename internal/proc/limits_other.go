//go:build !linux

package proc

// RemoveCommandCgroups has nothing to remove: only Linux supervisors make
// cgroups.
func RemoveCommandCgroups(Limits, int) {}
