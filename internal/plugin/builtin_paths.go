package plugin

import (
	"context"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"
)

// The path plugins (secrets, protect) judge every path a call would write:
// the tool's Writes metadata, so a new write tool is covered without being
// named, plus the files a shell command visibly writes (redirections, tee,
// cp, mv…; see shellWrites). A path is judged as given and, when it leads
// through a symlink, as resolved, so `notes -> .env` cannot launder a write.

// pathKind says why a path is protected: what it is and what to do instead.
type pathKind struct {
	what   string
	advice string
}

// target is one write target, normalised for matching.
type target struct {
	shown string   // as given, for the refusal
	parts []string // lower-cased components, relative to the workspace when inside it
	abs   string   // absolute and clean, "" when the workspace is unknown
}

// secretKind recognises credentials by name. Matching is case-insensitive
// because macOS and Windows file systems are.
func secretKind(t target) (pathKind, bool) {
	for _, p := range t.parts {
		if p == ".ssh" || p == ".aws" || p == ".gnupg" {
			return pathKind{"a credentials directory (" + p + ")", "keys and credentials belong to the user"}, true
		}
	}
	base := t.parts[len(t.parts)-1]
	ext := path.Ext(base)
	stem := strings.TrimSuffix(base, ext)
	switch {
	case base == ".env.example":
		return pathKind{}, false
	case strings.HasPrefix(base, ".env"):
		return pathKind{"an environment file", "ask the user to add the values; .env.example may be written with placeholders"}, true
	case slices.Contains([]string{".pem", ".key", ".p12", ".pfx", ".jks", ".keystore"}, ext):
		return pathKind{"a key or certificate store", "keys belong to the user"}, true
	case isSSHKeyName(base):
		return pathKind{"an SSH private key", "keys belong to the user"}, true
	case slices.Contains([]string{".npmrc", ".pypirc", ".netrc", "_netrc", ".pgpass"}, base):
		return pathKind{"a file that holds login tokens", "ask the user to configure it"}, true
	case slices.Contains([]string{"credentials", "secret", "secrets"}, stem) &&
		slices.Contains([]string{".json", ".yaml", ".yml", ".toml", ".ini"}, ext):
		return pathKind{"a credentials file", "ask the user to fill it in"}, true
	}
	return pathKind{}, false
}

// isSSHKeyName matches id_rsa, id_ed25519_sk, id_ecdsa.old… but not the
// public halves (.pub), which are safe to write.
func isSSHKeyName(base string) bool {
	if strings.HasSuffix(base, ".pub") {
		return false
	}
	for _, k := range []string{"id_rsa", "id_dsa", "id_ecdsa", "id_ed25519"} {
		if strings.HasPrefix(base, k) {
			return true
		}
	}
	return false
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
		return pathKind{"installed dependencies (" + name + "/)", "change the dependency through the package manager"}, true
	case "dist", "build", "out", ".next", ".nuxt", ".svelte-kit", ".output", "coverage", ".turbo", ".vercel":
		return pathKind{"generated output (" + name + "/)", "change the sources and rebuild"}, true
	case ".cache", "__pycache__", ".pytest_cache", ".mypy_cache", ".ruff_cache", ".tox", ".nox", ".gradle",
		".parcel-cache", ".angular", ".eslintcache", ".terraform":
		return pathKind{"a tool cache (" + name + "/)", "let the tool manage it"}, true
	}
	return pathKind{}, false
}

// protectKind recognises paths a person or a tool owns. stateDirs are the
// agent's own state directory (~/.shiro-neko), absolute, as given and
// resolved.
func protectKind(t target, stateDirs []string) (pathKind, bool) {
	last := len(t.parts) - 1
	for i, p := range t.parts {
		switch {
		case p == ".git":
			return pathKind{"git's own directory", "use git commands instead"}, true
		case p == ".shiro-neko":
			return pathKind{"shiro's own state", "ask the user to change it"}, true
		case p == ".shiro" && i < last && t.parts[i+1] == "hooks":
			return pathKind{"the project's hooks (.shiro/hooks)", "hooks are the user's to write and approve"}, true
		case p == "target" && i+1 < last && (t.parts[i+1] == "debug" || t.parts[i+1] == "release"):
			return pathKind{"Rust build output (target/" + t.parts[i+1] + "/)", "change the sources and rebuild"}, true
		case i < last:
			if k, ok := generatedDir(p); ok {
				return k, true
			}
		}
	}
	if slices.Contains(lockfiles(), t.parts[last]) {
		return pathKind{"a lockfile", "run the package manager to change it"}, true
	}
	for _, dir := range stateDirs {
		if t.abs != "" && within(dir, t.abs) {
			return pathKind{"shiro's own state", "ask the user to change it"}, true
		}
	}
	return pathKind{}, false
}

