package commands

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"unicode/utf8"

	yaml "go.yaml.in/yaml/v3"

	"github.com/shiro-neko/shiro/internal/protocol"
)

// Custom commands are markdown files: the body is a prompt, the optional
// front matter says what the command is (description, argument-hint,
// allowed-tools, model). They are read from shiro's folders and Claude
// Code's, unchanged: a file in a subfolder is namespaced by it
// (frontend/review.md is /frontend:review). A custom command cannot
// shadow a built-in one.

// CommandSource is a folder of custom commands.
type CommandSource struct {
	Dir string
	// Origin says where it is, for /help: user, project, claude-user,
	// claude-project.
	Origin string
}

// Limits on custom command files.
const (
	// customFileBytes is the largest command file read.
	customFileBytes = 256 << 10
	// customBodyChars is the most of a body used as the prompt.
	customBodyChars = 20_000
	// customDepth is how deep namespaces nest.
	customDepth = 4
)

// customSegment is one part of a custom command's name.
var customSegment = regexp.MustCompile(`^[a-z0-9][a-z0-9_-]*$`)

// customCommand is one loaded custom command.
type customCommand struct {
	name, origin, path string
	description, hint  string
	allowedTools       []string
	model              string
	body               string
}

// summary is the command's line in the menu and /help.
func (c customCommand) summary() string {
	d := c.description
	if d == "" {
		d = firstLine(c.body, 60)
	}
	return d + " (" + c.origin + " command)"
}

// customSet is the custom commands of one load. It never changes; a
// refresh builds a new one.
type customSet struct {
	sorted   []customCommand
	problems []string
}

func (cs *customSet) list() []customCommand {
	if cs == nil {
		return nil
	}
	return cs.sorted
}

// loadCustom reads every source, a later one overriding an earlier one by
// name; builtin names (and aliases) are refused.
func loadCustom(sources []CommandSource, builtin func(string) bool) *customSet {
	cs := &customSet{}
	byName := map[string]customCommand{}
	for _, src := range sources {
		for _, c := range scanCustom(src, cs) {
			if builtin(c.name) {
				cs.problems = append(cs.problems, fmt.Sprintf("%s: /%s is a built-in command, which a custom command cannot replace; rename the file", c.path, c.name))
				continue
			}
			byName[c.name] = c
		}
	}
	for _, c := range byName {
		cs.sorted = append(cs.sorted, c)
	}
	slices.SortFunc(cs.sorted, func(a, b customCommand) int { return strings.Compare(a.name, b.name) })
	return cs
}

// scanCustom reads one folder; problems go to cs.
func scanCustom(src CommandSource, cs *customSet) []customCommand {
	if src.Dir == "" {
		return nil
	}
	if _, err := os.Stat(src.Dir); errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	var out []customCommand
	err := filepath.WalkDir(src.Dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			cs.problems = append(cs.problems, fmt.Sprintf("%s: cannot read: %v", p, err))
			return nil
		}
		rel, _ := filepath.Rel(src.Dir, p)
		if rel == "." {
			return nil
		}
		if strings.HasPrefix(d.Name(), ".") {
			if d.IsDir() {
				return fs.SkipDir
			}
			return nil
		}
		if d.IsDir() {
			if strings.Count(rel, string(filepath.Separator)) >= customDepth-1 {
				return fs.SkipDir
			}
			return nil
		}
		if !strings.EqualFold(filepath.Ext(p), ".md") {
			return nil
		}
		c, err := readCustom(p, rel, src.Origin)
		if err != nil {
			cs.problems = append(cs.problems, fmt.Sprintf("%s: %v", p, err))
			return nil
		}
		out = append(out, c)
		return nil
	})
	if err != nil {
		cs.problems = append(cs.problems, fmt.Sprintf("%s: %v", src.Dir, err))
	}
	return out
}

// readCustom parses one command file; rel is its path in its folder.
func readCustom(path, rel, origin string) (customCommand, error) {
	parts := strings.Split(filepath.ToSlash(strings.TrimSuffix(rel, filepath.Ext(rel))), "/")
	for i, p := range parts {
		parts[i] = strings.ToLower(p)
		if !customSegment.MatchString(parts[i]) {
			return customCommand{}, fmt.Errorf("%q cannot be part of a command name: use letters, digits, '-' and '_', starting with a letter or digit", p)
		}
	}
	f, err := os.Open(path)
	if err != nil {
		return customCommand{}, err
	}
	defer func() { _ = f.Close() }()
	data, err := io.ReadAll(io.LimitReader(f, customFileBytes+1))
	if err != nil {
		return customCommand{}, err
	}
	if len(data) > customFileBytes {
		return customCommand{}, fmt.Errorf("over %d bytes; a command is a prompt, keep it shorter", customFileBytes)
	}
	if !utf8.Valid(data) {
		return customCommand{}, errors.New("not UTF-8 text")
	}
	c := customCommand{name: strings.Join(parts, ":"), origin: origin, path: path}
	text := strings.ReplaceAll(strings.TrimPrefix(string(data), "\uFEFF"), "\r\n", "\n")
	body, err := c.frontMatter(text)
	if err != nil {
		return customCommand{}, err
	}
	body = strings.TrimSpace(body)
	if body == "" {
		return customCommand{}, errors.New("has no prompt: write it below the front matter")
	}
	if utf8.RuneCountInString(body) > customBodyChars {
		body = string([]rune(body)[:customBodyChars])
	}
	c.body = body
	return c, nil
}

