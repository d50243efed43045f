package app

import (
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/shiro-neko/shiro/internal/config"
	"github.com/shiro-neko/shiro/internal/plugin"
	"github.com/shiro-neko/shiro/internal/sandbox"
	"github.com/shiro-neko/shiro/internal/tool"
	"github.com/shiro-neko/shiro/internal/trust"
)

// A project's .shiro/config.json is in the repository, where anyone who
// can change the repository, the model included, can change it. What it
// may set that only tightens applies at once. What would make shiro run
// programs (plugins that start them) or offer the model more than the
// person's own config does (tool sets) applies only once the person has
// approved the file's plugins and toolSets, by digest; a change asks
// again. Until then those keys are left out and shiro says so at start.

// ProjectReview is what a project's config asks for that needs approval,
// and whether it has it.
type ProjectReview struct {
	// File is the project config's path; Root the project folder the
	// approval is kept for.
	File, Root string
	// Needs lists, one line each, what needs approval; empty when nothing
	// does.
	Needs []string
	// Digest is the digest an approval must match.
	Digest string
	// Approved is set when the person approved exactly Digest.
	Approved bool
	// Err says why the approvals could not be read (the config is then
	// treated as not approved).
	Err error
}

// Pending reports whether something waits for approval.
func (r ProjectReview) Pending() bool { return len(r.Needs) > 0 && !r.Approved }

// Problem is the start-up notice of a pending approval.
func (r ProjectReview) Problem() Problem {
	msg := fmt.Sprintf("%s: not applied until you approve it: run `shiro config approve` in %s after reading the file (digest %s)",
		strings.Join(r.Needs, "; "), r.Root, r.Digest[:12])
	if r.Err != nil {
		msg += fmt.Sprintf(" (approvals unreadable: %v)", r.Err)
	}
	return Problem{Kind: "config", Where: r.File, Err: msg}
}

// Describe is the review for `shiro config`: what the file asks for and
// whether it is approved.
func (r ProjectReview) Describe() string {
	if len(r.Needs) == 0 {
		return fmt.Sprintf("%s asks for nothing that needs approval\n", r.File)
	}
	state := "approved"
	if !r.Approved {
		state = "NOT approved (left out until you run `shiro config approve`)"
	}
	var b strings.Builder
	fmt.Fprintf(&b, "%s: %s\ndigest %s\n", r.File, state, r.Digest)
	for _, n := range r.Needs {
		fmt.Fprintf(&b, "  %s\n", n)
	}
	return b.String()
}

// ConfigProblems are what the person hears at start about the project's
// config: names left out, and what waits for approval.
func (l Loaded) ConfigProblems() []Problem {
	out := slices.Clone(l.problems)
	if l.Project.Pending() {
		out = append(out, l.Project.Problem())
	}
	return out
}

// LeftOut are the names of the project's config that were left out
// because nothing is called that.
func (l Loaded) LeftOut() []Problem { return slices.Clone(l.problems) }

// ConfigTrust is the store of project config approvals.
func (l Loaded) ConfigTrust() *trust.Store {
	return trust.New(l.Paths.ConfigTrust(), "project config")
}

// ApproveProject records the person's approval of the project config as
// it is now; with digest set, only if it still has that digest.
func (l Loaded) ApproveProject(digest string, now time.Time) error {
	r := l.Project
	if len(r.Needs) == 0 {
		return fmt.Errorf("%s asks for nothing that needs approval", r.File)
	}
	if digest != "" && digest != r.Digest {
		return fmt.Errorf("%s has changed: its digest is now %s, not %s; read it again before approving", r.File, r.Digest, digest)
	}
	return l.ConfigTrust().Approve(r.Root, config.ProjectApprovalName, r.Digest, now)
}

// projectRoot is the folder approvals are kept for: cwd with its symlinks
// resolved, so two ways into one project share them.
func projectRoot(cwd string) string {
	if real, err := filepath.EvalSymlinks(cwd); err == nil {
		return real
	}
	return filepath.Clean(cwd)
}

