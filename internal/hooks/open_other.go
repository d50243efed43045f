//go:build !unix

package hooks

const openNoBlock = 0