// frontMatter reads the optional YAML block at the top of text into c and
// returns the body after it. Keys shiro does not use are ignored, so
// Claude Code's files load unchanged.
func (c *customCommand) frontMatter(text string) (string, error) {
	first, rest, _ := strings.Cut(text, "\n")
	if strings.TrimSpace(first) != "---" {
		return text, nil
	}
	end := strings.Index("\n"+rest, "\n---")
	if end < 0 {
		return "", errors.New("front matter is never closed: add a line with just '---' after it")
	}
	front := rest[:max(end-1, 0)]
	body := rest[end:]
	if _, after, ok := strings.Cut(body, "\n"); ok {
		body = after
	} else {
		body = ""
	}
	var fm struct {
		Description  string `yaml:"description"`
		ArgumentHint any    `yaml:"argument-hint"`
		AllowedTools any    `yaml:"allowed-tools"`
		Model        string `yaml:"model"`
	}
	if err := yaml.Unmarshal([]byte(front), &fm); err != nil {
		// Claude Code's own examples are not always YAML
		// (`argument-hint: [file] [focus]`): read such a block as plain
		// `key: value` lines, as it does.
		plain := plainFrontMatter(front)
		if len(plain) == 0 {
			return "", fmt.Errorf("front matter is neither YAML (%s) nor `key: value` lines", oneLine(err.Error()))
		}
		fm.Description, fm.ArgumentHint, fm.Model = textOf(plain["description"]), textOf(plain["argument-hint"]), textOf(plain["model"])
		fm.AllowedTools = plain["allowed-tools"]
	}
	c.description = oneLine(fm.Description)
	c.hint = oneLine(textOf(fm.ArgumentHint))
	c.allowedTools = listOf(fm.AllowedTools)
	c.model = strings.TrimSpace(fm.Model)
	return body, nil
}

// plainFrontMatter reads `key: value` lines, and `- item` lines under a
// key with no value, as lists.
func plainFrontMatter(front string) map[string]any {
	out := map[string]any{}
	last := ""
	for _, line := range strings.Split(front, "\n") {
		trimmed := strings.TrimSpace(line)
		if trimmed == "" || strings.HasPrefix(trimmed, "#") {
			continue
		}
		if item, ok := strings.CutPrefix(trimmed, "- "); ok && last != "" {
			list, _ := out[last].([]any)
			out[last] = append(list, strings.TrimSpace(item))
			continue
		}
		key, value, ok := strings.Cut(line, ":")
		if !ok || strings.HasPrefix(line, " ") {
			continue
		}
		key, value = strings.TrimSpace(key), strings.TrimSpace(value)
		if len(value) >= 2 && (value[0] == '"' || value[0] == '\'') && value[len(value)-1] == value[0] {
			value = value[1 : len(value)-1]
		}
		last = key
		if value != "" {
			out[key] = value
		}
	}
	return out
}

// textOf reads a YAML value written as text or as a list ([file] [flags]
// unquoted is a list of lists in YAML).
func textOf(v any) string {
	switch v := v.(type) {
	case nil:
		return ""
	case string:
		return v
	case []any:
		var parts []string
		for _, x := range v {
			if s := textOf(x); s != "" {
				parts = append(parts, "["+strings.Trim(s, "[]")+"]")
			}
		}
		return strings.Join(parts, " ")
	}
	return fmt.Sprint(v)
}

// listOf reads a list written as YAML or as one comma-separated line.
func listOf(v any) []string {
	var out []string
	switch v := v.(type) {
	case string:
		for _, s := range strings.Split(v, ",") {
			if s = strings.TrimSpace(s); s != "" {
				out = append(out, s)
			}
		}
	case []any:
		for _, x := range v {
			if s := strings.TrimSpace(fmt.Sprint(x)); s != "" {
				out = append(out, s)
			}
		}
	}
	return out
}

// firstLine is the first non-blank line of s, cut at n characters.
func firstLine(s string, n int) string {
	for _, l := range strings.Split(s, "\n") {
		l = strings.TrimSpace(strings.TrimLeft(l, "# "))
		if l == "" {
			continue
		}
		if r := []rune(l); len(r) > n {
			return string(r[:n-1]) + "…"
		}
		return l
	}
	return ""
}

// Refresh reads the custom command folders again. It reports whether the
// list of commands changed, so the host can announce it; the app calls it
// at every turn boundary, so a file added meanwhile is there for the next
// message.
func (s *Set) Refresh() bool {
	builtin := func(name string) bool { _, ok := s.lookup(name); return ok }
	next := loadCustom(s.host.CommandSources(), builtin)
	prev := s.ux.custom.Swap(next)
	return !slices.EqualFunc(prev.list(), next.list(), func(a, b customCommand) bool {
		return a.name == b.name && a.summary() == b.summary() && a.hint == b.hint
	})
}

// CustomProblems are the custom command files that did not load, as
// "path: what is wrong".
func (s *Set) CustomProblems() []string {
	if cs := s.ux.custom.Load(); cs != nil {
		return slices.Clone(cs.problems)
	}
	return nil
}

// customNamed finds a custom command.
func (s *Set) customNamed(name string) *customCommand {
	for _, c := range s.ux.custom.Load().list() {
		if c.name == name {
			return &c
		}
	}
	return nil
}

// customInfos are the custom commands as the session announces them.
func (s *Set) customInfos() []protocol.CommandInfo {
	var out []protocol.CommandInfo
	for _, c := range s.ux.custom.Load().list() {
		out = append(out, protocol.CommandInfo{Name: c.name, Args: c.hint, Summary: c.summary()})
	}
	return out
}
