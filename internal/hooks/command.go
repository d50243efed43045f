package hooks

import (
	"crypto/sha256"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"

	"mvdan.cc/sh/v3/syntax"

	"github.com/shiro-neko/shiro/internal/claudecode"
	"github.com/shiro-neko/shiro/internal/problem"
)

// A command hook is an entry of Claude Code's settings files: a shell
// command run for an event, for the tools its matcher names. It joins the
// Set beside the hook folders and runs on the same engine, with Claude
// Code's protocol (claude.go). One of a project's settings files runs
// only once the person approved its digest, which covers the file it
// came from, its place there, the event, the matcher, the command, the
// timeout and the bytes of every file of the project the command names
// (so editing the script a command runs revokes it). The person's own
// ~/.claude/settings.json needs no approval: it is theirs, like their
// shiro config.

// commandDigestTag starts every command digest (see bundleDigest).
const commandDigestTag = "shiro-claude-hook-v1"

// DefaultCommandTimeout is Claude Code's default for a hook command.
const DefaultCommandTimeout = 60 * time.Second

// command is one Claude Code hook as loaded.
type command struct {
	src claudecode.Hook
	// matcher is nil when the hook covers every tool ("" or "*").
	matcher *regexp.Regexp
	// project is the workspace: $CLAUDE_PROJECT_DIR, and where the files
	// the command names are looked for.
	project string
}

// claudeKinds maps Claude Code's events onto shiro's.
func claudeKinds() map[string]Kind {
	return map[string]Kind{
		"PreToolUse": KindPreTool, "PostToolUse": KindPostTool, "UserPromptSubmit": KindUserPrompt,
		"Stop": KindStop, "SubagentStop": KindSubagentStop, "SessionStart": KindSessionStart,
		"SessionEnd": KindSessionEnd, "PreCompact": KindPreCompact, "Notification": KindNotification,
	}
}

// AddClaude adds the hooks of Claude Code's settings files to the set,
// after its folders, in the files' order. Each is named
// cc-<event>-<n> (cc-pre-tool-use-1), the name `shiro hooks approve`
// takes. A matcher that is not a valid regular expression is reported,
// and its hook blocks every call its event covers, as a broken hook
// folder does.
func (s *Set) AddClaude(list []claudecode.Hook, projectDir string) []problem.Problem {
	var problems []problem.Problem
	count := map[Kind]int{}
	for _, h := range list {
		kind, ok := claudeKinds()[h.Event]
		if !ok {
			continue // claudecode reports events shiro does not run
		}
		count[kind]++
		name := fmt.Sprintf("cc-%s-%d", kebab(h.Event), count[kind])
		c := &command{src: h, project: projectDir}
		e := entry{cmd: c, scoped: true, hook: Hook{
			Name: name, Kind: kind, Dir: h.File.Path + "#" + h.Where, Tools: []string{matcherShown(h.Matcher)},
			Timeout: c.timeout(), Origin: OriginProject,
		}}
		if h.File.Scope == claudecode.ScopeUser {
			e.hook.Origin = OriginUser
		}
		if m := h.Matcher; m != "" && m != "*" {
			re, err := regexp.Compile("^(?:" + m + ")$")
			if err != nil {
				e.err = &locatedError{Path: h.File.Path, Msg: fmt.Sprintf("%s.matcher %q is not a regular expression (%v); until it is fixed the hook blocks every call of its event", h.Where, m, err)}
				e.scoped = false
				problems = append(problems, problemOf(e.err))
			}
			c.matcher = re
		}
		if slices.ContainsFunc(s.entries, func(o entry) bool { return o.hook.Name == name }) {
			p := problem.Problem{Kind: "hook", Where: h.File.Path, Err: fmt.Sprintf("%s is named %s, like a hook folder, which is used instead; rename the folder to use both", h.Where, name)}
			s.unlisted, problems = append(s.unlisted, p), append(problems, p)
			continue
		}
		e.hook.Digest, e.manifest = c.digest(e.hook.Dir)
		s.entries = append(s.entries, e)
	}
	return problems
}

// kebab spells an event name as a hook name: PreToolUse, pre-tool-use.
func kebab(event string) string {
	var b strings.Builder
	for i, c := range event {
		if c >= 'A' && c <= 'Z' {
			if i > 0 {
				b.WriteByte('-')
			}
			c += 'a' - 'A'
		}
		b.WriteRune(c)
	}
	return b.String()
}

func matcherShown(m string) string {
	if m == "" {
		return "*"
	}
	return m
}

func (c *command) timeout() time.Duration {
	if c.src.Timeout > 0 {
		return c.src.Timeout
	}
	return DefaultCommandTimeout
}

