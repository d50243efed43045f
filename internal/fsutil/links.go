package fsutil

import (
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

// maxLinkHops bounds a chain of dangling links, as the kernel does.
const maxLinkHops = 40

// ResolveLinks resolves the symlinks of the absolute path p the way the
// kernel will when the path is used: through a dangling last link, and
// through the existing part of a path whose last parts do not exist yet
// (a file about to be created). It returns "" when p cannot be resolved
// (a loop, or an unreadable link), which callers judge as dangerous.
//
// p is not cleaned first: "link/.." is the folder above the link's
// target, as the kernel reads it, not the folder that holds the link.
func ResolveLinks(p string) string {
	return resolveLinks(p, maxLinkHops)
}

func resolveLinks(p string, hops int) string {
	if r, err := filepath.EvalSymlinks(p); err == nil {
		return r
	}
	info, err := os.Lstat(p)
	switch {
	case err == nil && info.Mode()&fs.ModeSymlink != 0 && hops > 0:
		link, err := os.Readlink(p)
		if err != nil {
			return ""
		}
		if !filepath.IsAbs(link) {
			link = filepath.Join(filepath.Dir(p), link)
		}
		return resolveLinks(link, hops-1)
	case err == nil:
		return "" // exists but cannot be resolved (a loop)
	}
	parent, base := splitLast(p)
	if parent == "" || parent == p {
		return ""
	}
	dir := resolveLinks(parent, hops)
	if dir == "" {
		return ""
	}
	return filepath.Join(dir, base)
}

// splitLast splits p before its last element without cleaning it
// (filepath.Dir would fold "link/.." away before the link is followed).
func splitLast(p string) (parent, base string) {
	sep := string(filepath.Separator)
	trimmed := strings.TrimRight(p, sep)
	if trimmed == "" {
		return "", ""
	}
	i := strings.LastIndex(trimmed, sep)
	if i < 0 {
		return "", ""
	}
	parent = trimmed[:i]
	if parent == "" {
		parent = sep
	}
	return parent, trimmed[i+1:]
}

// Within reports whether the clean path p is root or lies beneath it, by
// its text alone (resolve links first where they matter).
func Within(root, p string) bool {
	if p == root {
		return true
	}
	if sep := string(filepath.Separator); !strings.HasSuffix(root, sep) {
		root += sep
	}
	return strings.HasPrefix(p, root)
}