// reviewProject decides which of project's keys need approval given the
// user's config, and returns project with them left out unless approved.
func reviewProject(paths config.Paths, cwd string, user, project config.File) (config.File, ProjectReview) {
	r := ProjectReview{File: config.ProjectConfigFile(cwd), Root: projectRoot(cwd)}
	userPlugins := config.DefaultPlugins()
	if user.Plugins != nil {
		userPlugins = *user.Plugins
	}
	var runs []string
	if project.Plugins != nil {
		for _, p := range *project.Plugins {
			if plugin.RunsPrograms(p) && !slices.Contains(userPlugins, p) && !slices.Contains(runs, p) {
				runs = append(runs, p)
			}
		}
	}
	if len(runs) > 0 {
		r.Needs = append(r.Needs, fmt.Sprintf("plugins %s (they run programs)", strings.Join(runs, ", ")))
	}
	wider := widerSets(user, project)
	if len(wider) > 0 {
		r.Needs = append(r.Needs, fmt.Sprintf("toolSets %s (beyond your own config's)", strings.Join(wider, ", ")))
	}
	if len(r.Needs) == 0 {
		return project, r
	}
	r.Digest = trust.Digest(project.ApprovalContent())
	r.Approved, r.Err = trust.New(paths.ConfigTrust(), "project config").Approved(r.Root, config.ProjectApprovalName, r.Digest)
	if r.Approved {
		return project, r
	}
	if len(runs) > 0 {
		kept := slices.DeleteFunc(slices.Clone(*project.Plugins), func(p string) bool { return slices.Contains(runs, p) })
		project.Plugins = &kept
	}
	if len(wider) > 0 {
		project.ToolSets = nil
	}
	return project, r
}

// widerSets are the tool sets project's toolSets offers that the user's
// own config does not. A project that only narrows the sets needs no
// approval.
func widerSets(user, project config.File) []string {
	if project.ToolSets == nil {
		return nil
	}
	mine := tool.DefaultSets()
	if user.ToolSets != nil {
		if sets, err := tool.ParseSets(*user.ToolSets); err == nil {
			mine = sets
		}
	}
	theirs, err := tool.ParseSets(*project.ToolSets)
	if err != nil {
		return nil // unknown names were dropped before; nothing else fails
	}
	var out []string
	for _, s := range theirs {
		if !slices.Contains(mine, s) {
			out = append(out, string(s))
		}
	}
	return out
}

// lenientProject drops the plugin and tool-set names of a project's config
// that do not exist, each reported as a problem naming the file and field:
// a clone with a typo in its config must still start. (Your own config
// stays strict: checkFile refuses it.)
func lenientProject(path string, f config.File) (config.File, []Problem) {
	var problems []Problem
	if f.Plugins != nil {
		var kept, unknown []string
		for _, name := range *f.Plugins {
			if slices.Contains(plugin.BuiltinNames(), name) {
				kept = append(kept, name)
			} else {
				unknown = append(unknown, fmt.Sprintf("%q", name))
			}
		}
		if len(unknown) > 0 {
			f.Plugins = &kept
			problems = append(problems, Problem{Kind: "config", Where: path, Err: fmt.Sprintf(
				"field \"plugins\": no builtin plugin is called %s; ignored (the builtins are %s)",
				strings.Join(unknown, ", "), strings.Join(plugin.BuiltinNames(), ", "))})
		}
	}
	if f.ToolSets != nil {
		var kept, unknown []string
		for _, name := range *f.ToolSets {
			if _, err := tool.ParseSets([]string{name}); err == nil {
				kept = append(kept, name)
			} else {
				unknown = append(unknown, fmt.Sprintf("%q", name))
			}
		}
		if len(unknown) > 0 {
			// Nothing left means the key was all typos: the person's own
			// sets stand rather than core alone.
			f.ToolSets = &kept
			if len(kept) == 0 {
				f.ToolSets = nil
			}
			var valid []string
			for _, s := range tool.AllSets() {
				valid = append(valid, string(s))
			}
			problems = append(problems, Problem{Kind: "config", Where: path, Err: fmt.Sprintf(
				"field \"toolSets\": no tool set is called %s; ignored (the sets are %s)",
				strings.Join(unknown, ", "), strings.Join(valid, ", "))})
		}
	}
	return f, problems
}

// looserSandboxWarning says when the project's sandbox.mode is left out
// because it would confine less than the person's own (or the default):
// a project may only choose a stricter mode, and silence would hide that
// its choice does not count.
func looserSandboxWarning(s config.Settings) string {
	if s.ProjectSandbox.Mode == "" {
		return ""
	}
	project, err := sandbox.ParseMode(s.ProjectSandbox.Mode)
	if err != nil {
		return "" // checkFile reported it
	}
	mine, err := sandbox.ParseMode(s.Sandbox.Mode)
	if err != nil || project == mine || project.Stricter(mine) {
		return ""
	}
	return fmt.Sprintf("project config: sandbox.mode %q is looser than yours (%q); ignored (a project may only choose a stricter mode)", project, mine)
}
