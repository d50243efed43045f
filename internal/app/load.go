// Package app is the composition root: it turns validated settings into a
// running session — provider, tools, plugins, hooks, permission policy,
// skills, prompt, slash commands and state — and owns their lifetimes. It
// decides nothing itself: every rule it wires lives in the package that
// owns it.
package app

import (
	"fmt"
	"slices"
	"strings"

	"github.com/shiro-neko/shiro/internal/agent"
	"github.com/shiro-neko/shiro/internal/claudecode"
	"github.com/shiro-neko/shiro/internal/config"
	"github.com/shiro-neko/shiro/internal/llm"
	"github.com/shiro-neko/shiro/internal/permission"
	"github.com/shiro-neko/shiro/internal/plugin"
	"github.com/shiro-neko/shiro/internal/problem"
	"github.com/shiro-neko/shiro/internal/sandbox"
	"github.com/shiro-neko/shiro/internal/tool"
)

// Loaded is the configuration of a run before anything is started, every
// table in it already parsed and checked.
type Loaded struct {
	Settings config.Settings
	Paths    config.Paths
	// Cwd is the workspace root (the working directory).
	Cwd string
	// Policy is the permission policy: your rules, the project's rules
	// (which only tighten) and the session's grants.
	Policy *permission.Policy
	// Approval is when commands ask (the approval key, --approval).
	Approval permission.Approval
	// Mode is the permission mode the session starts in
	// (--permission-mode, else Claude Code's defaultMode).
	Mode permission.Mode
	// Sets are the tool sets to offer.
	Sets []tool.Set
	// Project is what the project's config asks for that needs the
	// person's approval (project.go).
	Project ProjectReview
	// problems are what loading left out of the project's config.
	problems []Problem
	warnings []string
	// claude are Claude Code's settings files as read, for the keys other
	// than permissions (the status line).
	claude []claudecode.Settings
	// getenv is the environment the settings were read from; /provider
	// looks for keys in it.
	getenv func(string) string
}

// Warnings returns what loading found worth telling the person.
func (l Loaded) Warnings() []string { return append(slices.Clone(l.warnings), l.Settings.Warnings...) }

// Load reads the user's config, the project's `.shiro/config.json`, the
// environment and flags. A table that cannot be honoured — a decision that
// is not allow/ask/deny, an unknown tool set, plugin, agent or thinking
// level — is an error naming the file and the field, in every mode: a
// guess could widen access, and silence would hide the mistake. The
// exception is an unknown plugin or tool-set name in the project's config,
// which is left out and reported (Problems), so a clone with a typo still
// starts; and what the project's config asks for that runs programs or
// offers more tools waits for the person's approval (project.go).
func Load(getenv func(string) string, cwd string, flags config.Flags) (Loaded, error) {
	paths, err := config.PathsFromEnv(getenv)
	if err != nil {
		return Loaded{}, err
	}
	userPath := paths.ConfigFile()
	user, warns, err := config.ReadFile(userPath)
	if err != nil {
		return Loaded{}, err
	}
	projectPath := config.ProjectConfigFile(cwd)
	project, pwarns, err := config.ReadFile(projectPath)
	if err != nil {
		return Loaded{}, err
	}
	userRules, err := checkFile(userPath, user)
	if err != nil {
		return Loaded{}, err
	}
	if err := checkMCP(userPath, user); err != nil {
		return Loaded{}, err
	}
	project, problems := lenientProject(projectPath, project)
	projectRules, err := checkFile(projectPath, project)
	if err != nil {
		return Loaded{}, err
	}
	project, review := reviewProject(paths, cwd, user, project)
	s, err := config.Resolve(user, project, getenv, flags)
	if err != nil {
		return Loaded{}, err
	}
	l := Loaded{Settings: s, Paths: paths, Cwd: cwd, Project: review, problems: problems, warnings: append(warns, pwarns...), getenv: getenv}
	if w := looserSandboxWarning(s); w != "" {
		l.warnings = append(l.warnings, w)
	}
	if l.Approval, err = permission.ParseApproval(s.Approval); err != nil {
		if flags.Approval != "" {
			return Loaded{}, fmt.Errorf("--approval: %w", err)
		}
		return Loaded{}, fmt.Errorf("%s: field %q: %w", userPath, "approval", err)
	}
	borrowed, err := claudeRules(paths, cwd)
	if err != nil {
		return Loaded{}, err
	}
	l.warnings = append(l.warnings, borrowed.notes...)
	l.claude = borrowed.files
	l.Mode = borrowed.mode
	if flags.Mode != "" {
		if l.Mode, err = permission.ParseMode(flags.Mode); err != nil {
			return Loaded{}, fmt.Errorf("--permission-mode: %w", err)
		}
	}
	l.Policy = permission.NewPolicy(userRules, projectRules,
		permission.WithPathResolver(permission.WorkspaceResolver(cwd)),
		permission.WithBorrowed(borrowed.user, borrowed.project))
	l.Sets = tool.DefaultSets()
	if s.ToolSets != nil {
		// Each file's list was checked above; the merged one is valid.
		if l.Sets, err = tool.ParseSets(s.ToolSets); err != nil {
			return Loaded{}, err
		}
	}
	if flags.Agent != "" {
		if _, err := agent.VariantNamed(flags.Agent); err != nil {
			return Loaded{}, fmt.Errorf("--agent: %w", err)
		}
	}
	if flags.Sandbox != "" {
		if _, err := sandbox.ParseMode(flags.Sandbox); err != nil {
			return Loaded{}, fmt.Errorf("--sandbox: %w", err)
		}
	}
	return l, nil
}

