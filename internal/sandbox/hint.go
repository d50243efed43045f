package sandbox

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/shiro-neko/shiro/internal/fsutil"
	"github.com/shiro-neko/shiro/internal/proc"
)

// The kernel tells a confined command "permission denied" (EACCES,
// EPERM), "read-only file system" (EROFS, from the protecting mounts),
// "device or resource busy" (EBUSY, replacing a protected path) or,
// for a refused socket, EACCES, and keeps no record shiro could read:
// Landlock's audit log goes to the system's audit daemon, if any. So a
// failed command's own words are all there is. Explain reads the end of
// its output for those errors and the paths they name, and answers only
// when a named path is one the sandbox keeps from commands, or the
// network is off and the command failed to reach it. It can be wrong both
// ways: a program that words an error its own way is not recognised, and
// a program that fails for another reason while mentioning such a path
// is blamed on the sandbox. The hint says "may".

// Explain implements proc.Explainer: it moves away the git redirects a
// command created (see gitGuard) and says so, and adds one line saying
// how to allow what the sandbox may have denied; "" when there is
// nothing to say.
func (s *Sandbox) Explain(exit proc.Exit, output []byte) string {
	var lines []string
	if s.policy.Mode != Off {
		lines = s.guard.ended()
	}
	if hint := s.hint(exit, output); hint != "" {
		lines = append(lines, hint)
	}
	return strings.Join(lines, "\n")
}

// hint is the line saying how to allow what the sandbox may have denied
// a command that ended so, with that output; "" when nothing points at
// the sandbox.
func (s *Sandbox) hint(exit proc.Exit, output []byte) string {
	p := s.resolved()
	if !s.Confines() || exit.Success() || len(output) == 0 {
		return ""
	}
	lines := strings.Split(string(output), "\n")
	netOff := !p.Network
	for i := len(lines) - 1; i >= 0; i-- {
		line := lines[i]
		kind := denial(line)
		if kind == "" {
			continue
		}
		if kind == denied && mentionsUnixSocket(line) {
			return s.unixSocketHint()
		}
		if netOff && kind == denied && mentionsSocket(line) {
			return s.networkHint()
		}
		path := lastPathIn(line)
		if netOff && kind == denied && isNetworkPath(path) {
			return s.networkHint() // bash's /dev/tcp/HOST/PORT is a connect, not a file
		}
		if path != "" {
			if hint := s.pathHint(s.absolute(path), kind); hint != "" {
				return hint
			}
			if hint := s.movedHint(path, kind); hint != "" {
				return hint
			}
		}
	}
	if netOff && mentionsNetworkFailure(strings.ToLower(string(output))) {
		return s.networkHint()
	}
	return ""
}

// denialKind is how the kernel refused.
type denialKind string

const (
	denied     denialKind = "denied"
	readOnlyFS denialKind = "read-only"
)

// denial reads a line for a refusal.
func denial(line string) denialKind {
	l := strings.ToLower(line)
	switch {
	case strings.Contains(l, "read-only file system") || strings.Contains(l, "erofs"),
		// Replacing or removing a protected path: it is a mount point.
		strings.Contains(l, "device or resource busy") || strings.Contains(l, "ebusy"):
		return readOnlyFS
	case strings.Contains(l, "permission denied") || strings.Contains(l, "operation not permitted") ||
		strings.Contains(l, "eacces") || strings.Contains(l, "eperm"):
		return denied
	}
	return ""
}

// mentionsUnixSocket spots a refused Unix socket: Docker's
// "dial unix /var/run/docker.sock", a socket file's name, tmux's or an
// SSH agent's complaint. Sockets are refused whether the network is on
// or off.
func mentionsUnixSocket(line string) bool {
	l := strings.ToLower(line)
	return slices.ContainsFunc([]string{"unix", ".sock", "/tmux-", "agent"}, func(w string) bool { return strings.Contains(l, w) })
}

func mentionsSocket(line string) bool {
	l := strings.ToLower(line)
	return slices.ContainsFunc([]string{"connect", "socket", "dial ", "sendto"}, func(w string) bool { return strings.Contains(l, w) })
}

