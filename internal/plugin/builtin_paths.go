package plugin

import (
	"context"
	"fmt"
	"path"
	"path/filepath"
	"slices"
	"strings"

	"github.com/shiro-neko/shiro/internal/fsutil"
	"github.com/shiro-neko/shiro/internal/secrets"
	"github.com/shiro-neko/shiro/internal/shellguard"
)

// pathKind says why a path is protected: what it is and what to do instead.
type pathKind struct {
	what   string
	advice string
	// regenerable: a tool makes what is there again (build output, a
	// cache), so removing a file from it loses nothing.
	regenerable bool
}

// target is one file, normalised for matching.
type target struct {
	shown string   // as given, for the refusal
	parts []string // lower-cased components, relative to the workspace when inside it
	abs   string   // absolute and clean, "" when the workspace is unknown
	kind  shellguard.WriteKind
}

// secretKind recognises credentials (internal/secrets decides what they
// are) and says what to do instead. Matching is case-insensitive because
// macOS and Windows file systems are.
func secretKind(t target) (pathKind, bool) {
	return adviseSecret(secrets.Classify(strings.Join(t.parts, "/")))
}

func adviseSecret(k secrets.Kind) (pathKind, bool) {
	switch k {
	case secrets.None:
		return pathKind{}, false
	case secrets.EnvFile:
		return pathKind{k.String(), "ask the user to add the values; .env.example may be written with placeholders", false}, true
	case secrets.TokenFile:
		return pathKind{k.String(), "ask the user to configure it", false}, true
	case secrets.CredentialsFile:
		return pathKind{k.String(), "ask the user to fill it in", false}, true
	case secrets.CredentialsDir:
		return pathKind{k.String() + " (.ssh, .aws, .gnupg)", "keys and credentials belong to the user", false}, true
	}
	return pathKind{k.String(), "keys belong to the user", false}, true
}

func lockfiles() []string {
	return []string{"bun.lock", "bun.lockb", "package-lock.json", "npm-shrinkwrap.json", "pnpm-lock.yaml", "yarn.lock",
		"cargo.lock", "poetry.lock", "uv.lock", "pdm.lock", "pipfile.lock", "composer.lock", "go.sum", "gemfile.lock",
		"mix.lock", "flake.lock", "packages.lock.json"}
}

// generatedDirs hold build output, installed dependencies and caches: a
// tool writes them, and a hand edit is lost or breaks the tool.
func generatedDir(name string) (pathKind, bool) {
	switch name {
	case "node_modules", "vendor", "bower_components", ".venv", "site-packages":
		return pathKind{"installed dependencies (" + name + "/)", "change the dependency through the package manager", false}, true
	case "dist", "build", "out", ".next", ".nuxt", ".svelte-kit", ".output", "coverage", ".turbo", ".vercel":
		return pathKind{"generated output (" + name + "/)", "change the sources and rebuild", true}, true
	case ".cache", "__pycache__", ".pytest_cache", ".mypy_cache", ".ruff_cache", ".tox", ".nox", ".gradle",
		".parcel-cache", ".angular", ".eslintcache", ".terraform":
		return pathKind{"a tool cache (" + name + "/)", "let the tool manage it", true}, true
	}
	return pathKind{}, false
}

// startupFiles are the files in the home directory that shells and git
// read and run on their own: writing one runs code in the next command.
func startupFiles() []string {
	return []string{".bashrc", ".bash_profile", ".bash_login", ".bash_logout", ".profile", ".zshrc", ".zshenv",
		".zprofile", ".zlogin", ".zlogout", ".kshrc", ".mkshrc", ".cshrc", ".tcshrc", ".login", ".inputrc",
		".pam_environment", ".gitconfig", ".config/git/config", ".config/fish/config.fish", ".config/environment.d"}
}

