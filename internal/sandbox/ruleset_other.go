//go:build !linux

package sandbox

// rulesetCache holds nothing where there is no Landlock.
type rulesetCache struct{}