// mentionsNetworkFailure spots the usual words of a program that could
// not reach a host.
func mentionsNetworkFailure(lower string) bool {
	return slices.ContainsFunc([]string{
		"could not resolve host", "couldn't resolve host", "temporary failure in name resolution",
		"name or service not known", "no such host", "getaddrinfo", "eai_again",
		"failed to connect", "couldn't connect to server", "network is unreachable",
		"connect: permission denied", "socket: permission denied",
	}, func(w string) bool { return strings.Contains(lower, w) })
}

// lastPathIn picks the path a line names closest to its end, where the
// error follows it ("touch: cannot touch '/x': Permission denied", "open
// /x: permission denied", "[Errno 13] Permission denied: '/x'"); a path
// earlier in the line is the program's own name. Quoted strings count,
// words followed by a colon, and words that look like paths (with a
// slash, or starting with ~ or .).
func lastPathIn(line string) string {
	best, bestAt := "", -1
	consider := func(at int, word string, quoted bool) {
		// "name: error" is how most programs name what failed.
		quoted = quoted || (strings.HasSuffix(word, ":") && len(word) > 1)
		word = strings.Trim(word, `'"`+"`‘’,;:()[]{}<>")
		if word == "" || strings.ContainsAny(word, " \t") || at < bestAt {
			return
		}
		if quoted || strings.Contains(word, "/") || strings.HasPrefix(word, "~") || strings.HasPrefix(word, ".") {
			best, bestAt = word, at
		}
	}
	for _, q := range []struct{ open, close string }{{"'", "'"}, {`"`, `"`}, {"`", "`"}, {"‘", "’"}} {
		offset := 0
		for {
			i := strings.Index(line[offset:], q.open)
			if i < 0 {
				break
			}
			start := offset + i + len(q.open)
			j := strings.Index(line[start:], q.close)
			if j < 0 {
				break
			}
			consider(start, line[start:start+j], true)
			offset = start + j + len(q.close)
		}
	}
	at := 0
	for _, word := range strings.Fields(line) {
		at = strings.Index(line[at:], word) + at
		consider(at, word, false)
		at += len(word)
	}
	return best
}

// isNetworkPath reports whether path is one of bash's pseudo-files that
// open a connection.
func isNetworkPath(path string) bool {
	return strings.HasPrefix(path, "/dev/tcp/") || strings.HasPrefix(path, "/dev/udp/")
}

// absolute makes a path from a message absolute: ~ is the home
// directory, and a relative path is taken from the workspace, where
// commands start. Symlinks in it are followed as the kernel did
// (fsutil.ResolveLinks): Landlock judged the file a link leads to, so a
// link in the workspace to a folder outside is the folder outside, a
// dangling link is the file it would have made, and "link/.." is the
// folder above the link's target.
func (s *Sandbox) absolute(path string) string {
	sep := string(filepath.Separator)
	if rest, ok := strings.CutPrefix(path, "~/"); ok && s.policy.Home != "" {
		path = s.policy.Home + sep + rest
	} else if !filepath.IsAbs(path) {
		path = s.policy.Workspace + sep + path
	}
	if resolved := fsutil.ResolveLinks(path); resolved != "" {
		return resolved
	}
	return filepath.Clean(path) // a loop, or an unreadable link: judged as written
}

// pathHint explains a refusal that named path, or returns "" when the
// sandbox does not keep path from commands.
func (s *Sandbox) pathHint(path string, kind denialKind) string {
	p := s.resolved()
	shown := s.display(path)
	switch {
	case p.isSecret(path):
		return fmt.Sprintf("shiro sandbox: %s may have been denied: it is a secret location, which commands can neither read nor write; if the command really needs it, run shiro with --sandbox off", shown)
	case s.protectedPath(path):
		return fmt.Sprintf("shiro sandbox: %s may have been denied: .git/hooks, .git/config, .shiro/ and shiro's own folder stay read-only for commands; make the change yourself, or run shiro with --sandbox off", shown)
	case p.Mode == ReadOnly:
		return fmt.Sprintf("shiro sandbox: writing %s may have been denied: the sandbox is read-only; to let commands write the workspace, set sandbox.mode to workspace-write in %s or pass --sandbox workspace-write", shown, p.configName())
	case kind == readOnlyFS:
		return ""
	case !p.writable(path):
		return fmt.Sprintf("shiro sandbox: %s may have been denied: commands may write only the workspace, the temp dir, the toolchains' caches and sandbox.writable; to allow it, add %s to sandbox.writable in %s, or run shiro with --sandbox off", shown, s.display(s.suggestFolder(path)), p.configName())
	}
	return ""
}