// covers reports whether the matcher takes the shiro tool, by any of the
// Claude Code names the tool answers to (or its own name, for a tool
// Claude Code has no name for).
func (c *command) covers(tool string) bool {
	if c.matcher == nil {
		return true
	}
	names := claudecode.ClaudeNames(tool)
	if len(names) == 0 {
		names = []string{tool}
	}
	return slices.ContainsFunc(names, c.matcher.MatchString)
}

// claudeName is the tool_name a hook is told: Claude Code's name for the
// tool when it has one, else shiro's.
func claudeName(tool string) string {
	if names := claudecode.ClaudeNames(tool); len(names) > 0 {
		return names[0]
	}
	return tool
}

// inspect re-reads what the digest covers, as it is now.
func (c *command) inspect(e entry) entry {
	fresh := e
	fresh.hook.Digest, fresh.manifest = c.digest(e.hook.Dir)
	return fresh
}

// description is what a person reviews: the entry as Claude Code reads it.
type description struct {
	File    string   `json:"file"`
	Event   string   `json:"event"`
	Matcher string   `json:"matcher"`
	Command string   `json:"command"`
	Timeout float64  `json:"timeout"`
	Files   []string `json:"files,omitempty"`
}

// digest hashes the hook (see the top of the file) and describes it. The
// encoding is length-prefixed, like a bundle's.
func (c *command) digest(identity string) (string, []byte) {
	files := c.namedFiles()
	h := sha256.New()
	for _, f := range []string{commandDigestTag, identity, c.src.Event, c.src.Matcher, c.src.Command, strconv.FormatInt(int64(c.timeout()/time.Millisecond), 10)} {
		writeField(h, []byte(f))
	}
	writeUint64(h, uint64(len(files)))
	d := description{File: c.src.File.Path, Event: c.src.Event, Matcher: c.src.Matcher, Command: c.src.Command, Timeout: c.timeout().Seconds()}
	for _, f := range files {
		writeField(h, []byte(f.rel))
		writeField(h, f.sum[:])
		d.Files = append(d.Files, f.rel)
	}
	shown, _ := json.MarshalIndent(d, "", "  ")
	return fmt.Sprintf("%x", h.Sum(nil)), shown
}

// namedFiles are the files inside the project that a word of the command
// names, once "$CLAUDE_PROJECT_DIR" is put in (a relative word is taken
// from the project, where the command starts), sorted by path. A file
// that cannot be read counts with an empty sum, so that it appearing or
// changing later still changes the digest.
func (c *command) namedFiles() []bundleFile {
	var out []bundleFile
	seen := map[string]bool{}
	for _, word := range commandWords(c.src.Command, c.project) {
		path := word
		if !filepath.IsAbs(path) {
			path = filepath.Join(c.project, path)
		}
		rel, err := filepath.Rel(c.project, filepath.Clean(path))
		if err != nil || rel == "." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) || rel == ".." || seen[rel] {
			continue
		}
		info, err := os.Stat(path)
		if err != nil || info.IsDir() {
			continue
		}
		seen[rel] = true
		f := bundleFile{rel: filepath.ToSlash(rel), perm: info.Mode().Perm()}
		if in, err := os.Open(path); err == nil {
			sum := sha256.New()
			_, _ = io.Copy(sum, io.LimitReader(in, maxBundleBytes))
			in.Close()
			sum.Sum(f.sum[:0])
		}
		out = append(out, f)
	}
	slices.SortFunc(out, func(a, b bundleFile) int { return strings.Compare(a.rel, b.rel) })
	return out
}

// commandWords are the words of a shell command whose value is known
// without running it: literals and quotes, and $CLAUDE_PROJECT_DIR. A
// command that does not parse has none; it still fails when it runs.
func commandWords(cmd, project string) []string {
	file, err := syntax.NewParser().Parse(strings.NewReader(cmd), "")
	if err != nil {
		return nil
	}
	var words []string
	syntax.Walk(file, func(n syntax.Node) bool {
		if w, ok := n.(*syntax.Word); ok {
			if s, ok := wordValue(w.Parts, project); ok && s != "" {
				words = append(words, s)
			}
		}
		return true
	})
	return words
}

func wordValue(parts []syntax.WordPart, project string) (string, bool) {
	var b strings.Builder
	for _, p := range parts {
		switch p := p.(type) {
		case *syntax.Lit:
			b.WriteString(p.Value)
		case *syntax.SglQuoted:
			b.WriteString(p.Value)
		case *syntax.DblQuoted:
			s, ok := wordValue(p.Parts, project)
			if !ok {
				return "", false
			}
			b.WriteString(s)
		case *syntax.ParamExp:
			if p.Param == nil || p.Param.Value != "CLAUDE_PROJECT_DIR" || p.Exp != nil || p.Repl != nil ||
				p.Slice != nil || p.Index != nil || p.Length || p.Excl || p.Width {
				return "", false
			}
			b.WriteString(project)
		default:
			return "", false
		}
	}
	return b.String(), true
}