// gitHooks are the names git runs from .git/hooks.
func gitHooks() []string {
	return []string{"applypatch-msg", "pre-applypatch", "post-applypatch", "pre-commit", "pre-merge-commit",
		"prepare-commit-msg", "commit-msg", "post-commit", "pre-rebase", "post-checkout", "post-merge", "pre-push",
		"pre-receive", "update", "proc-receive", "post-receive", "post-update", "reference-transaction",
		"push-to-checkout", "pre-auto-gc", "post-rewrite", "sendemail-validate", "fsmonitor-watchman",
		"p4-changelist", "p4-prepare-changelist", "p4-post-changelist", "p4-pre-submit", "post-index-change"}
}

// protectKind recognises paths a person or a tool owns: git's directory,
// lockfiles, dependencies, build output, caches, the project's hooks,
// shiro's own state and the home directory's startup files.
func protectKind(t target, pl places) (pathKind, bool) {
	last := len(t.parts) - 1
	for i, p := range t.parts {
		switch {
		case p == ".git":
			return pathKind{"git's own directory", "use git commands instead", false}, true
		case p == ".shiro-neko":
			return pathKind{"shiro's own state", "ask the user to change it", false}, true
		case p == ".shiro" && i < last && t.parts[i+1] == "hooks":
			return pathKind{"the project's hooks (.shiro/hooks)", "hooks are the user's to write and approve", false}, true
		case p == "target" && i+1 < last && (t.parts[i+1] == "debug" || t.parts[i+1] == "release"):
			return pathKind{"Rust build output (target/" + t.parts[i+1] + "/)", "change the sources and rebuild", false}, true
		case i < last:
			if k, ok := generatedDir(p); ok {
				return k, true
			}
		}
	}
	if slices.Contains(lockfiles(), t.parts[last]) {
		return pathKind{"a lockfile", "run the package manager to change it", false}, true
	}
	for _, dir := range pl.stateDirs {
		if t.abs != "" && fsutil.Within(dir, t.abs) {
			return pathKind{"shiro's own state", "ask the user to change it", false}, true
		}
	}
	if pl.home != "" && t.abs != "" {
		for _, f := range startupFiles() {
			if fsutil.Within(filepath.Join(pl.home, f), t.abs) {
				return pathKind{"a startup file shells or git run (~/" + f + ")", "ask the user to change it", false}, true
			}
		}
	}
	// Last, since it asks the disk at every folder above the path.
	if repo := enclosingGitDir(t.abs); repo != "" {
		return pathKind{"a bare git repository's own files (" + repo + ")", "use git commands instead", false}, true
	}
	return pathKind{}, false
}

// enclosingGitDir is the nearest folder above path that is a git
// directory by its layout (a bare repository: config, hooks and objects
// at its top, no .git to recognise it by), or "". A .git folder is
// recognised by its name before this is asked.
func enclosingGitDir(path string) string {
	if path == "" {
		return ""
	}
	for dir := filepath.Dir(path); ; dir = filepath.Dir(dir) {
		if fsutil.IsGitDir(dir) {
			return dir
		}
		if parent := filepath.Dir(dir); parent == dir {
			return ""
		}
	}
}

// protectedPatterns are where a write that cannot be resolved must not be
// able to lead: shiro's state, git's hooks and configuration, the home
// directory's startup files.
func protectedPatterns(pl places) []string {
	var out []string
	for _, d := range pl.stateDirs {
		out = append(out, d+"/*")
	}
	out = append(out, "*/.git/config", "*/.git/info/*", "*/.shiro/hooks/*")
	for _, h := range gitHooks() {
		out = append(out, "*/.git/hooks/"+h)
	}
	if pl.home != "" {
		for _, f := range startupFiles() {
			out = append(out, filepath.Join(pl.home, f), filepath.Join(pl.home, f)+"/*")
		}
	}
	return out
}

// secretPatterns are the credential directories a write that cannot be
// resolved must not be able to reach.
func secretPatterns(pl places) []string {
	if pl.home == "" {
		return nil
	}
	return []string{pl.home + "/.ssh/*", pl.home + "/.aws/*", pl.home + "/.gnupg/*"}
}

