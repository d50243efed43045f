package plugin_test

import "github.com/shiro-neko/shiro/internal/permission"

// readPolicy is the session's permission policy for a workspace, as the
// app builds it: the default rules, judging a path tool's paths as given
// and as the files they resolve to.
func readPolicy(root string) *permission.Policy {
	return permission.NewPolicy(nil, nil, permission.WithPathResolver(permission.WorkspaceResolver(root)))
}