// movedHint explains a refused relative path that is not in the
// workspace: the command must have changed folder first (cd ../other &&
// touch x), so the path lay wherever it went, which Explain cannot know.
// Only a path the workspace has room for is judged so: its folder is in
// the workspace and it is not (there, the sandbox would have let it be
// made). A path that exists in the workspace was refused there, for its
// own permissions; one whose folder does not exist there says nothing.
func (s *Sandbox) movedHint(path string, kind denialKind) string {
	p := s.policy
	if kind != denied || filepath.IsAbs(path) || strings.HasPrefix(path, "~/") || p.Mode != WorkspaceWrite {
		return ""
	}
	inWorkspace := filepath.Join(p.Workspace, path)
	if fi, err := os.Stat(filepath.Dir(inWorkspace)); err != nil || !fi.IsDir() {
		return ""
	}
	if _, err := os.Lstat(inWorkspace); !errors.Is(err, fs.ErrNotExist) {
		return ""
	}
	return fmt.Sprintf("shiro sandbox: %s may have been denied: it is not in the workspace, so the command had left it (cd), and commands may write only the workspace, the temp dir and sandbox.writable; to allow a folder, add it to sandbox.writable in %s, or run shiro with --sandbox off", path, p.configName())
}

// protectedPath reports whether path is one of those kept read-only
// inside writable folders, or in shiro's own folder.
func (s *Sandbox) protectedPath(path string) bool {
	p := s.policy
	kept := []string{filepath.Join(p.Workspace, ".shiro")}
	for _, dir := range p.gitDirs() {
		kept = append(kept, filepath.Join(dir, "hooks"), filepath.Join(dir, "config"))
	}
	if p.State != "" {
		kept = append(kept, p.State)
	}
	return slices.ContainsFunc(kept, func(k string) bool { return fsutil.Within(k, path) })
}

// suggestFolder is the folder to add to sandbox.writable for path: under
// the home directory, the first two levels (~/.cache/go-build, ~/go/pkg);
// elsewhere the path's folder.
func (s *Sandbox) suggestFolder(path string) string {
	home := s.policy.Home
	if home != "" && home != "/" && fsutil.Within(home, path) && path != home {
		rel, _ := filepath.Rel(home, path)
		parts := strings.Split(rel, string(filepath.Separator))
		return filepath.Join(append([]string{home}, parts[:min(2, len(parts))]...)...)
	}
	return filepath.Dir(path)
}

// display shows a path under the home directory as ~/….
func (s *Sandbox) display(path string) string {
	home := s.policy.Home
	if home != "" && home != "/" && fsutil.Within(home, path) && path != home {
		rel, _ := filepath.Rel(home, path)
		return "~/" + filepath.ToSlash(rel)
	}
	return path
}

func (s *Sandbox) unixSocketHint() string {
	return fmt.Sprintf("shiro sandbox: a Unix socket may have been refused: commands cannot connect to sockets outside the writable folders; to allow one, add its path to sandbox.unixSockets in %s, or run shiro with --sandbox off", s.policy.configName())
}

func (s *Sandbox) networkHint() string {
	return fmt.Sprintf("shiro sandbox: the network may have been denied: commands cannot connect out while sandbox.network is false; to allow it, set sandbox.network to true in %s, or run shiro with --sandbox off", s.policy.configName())
}

// configName is the config file to name in hints.
func (p Policy) configName() string {
	if p.ConfigFile == "" {
		return "your config"
	}
	return p.ConfigFile
}

// isSecret reports whether path is or lies in a secret location, whether
// it exists or not.
func (p Policy) isSecret(path string) bool {
	if p.Home != "" && p.Home != "/" {
		for _, rel := range homeSecrets() {
			if fsutil.Within(filepath.Join(p.Home, rel), path) {
				return true
			}
		}
	}
	if slices.ContainsFunc(p.ToolSecrets, func(s string) bool { return fsutil.Within(s, path) }) {
		return true
	}
	if p.State != "" && fsutil.Within(p.State, path) && path != p.State {
		rel, _ := filepath.Rel(p.State, path)
		first, _, _ := strings.Cut(rel, string(filepath.Separator))
		return !slices.Contains(stateReadable(), first)
	}
	return false
}