func secretsPlugin(d BuiltinDeps) Plugin {
	pl := newPlaces(d)
	return Plugin{
		Name:        "secrets",
		Description: "refuses writes to .env files, keys and credential files, and shell commands that read them",
		Appendix: "The secrets plugin refuses writes to .env files (not .env.example or .env.sample), keys, " +
			"certificates, token and credential files and ~/.ssh, ~/.aws, ~/.gnupg, and shell commands that read " +
			"or send them. Secrets are the user's: tell the user what to set. Do not work around the refusal.",
		BeforeToolCall: func(_ context.Context, c Call) (string, error) {
			paths := c.paths(pl)
			if r := refuseTargets(paths.writes, "secrets", secretKind); r != "" {
				return r, nil
			}
			if len(paths.patterns) > 0 {
				if r := refusePatterns(paths.patterns, "secrets", secretPatterns(pl), "a credentials directory"); r != "" {
					return r, nil
				}
			}
			return refuseSecretReads(paths.reads), nil
		},
	}
}

// refuseSecretReads refuses a shell command that reads or sends a secret
// file (`cat .env`, `base64 < .env`, `curl --data-binary @.env …`,
// `cp .env x`): its output would carry the secret to the model, or
// elsewhere, which the user never asked for. read_file of such a file goes
// through the permission rules instead.
// Reading a file under ~/.ssh that is not a key (known_hosts, a .pub) is
// no leak, so reads are judged by the file's name only.
func refuseSecretReads(reads []readFile) string {
	for _, t := range reads {
		if k, ok := adviseSecret(secrets.ClassifyName(t.abs)); ok {
			return fmt.Sprintf("Blocked by the secrets plugin: refusing to read %q (%s) into the conversation or send it anywhere. Ask the user for what you need from it instead.",
				shellguard.Shorten(t.shown), k.what)
		}
	}
	return ""
}

func protectPlugin(d BuiltinDeps) Plugin {
	pl := newPlaces(d)
	return Plugin{
		Name:        "protect",
		Description: "refuses writes to .git, lockfiles, dependencies, build output, caches, shell startup files and shiro's own state",
		Appendix: "The protect plugin refuses writes to .git/, lockfiles, node_modules/, vendor/, build output, " +
			"caches, .shiro/hooks/, shell and git startup files and shiro's own state. Change them with the tool " +
			"that owns them (git, the package manager, the build) or ask the user. Do not work around the refusal.",
		BeforeToolCall: func(_ context.Context, c Call) (string, error) {
			paths := c.paths(pl)
			if r := refuseTargets(paths.writes, "protect", func(t target) (pathKind, bool) { return protectWrite(t, pl) }); r != "" {
				return r, nil
			}
			if len(paths.patterns) == 0 {
				return "", nil
			}
			return refusePatterns(paths.patterns, "protect", protectedPatterns(pl), "a protected path"), nil
		},
	}
}

// protectWrite judges one write for protect. What protect keeps safe is
// contents: a new directory changes nothing that exists (`mkdir -p
// out/reports`), and removing a file from build output or a cache loses
// nothing the tool cannot make again (`rm build/one-file.js`).
func protectWrite(t target, pl places) (pathKind, bool) {
	if t.kind == shellguard.MakesDir {
		return pathKind{}, false
	}
	k, ok := protectKind(t, pl)
	if ok && t.kind == shellguard.Removes && k.regenerable {
		return pathKind{}, false
	}
	return k, ok
}

func refuseTargets(targets []target, plugin string, classify func(target) (pathKind, bool)) string {
	for _, t := range targets {
		if k, ok := classify(t); ok {
			return fmt.Sprintf("Blocked by the %s plugin: refusing to write %q (%s; %s). Ask the user to do it themselves if it is really needed.",
				plugin, shellguard.Shorten(t.shown), k.what, k.advice)
		}
	}
	return ""
}

// refusePatterns refuses a write whose target cannot be worked out before
// it runs when it could lead to one of protected.
func refusePatterns(patterns []pattern, plugin string, protected []string, what string) string {
	for _, p := range patterns {
		if couldReach(p.glob, protected) {
			return fmt.Sprintf("Blocked by the %s plugin: refusing to write %q: where it leads is decided at run time, and it could be %s. Write to a path spelled out in the command, or ask the user.",
				plugin, shellguard.Shorten(p.shown), what)
		}
	}
	return ""
}

