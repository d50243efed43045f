package permission

import (
	"path/filepath"

	"github.com/shiro-neko/shiro/internal/fsutil"
)

// PathResolver returns the files a path subject leads to through
// symlinks, other than the subject itself; nil when it leads nowhere else.
type PathResolver func(subject string) []string

// PolicyOption configures a Policy.
type PolicyOption func(*Policy)

// WithPathResolver makes the policy judge a path tool's call also by the
// files its paths resolve to: read_file of `notes`, a symlink to `.env`,
// is judged as a read of `.env` too, and the strictest verdict wins. The
// resolved path is added as one more subject of the call (the permission
// layer is the one place every path tool passes, so no tool can forget
// it; the tools' own plans name paths as the model wrote them).
func WithPathResolver(r PathResolver) PolicyOption {
	return func(p *Policy) { p.resolve = r }
}

// WorkspaceResolver resolves subjects against the workspace root: a
// relative path is taken from the root, then its symlinks are followed,
// a dangling last link included (`notes -> .env` before .env exists). A
// target inside the workspace is given relative to it, as subjects are.
func WorkspaceResolver(root string) PathResolver {
	root = filepath.Clean(root)
	realRoot, err := filepath.EvalSymlinks(root)
	if err != nil {
		realRoot = root
	}
	return func(subject string) []string {
		if subject == "" {
			return nil
		}
		abs := filepath.FromSlash(subject)
		if !filepath.IsAbs(abs) {
			abs = filepath.Join(root, abs)
		}
		resolved := fsutil.ResolveLinks(abs)
		if resolved == "" || resolved == abs {
			return nil
		}
		for _, r := range []string{root, realRoot} {
			if rel, err := filepath.Rel(r, resolved); err == nil && filepath.IsLocal(rel) {
				if filepath.ToSlash(rel) == filepath.ToSlash(subject) {
					return nil
				}
				return []string{filepath.ToSlash(rel)}
			}
		}
		return []string{resolved}
	}
}

// withResolved adds to a path tool's subjects the files they resolve to.
func (p *Policy) withResolved(q Query) Query {
	if !q.Paths || p.resolve == nil {
		return q
	}
	var extra []string
	for _, s := range q.Subjects {
		extra = append(extra, p.resolve(s)...)
	}
	if len(extra) == 0 {
		return q
	}
	q.Subjects = append(append([]string(nil), q.Subjects...), extra...)
	return q
}