// checkFile checks the tables of one config file and parses its
// permission rules (nil when it has none).
func checkFile(path string, f config.File) (*permission.Rules, error) {
	field := func(name string, err error) error { return fmt.Errorf("%s: field %q: %w", path, name, err) }
	var rules *permission.Rules
	if len(f.Permission) > 0 {
		r, err := permission.Parse(f.Permission)
		if err != nil {
			return nil, field("permission", err)
		}
		rules = r
	}
	if f.Sandbox != nil {
		if _, err := sandbox.ParseMode(f.Sandbox.Mode); err != nil {
			return nil, field("sandbox.mode", err)
		}
	}
	if f.ToolSets != nil {
		if _, err := tool.ParseSets(*f.ToolSets); err != nil {
			return nil, field("toolSets", err)
		}
	}
	if f.Plugins != nil {
		var unknown []string
		for _, name := range *f.Plugins {
			if !slices.Contains(plugin.BuiltinNames(), name) {
				unknown = append(unknown, fmt.Sprintf("%q", name))
			}
		}
		if len(unknown) > 0 {
			return nil, field("plugins", fmt.Errorf("no builtin plugin is called %s; the builtins are %s (manifest plugins are files in a plugins folder, not names here)",
				strings.Join(unknown, ", "), strings.Join(plugin.BuiltinNames(), ", ")))
		}
	}
	if f.Agent != "" {
		if _, err := agent.VariantNamed(f.Agent); err != nil {
			return nil, field("agent", err)
		}
	}
	if f.Thinking != "" {
		if _, err := llm.ParseThinking(f.Thinking); err != nil {
			return nil, field("thinking", err)
		}
	}
	return rules, nil
}

// borrowedRules are the permission rules of Claude Code's settings files:
// the user's, which count like the person's own, and the project's, which
// only tighten; notes are the rules left out, each naming its file.
type borrowedRules struct {
	user, project *permission.Rules
	notes         []string
	files         []claudecode.Settings
	// mode is the permission mode the files start a session in.
	mode permission.Mode
}

// claudeRules reads ~/.claude/settings.json, .claude/settings.json and
// .claude/settings.local.json. A rule shiro cannot honour is reported and
// the others still load; a file that is not JSON stops shiro, since
// skipping it would drop its deny rules.
func claudeRules(paths config.Paths, cwd string) (borrowedRules, error) {
	files, err := claudecode.Load(paths.Home, cwd)
	if err != nil {
		return borrowedRules{}, err
	}
	var user, project []claudecode.Settings
	for _, f := range files {
		if f.Scope == claudecode.ScopeUser {
			user = append(user, f)
		} else {
			project = append(project, f)
		}
	}
	where := claudecode.Where{Home: paths.Home, Workspace: cwd}
	b := borrowedRules{files: files}
	var problems []problem.Problem
	b.mode, problems = claudecode.StartMode(files)
	for _, p := range problems {
		b.notes = append(b.notes, p.String())
	}
	for _, layer := range []struct {
		files []claudecode.Settings
		into  **permission.Rules
	}{{user, &b.user}, {project, &b.project}} {
		r, problems, err := claudecode.Rules(layer.files, where)
		if err != nil {
			return borrowedRules{}, fmt.Errorf("the permission rules of Claude Code's settings: %w", err)
		}
		*layer.into = r
		for _, p := range problems {
			b.notes = append(b.notes, p.String())
		}
	}
	return b, nil
}