type workspace struct {
	cwd         string
	resolvedCwd string
	resolved    bool
}

// target normalises p; ok is false for an empty path, which names nothing.
func (w *workspace) target(p string) (target, bool) {
	if strings.TrimSpace(p) == "" {
		return target{}, false
	}
	t := target{shown: p}
	native := filepath.FromSlash(p)
	rel := p
	switch {
	case filepath.IsAbs(native):
		t.abs = filepath.Clean(native)
		if w.cwd != "" {
			if r, ok := w.relative(t.abs); ok {
				rel = r
			}
		}
	case w.cwd != "":
		t.abs = filepath.Join(w.cwd, native)
	}
	t.parts = splitComponents(rel)
	return t, true
}

// relative makes abs relative to the workspace when it lies inside it,
// trying the workspace as given and with its symlinks resolved.
func (w *workspace) relative(abs string) (string, bool) {
	if !w.resolved {
		w.resolved = true
		if r, err := filepath.EvalSymlinks(w.cwd); err == nil {
			w.resolvedCwd = r
		}
	}
	for _, root := range []string{filepath.Clean(w.cwd), w.resolvedCwd} {
		if root != "" && fsutil.Within(root, abs) {
			if r, err := filepath.Rel(root, abs); err == nil {
				return filepath.ToSlash(r), true
			}
		}
	}
	return "", false
}

// splitComponents cleans p and splits it into lower-cased components,
// dropping what Windows ignores at the end of a name (dots, spaces, an
// alternate data stream) so `.env.` and `.env::$DATA` read as `.env`.
func splitComponents(p string) []string {
	p = path.Clean(strings.ReplaceAll(p, `\`, "/"))
	raw := strings.Split(strings.Trim(p, "/"), "/")
	parts := make([]string, 0, len(raw))
	for i, c := range raw {
		c = strings.ToLower(c)
		if j := strings.IndexByte(c, ':'); j > 0 && !(i == 0 && len(c) == 2) {
			c = c[:j]
		}
		if strings.Trim(c, ".") != "" {
			c = strings.TrimRight(c, ". ")
		}
		parts = append(parts, c)
	}
	return parts
}

// resolveLinks resolves the symlinks of abs, including a dangling last
// link (`notes -> .env` before .env exists) and a path whose last parts do
// not exist yet. changed is false when nothing was resolved.
func resolveLinks(abs string) (string, bool) {
	if abs == "" {
		return "", false
	}
	r := fsutil.ResolveLinks(abs)
	return r, r != "" && r != abs
}

// ConfirmDelete refuses calls that would write (typically delete) a path
// that names more than one file or the whole workspace: a glob, a directory
// written with a trailing slash, "." or an empty path. It keys on the
// tool's Writes metadata, not on the tool's name.
func ConfirmDelete() Plugin {
	return Plugin{
		Name:        "confirm-delete",
		Description: "refuses deletes of globs, directories with a trailing /, . or an empty path",
		Appendix: "The confirm-delete plugin refuses file operations on a glob (*, ?), a path ending in /, \".\" or an " +
			"empty path. Name the files one by one; to remove a whole directory, ask the user to do it.",
		BeforeToolCall: func(_ context.Context, c Call) (string, error) {
			for _, p := range c.Writes {
				if why := broadPath(p); why != "" {
					return fmt.Sprintf("Blocked by the confirm-delete plugin: refusing %s on %q (%s). Name the files one by one, or ask the user to do it.",
						c.Tool, shellguard.Shorten(p), why), nil
				}
			}
			return "", nil
		},
	}
}

// broadPath says why a written path may reach more than the one file it
// seems to name. Brackets are allowed: [id].tsx is an ordinary file name.
func broadPath(p string) string {
	trimmed := strings.TrimSpace(p)
	switch {
	case trimmed == "":
		return "an empty path"
	case strings.ContainsAny(trimmed, "*?"):
		return "a glob"
	case strings.HasSuffix(trimmed, "/") || strings.HasSuffix(trimmed, `\`):
		return "a directory"
	}
	switch cleanSlash(trimmed) {
	case ".", "/", "..":
		return "the whole workspace"
	}
	return ""
}