// Secrets refuses writes to credentials through any tool that writes files
// and through shell commands that visibly write them.
func Secrets() Plugin {
	return Plugin{
		Name:        "secrets",
		Description: "refuses writes to .env files, keys and credential files, and shell commands that read them",
		Appendix: "The secrets plugin refuses writes to .env files (except .env.example), keys and certificates " +
			"(*.pem, *.key, id_rsa…), token files (.npmrc, .pypirc, .netrc, .pgpass), credentials/secrets files and " +
			"the .ssh, .aws and .gnupg directories, through any tool or shell command, and shell commands that read " +
			"such files (cat .env…). Secrets belong to the user: " +
			"when one must change, tell the user what to set and let them do it. Do not work around the refusal.",
		BeforeToolCall: func(_ context.Context, c Call) (string, error) {
			if r := refuseTargets(c, "secrets", secretKind); r != "" {
				return r, nil
			}
			return refuseShellSecretReads(c), nil
		},
	}
}

// refuseShellSecretReads refuses a shell command that names a secret file
// as an argument (`cat .env`, `grep KEY .env`, `source .env`): its output
// would carry the secret to the model, which the user never asked for.
// read_file of such a file goes through the permission rules instead.
func refuseShellSecretReads(c Call) string {
	for _, a := range c.shell() {
		for _, cmd := range effective(a) {
			for _, arg := range cmd.Args[1:] {
				if arg == "" || strings.HasPrefix(arg, "-") || strings.Contains(arg, "://") {
					continue
				}
				// Only a secret file itself: listing ~/.ssh shows names, not keys.
				base := strings.ToLower(path.Base(filepath.ToSlash(arg)))
				if base == ".ssh" || base == ".aws" || base == ".gnupg" {
					continue
				}
				if k, ok := secretKind(target{shown: arg, parts: []string{base}}); ok {
					return fmt.Sprintf("Blocked by the secrets plugin: refusing %q because it reads %q (%s) into the conversation. Ask the user for what you need from it instead.",
						shortSubject(cmd.String()), arg, k.what)
				}
			}
		}
	}
	return ""
}

// Protect refuses writes to git internals, lockfiles, installed
// dependencies, build output, tool caches, the project's hooks and the
// agent's state directory stateDir.
func Protect(stateDir string) Plugin {
	var stateDirs []string
	if stateDir != "" {
		stateDirs = append(stateDirs, filepath.Clean(stateDir))
		if r, err := filepath.EvalSymlinks(stateDir); err == nil && r != stateDirs[0] {
			stateDirs = append(stateDirs, r)
		}
	}
	return Plugin{
		Name:        "protect",
		Description: "refuses writes to .git, lockfiles, dependencies, build output, caches and shiro's own state",
		Appendix: "The protect plugin refuses writes to .git/, lockfiles (package-lock.json, go.sum, Cargo.lock…), " +
			"node_modules/, vendor/, build output (dist/, build/, out/, target/debug/…), tool caches, .shiro/hooks/ and " +
			"shiro's own state directory. Change them with the tool that owns them (git, the package manager, the " +
			"build) or ask the user. Do not work around the refusal.",
		BeforeToolCall: func(_ context.Context, c Call) (string, error) {
			return refuseTargets(c, "protect", func(t target) (pathKind, bool) { return protectKind(t, stateDirs) }), nil
		},
	}
}

func refuseTargets(c Call, plugin string, classify func(target) (pathKind, bool)) string {
	for _, t := range c.writeTargets() {
		if k, ok := classify(t); ok {
			return fmt.Sprintf("Blocked by the %s plugin: refusing to write %q (%s; %s). Ask the user to do it themselves if it is really needed.",
				plugin, shortSubject(t.shown), k.what, k.advice)
		}
	}
	return ""
}

// writeTargets collects every path c would write, normalised, and the
// resolved form of any that leads through a symlink.
func writeTargets(c Call) []target {
	raw := slices.Clone(c.Writes)
	for _, a := range c.shell() {
		raw = append(raw, shellWrites(a, c.Cwd)...)
	}
	if len(raw) == 0 {
		return nil
	}
	ws := workspace{cwd: c.Cwd}
	out := make([]target, 0, len(raw))
	for _, p := range raw {
		t, ok := ws.target(p)
		if !ok {
			continue
		}
		out = append(out, t)
		if resolved, changed := resolveLinks(t.abs); changed {
			if rt, ok := ws.target(resolved); ok {
				rt.shown = p + " (" + resolved + ")"
				out = append(out, rt)
			}
		}
	}
	return out
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
		if root != "" && within(root, abs) {
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
	r := resolvePath(abs, maxLinkHops)
	return r, r != "" && r != abs
}

// maxLinkHops bounds a chain of dangling links, as the kernel does.
const maxLinkHops = 40

func resolvePath(p string, hops int) string {
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
		return resolvePath(link, hops-1)
	case err == nil:
		return "" // exists but cannot be resolved (a loop): judged as given
	}
	parent := filepath.Dir(p)
	if parent == p {
		return ""
	}
	dir := resolvePath(parent, hops)
	if dir == "" {
		return ""
	}
	return filepath.Join(dir, filepath.Base(p))
}

// within reports whether p is root or inside it.
func within(root, p string) bool {
	if p == root {
		return true
	}
	if !strings.HasSuffix(root, string(filepath.Separator)) {
		root += string(filepath.Separator)
	}
	return strings.HasPrefix(p, root)
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
						c.Tool, shortSubject(p), why), nil
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
