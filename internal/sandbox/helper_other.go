//go:build !linux

package sandbox

// MaybeRunHelper returns at once: only Linux re-executes shiro as a
// sandbox helper.
func MaybeRunHelper() {}
