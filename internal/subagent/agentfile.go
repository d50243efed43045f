package subagent

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/shiro-neko/shiro/internal/claudecode"
	"github.com/shiro-neko/shiro/internal/problem"
)

// Def is an agent defined in a file, in Claude Code's format: YAML
// frontmatter (name, description, tools, model) and a body that becomes
// the subagent's instructions. Each Def is a task kind of its own.
type Def struct {
	Name        string
	Description string
	// Prompt is the file's body: the kind's instructions.
	Prompt string
	// Tools are the shiro tools the agent is offered; nil means those a
	// worker gets (Claude Code's "tools omitted" inherits them all).
	Tools []string
	// Model is "" or "inherit" (the parent's model), an alias (sonnet,
	// opus, haiku) or a model id on the session's provider.
	Model string
	// Path is the file it came from, for messages and /context.
	Path string
}

// writes reports whether the agent may change the workspace: it was given
// a tool that writes or runs, or no list at all.
func (d *Def) writes() bool {
	if d.Tools == nil {
		return true
	}
	for _, name := range d.Tools {
		if mutating(name) {
			return true
		}
	}
	return false
}

// mutating reports whether a shiro tool of the table writes or runs; such
// a tool makes an agent one that needs a person to answer its approvals.
// The tool's own Effect still decides at run time, through the filter.
func mutating(name string) bool {
	switch name {
	case "bash", "bash_stop", "edit_file", "apply_patch", "multi_edit", "write_file":
		return true
	}
	return false
}

// shiroTool reports whether name is one of the shiro tools the table maps
// onto, which an agent file may name directly.
func shiroTool(name string) bool {
	for _, names := range claudecode.ToolNames() {
		if slices.Contains(names, name) {
			return true
		}
	}
	return false
}

// AgentDir is one directory agent files are read from.
type AgentDir struct {
	Path string
	// Scope names the directory in messages: "user" or "project".
	Scope string
}

// AgentDirs lists the directories agent files are read from, lowest
// precedence first: the user's, then the project's (a project agent
// replaces a user agent of the same name, as in Claude Code), and at each
// level shiro's own directory after Claude Code's.
func AgentDirs(home, state, root string) []AgentDir {
	var dirs []AgentDir
	if home != "" {
		dirs = append(dirs, AgentDir{filepath.Join(home, ".claude", "agents"), "user"})
	}
	if state != "" {
		dirs = append(dirs, AgentDir{filepath.Join(state, "agents"), "user"})
	}
	return append(dirs, AgentDir{filepath.Join(root, ".claude", "agents"), "project"},
		AgentDir{filepath.Join(root, ".shiro", "agents"), "project"})
}

