package app

import (
	"fmt"
	"path/filepath"
	"strings"
	"time"

	"github.com/shiro-neko/shiro/internal/config"
	"github.com/shiro-neko/shiro/internal/tool"
	"github.com/shiro-neko/shiro/internal/tools/external"
	"github.com/shiro-neko/shiro/internal/trust"
)

// ManifestTool is one external tool manifest and where it stands: a
// project's (.shiro/tools) is offered only once the person approved its
// exact bytes, as a project's MCP servers are; the person's own
// (~/.shiro-neko/tools) always is.
type ManifestTool struct {
	external.Manifest
	Project  bool
	Digest   string
	Approved bool
}

// Offered reports whether the tool may be offered to the model.
func (m ManifestTool) Offered() bool { return !m.Project || m.Approved }

// toolTrustName is the trust store's key of a project tool.
func toolTrustName(name string) string { return "tool:" + name }

// ToolTrust is where the approvals of project tools are kept.
func (l Loaded) ToolTrust() *trust.Store {
	return trust.New(l.Paths.ToolTrust(), "project tool")
}

// ManifestTools reads the person's and the project's tool manifests. A
// project tool of the same name as one of the person's replaces it, as a
// project's plugins do. Bad manifests, and approvals that cannot be read,
// come back as problems; the rest still load.
func (l Loaded) ManifestTools() ([]ManifestTool, []Problem) {
	var out []ManifestTool
	var problems []Problem
	byName := map[string]int{}
	add := func(dir string, project bool) {
		ms, bad := external.Load(dir)
		problems = append(problems, bad...)
		root := projectRoot(l.Cwd)
		for _, m := range ms {
			mt := ManifestTool{Manifest: m, Project: project, Digest: trust.Digest(m.Content)}
			if project {
				ok, err := l.ToolTrust().Approved(root, toolTrustName(m.Name), mt.Digest)
				if err != nil {
					problems = append(problems, Problem{Kind: "tool", Where: m.File, Err: err.Error()})
				}
				mt.Approved = ok
			}
			if i, dup := byName[m.Name]; dup {
				out[i] = mt
				continue
			}
			byName[m.Name] = len(out)
			out = append(out, mt)
		}
	}
	add(l.Paths.Tools(), false)
	add(filepath.Join(config.ProjectDir(projectRoot(l.Cwd)), "tools"), true)
	return out, problems
}

// ApproveTool approves the project tool called name as its file is now;
// with digest, only if the file still has that digest.
func (l Loaded) ApproveTool(name, digest string, now time.Time) (ManifestTool, error) {
	ts, _ := l.ManifestTools()
	for _, t := range ts {
		if t.Name != name {
			continue
		}
		if !t.Project {
			return t, fmt.Errorf("%s is your own tool (%s); only a project's tools need approval", name, t.File)
		}
		if digest != "" && digest != t.Digest {
			return t, fmt.Errorf("%s has changed: its digest is now %s, not %s; read it again before approving", t.File, t.Digest, digest)
		}
		return t, l.ToolTrust().Approve(projectRoot(l.Cwd), toolTrustName(name), t.Digest, now)
	}
	return ManifestTool{}, fmt.Errorf("no tool manifest is called %q here (see `shiro tools`)", name)
}

// manifestTools builds the tools the manifests describe that may be
// offered, leaving out (as problems) unapproved project tools and those
// whose names a built-in tool already has.
func (a *App) manifestTools(builtin []tool.Tool) []tool.Tool {
	taken := map[string]bool{}
	for _, t := range builtin {
		taken[t.Info().Name] = true
	}
	ms, problems := a.Loaded.ManifestTools()
	a.startup = append(a.startup, problems...)
	ms = append(ms, a.pluginTools()...)
	var out []tool.Tool
	for _, m := range ms {
		switch {
		case taken[m.Name]:
			a.startup = append(a.startup, Problem{Kind: "tool", Where: m.File,
				Err: fmt.Sprintf("field \"name\": %q is a built-in tool's name; rename the manifest's tool", m.Name)})
		case !m.Offered():
			a.startup = append(a.startup, Problem{Kind: "tool", Where: m.File,
				Err: fmt.Sprintf("project tool %s is not offered until you approve it: read the file, then run `shiro tools approve %s`", m.Name, m.Name)})
		default:
			out = append(out, external.Tool(m.Manifest, external.Deps{Env: a.Env}))
		}
	}
	return out
}

// pluginTools are the tools enabled manifest plugins add. A registry
// plugin's are covered by its signature and its install; a plugin in the
// project's .shiro/plugins has no approval of its own, so its tools are
// left out with a problem that says how to offer one (as a .shiro/tools
// manifest, which is approved by digest).
func (a *App) pluginTools() []ManifestTool {
	ms, sources := a.ext.Load().plugins.ToolManifests()
	projectPlugins := filepath.Join(config.ProjectDir(projectRoot(a.Loaded.Cwd)), "plugins") + string(filepath.Separator)
	var out []ManifestTool
	for i, m := range ms {
		src := sources[i]
		if real, err := filepath.EvalSymlinks(src); err == nil {
			src = real
		}
		if strings.HasPrefix(src, projectPlugins) {
			a.startup = append(a.startup, Problem{Kind: "tool", Where: sources[i],
				Err: fmt.Sprintf("tool %s of a project plugin is not offered: a project's tools need approval; put it in .shiro/tools/ and run `shiro tools approve %s`", m.Name, m.Name)})
			continue
		}
		m.File = sources[i]
		out = append(out, ManifestTool{Manifest: m, Digest: trust.Digest(m.Content)})
	}
	return out
}
