package config

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"os"
	"path/filepath"
)

// Paths locates shiro's own state. SHIRO_HOME replaces the home directory;
// `.shiro-neko/` is always appended under it.
type Paths struct {
	// Home is $SHIRO_HOME, or the user's home directory.
	Home string
}

// PathsFromEnv resolves the home directory from getenv (SHIRO_HOME, then
// HOME, then the OS's notion of home).
func PathsFromEnv(getenv func(string) string) (Paths, error) {
	if h := getenv("SHIRO_HOME"); h != "" {
		abs, err := filepath.Abs(h)
		if err != nil {
			return Paths{}, fmt.Errorf("SHIRO_HOME %q: %w", h, err)
		}
		return Paths{Home: abs}, nil
	}
	if h := getenv("HOME"); h != "" {
		return Paths{Home: h}, nil
	}
	h, err := os.UserHomeDir()
	if err != nil {
		return Paths{}, fmt.Errorf("cannot find a home directory; set SHIRO_HOME: %w", err)
	}
	return Paths{Home: h}, nil
}

// State is the directory holding everything shiro keeps.
func (p Paths) State() string { return filepath.Join(p.Home, ".shiro-neko") }

// ConfigFile is the user's config.json.
func (p Paths) ConfigFile() string { return filepath.Join(p.State(), "config.json") }

// Sessions holds saved sessions.
func (p Paths) Sessions() string { return filepath.Join(p.State(), "sessions") }

// Checkpoints holds the checkpoints of the project at cwd: a private git
// repository of its snapshots and the journal of each session's turns.
func (p Paths) Checkpoints(cwd string) string {
	return filepath.Join(p.State(), "checkpoints", ProjectKey(cwd))
}

// SessionsDB is the session store: every session's messages, task list
// and usage, and each project's prompt history.
func (p Paths) SessionsDB() string { return filepath.Join(p.State(), "sessions.db") }

// Skills holds the user's own skills.
func (p Paths) Skills() string { return filepath.Join(p.State(), "skills") }

// Commands holds the user's custom slash commands.
func (p Paths) Commands() string { return filepath.Join(p.State(), "commands") }

// ClaudeDir is Claude Code's folder in the home directory (~/.claude), whose
// skills and commands shiro reads unchanged.
func (p Paths) ClaudeDir() string { return filepath.Join(p.Home, ".claude") }

// Registry holds installed registry skills and plugins.
func (p Paths) Registry() string { return filepath.Join(p.State(), "registry") }

// Plugins holds the user's declarative plugin manifests.
func (p Paths) Plugins() string { return filepath.Join(p.State(), "plugins") }

// Hooks holds the user's hooks.
func (p Paths) Hooks() string { return filepath.Join(p.State(), "hooks") }

// HookTrust is the record of approved hook digests.
func (p Paths) HookTrust() string { return filepath.Join(p.State(), "hooks.json") }

// HookCache holds verified copies of hook executables.
func (p Paths) HookCache() string { return filepath.Join(p.State(), "hook-cache") }

// Quarantine holds the git redirects (commondir, config.worktree…) that
// sandboxed commands planted, moved there so that git cannot read them.
func (p Paths) Quarantine() string { return filepath.Join(p.State(), "quarantine") }

// Backgrounds is the journal of background commands, reaped at start-up.
func (p Paths) Backgrounds() string { return filepath.Join(p.State(), "backgrounds.json") }

// Memory is the project memory file for a working directory.
func (p Paths) Memory(cwd string) string {
	return filepath.Join(p.State(), "memory", ProjectKey(cwd)+".json")
}

// Notebook is the task list file for a working directory.
func (p Paths) Notebook(cwd string) string {
	return filepath.Join(p.State(), "notebook", ProjectKey(cwd)+".json")
}

// History is the prompt history file for a working directory.
func (p Paths) History(cwd string) string {
	return filepath.Join(p.State(), "history", ProjectKey(cwd)+".json")
}

// ProjectKey names a project's state files: the first 16 hex digits of the
// sha256 of its absolute path.
func ProjectKey(dir string) string {
	sum := sha256.Sum256([]byte(dir))
	return hex.EncodeToString(sum[:])[:16]
}

// Tools is the folder of the person's own tool manifests.
func (p Paths) Tools() string { return filepath.Join(p.State(), "tools") }

// ToolTrust is where approvals of project tool manifests are kept.
func (p Paths) ToolTrust() string { return filepath.Join(p.State(), "tool-trust.json") }

// ProjectDir is the project's own `.shiro/` directory.
func ProjectDir(root string) string { return filepath.Join(root, ".shiro") }