// LoadAgents reads every *.md file in dirs. A bad file is reported with
// the field at fault and the others still load; a later directory's agent
// replaces an earlier one of the same name. The result is sorted by name.
func LoadAgents(dirs []AgentDir) ([]Def, []problem.Problem) {
	byName := map[string]Def{}
	var problems []problem.Problem
	for _, dir := range dirs {
		paths, err := filepath.Glob(filepath.Join(dir.Path, "*.md"))
		if err != nil {
			continue // only a malformed pattern fails, and this one is fixed
		}
		sort.Strings(paths)
		for _, path := range paths {
			data, err := os.ReadFile(path)
			if err != nil {
				problems = append(problems, agentProblem(path, fmt.Errorf("cannot read the agent file: %w", err)))
				continue
			}
			def, warn, err := parseAgent(path, data)
			if err != nil {
				problems = append(problems, agentProblem(path, err))
				continue
			}
			if warn != nil {
				problems = append(problems, agentProblem(path, warn))
			}
			byName[def.Name] = def
		}
	}
	out := make([]Def, 0, len(byName))
	for _, d := range byName {
		out = append(out, d)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out, problems
}

// agentProblem reports an agent file that was not loaded, or was loaded
// with a part left out.
func agentProblem(path string, err error) problem.Problem {
	return problem.Problem{Kind: "agent", Where: path, Err: err.Error()}
}

// frontmatter is the part of Claude Code's frontmatter shiro reads; other
// keys (color, for one) are left alone.
type frontmatter struct {
	Name        string    `yaml:"name"`
	Description string    `yaml:"description"`
	Tools       yaml.Node `yaml:"tools"`
	Model       string    `yaml:"model"`
}

var namePattern = regexp.MustCompile(`^[a-z0-9][a-z0-9_-]*$`)

// parseAgent reads one agent file. warn names tools that shiro does not
// have, which the agent loads without.
func parseAgent(path string, data []byte) (def Def, warn, err error) {
	head, body, ok := splitFrontmatter(data)
	if !ok {
		return Def{}, nil, errors.New("no frontmatter: start the file with a --- line, then name: and description:, then a --- line")
	}
	var fm frontmatter
	if err := yaml.Unmarshal(head, &fm); err != nil {
		return Def{}, nil, fmt.Errorf("frontmatter is not valid YAML: %w", err)
	}
	def = Def{Name: strings.TrimSpace(fm.Name), Description: strings.TrimSpace(fm.Description),
		Prompt: strings.TrimSpace(string(body)), Model: strings.TrimSpace(fm.Model), Path: path}
	switch {
	case def.Name == "":
		return Def{}, nil, errors.New("name: missing; give the agent a name in lowercase letters, digits and hyphens")
	case !namePattern.MatchString(def.Name):
		return Def{}, nil, fmt.Errorf("name: %q is not lowercase letters, digits and hyphens", def.Name)
	case builtin(Kind(def.Name)):
		return Def{}, nil, fmt.Errorf("name: %q is a built-in kind, which a file may not replace; rename the agent", def.Name)
	case def.Description == "":
		return Def{}, nil, errors.New("description: missing; say when the agent should be used")
	case def.Prompt == "":
		return Def{}, nil, errors.New("the body after the frontmatter is empty; write the agent's instructions there")
	}
	names, err := toolNames(&fm.Tools)
	if err != nil {
		return Def{}, nil, err
	}
	if names != nil {
		var unknown []string
		def.Tools, unknown = mapTools(names)
		if len(unknown) > 0 {
			warn = fmt.Errorf("tools: shiro has no %s; the agent %q loads without them", strings.Join(unknown, ", "), def.Name)
		}
	}
	return def, warn, nil
}

// toolNames reads tools as Claude Code writes it, a comma-separated string,
// or as a YAML list. nil means the key is absent.
func toolNames(n *yaml.Node) ([]string, error) {
	switch n.Kind {
	case 0:
		return nil, nil
	case yaml.ScalarNode:
		out := []string{}
		for _, s := range strings.Split(n.Value, ",") {
			if s = strings.TrimSpace(s); s != "" {
				out = append(out, s)
			}
		}
		return out, nil
	case yaml.SequenceNode:
		var list []string
		if err := n.Decode(&list); err != nil {
			return nil, fmt.Errorf("tools: %w", err)
		}
		return list, nil
	}
	return nil, errors.New("tools: give a comma-separated list of tool names, such as \"Read, Grep, Glob\"")
}

// mapTools turns Claude Code's (or shiro's) tool names into shiro's, in a
// stable order, and returns the names it could not map.
func mapTools(names []string) (tools, unknown []string) {
	table := claudecode.ToolNames()
	seen := map[string]bool{}
	tools = []string{}
	for _, name := range names {
		mapped, ok := table[name]
		if !ok && shiroTool(name) {
			mapped, ok = []string{name}, true
		}
		if !ok {
			unknown = append(unknown, name)
			continue
		}
		for _, m := range mapped {
			if !seen[m] {
				seen[m] = true
				tools = append(tools, m)
			}
		}
	}
	sort.Strings(tools)
	return tools, unknown
}

// splitFrontmatter cuts a file into its YAML frontmatter and its body.
func splitFrontmatter(data []byte) (head, body []byte, ok bool) {
	data = bytes.TrimPrefix(data, []byte("\ufeff"))
	data = bytes.ReplaceAll(data, []byte("\r\n"), []byte("\n"))
	if !bytes.HasPrefix(data, []byte("---\n")) {
		return nil, nil, false
	}
	rest := data[4:]
	if bytes.HasPrefix(rest, []byte("---\n")) || bytes.Equal(rest, []byte("---")) {
		return nil, bytes.TrimPrefix(rest, []byte("---")), true
	}
	end := bytes.Index(rest, []byte("\n---\n"))
	if end < 0 {
		if bytes.HasSuffix(rest, []byte("\n---")) {
			return rest[:len(rest)-4], nil, true
		}
		return nil, nil, false
	}
	return rest[:end], rest[end+5:], true
}

// ClaudeAliases are Claude Code's model aliases, each the newest model of
// its family on Anthropic's API, for sessions whose provider speaks it.
func ClaudeAliases() map[string]string {
	return map[string]string{"sonnet": "claude-sonnet-4-5", "opus": "claude-opus-4-1", "haiku": "claude-haiku-4-5"}
}

// IsAlias reports whether model is one of Claude Code's aliases.
func IsAlias(model string) bool { return model == "sonnet" || model == "opus" || model == "haiku" }

// agentModel is the model an agent runs on, given the parent's: inherit
// (or nothing) is the parent's; an alias is the parent's model when the
// parent is of that family, else the family's model from aliases (the
// parent's when the provider has none: the app announces that at
// startup); anything else is a model id on the session's provider.
func agentModel(d *Def, parent string, aliases map[string]string) string {
	switch m := d.Model; {
	case m == "" || m == "inherit":
		return parent
	case IsAlias(m):
		if strings.Contains(parent, m) || aliases[m] == "" {
			return parent
		}
		return aliases[m]
	default:
		return m
	}
}
