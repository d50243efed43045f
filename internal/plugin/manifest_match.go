package plugin

import (
	"context"
	"encoding/json"
	"fmt"
	"path"
	"regexp"
	"slices"
	"strings"

	"github.com/shiro-neko/shiro/internal/shellguard"
)

// Plugin turns the manifest into a plugin that blocks the calls its rules
// deny. A rule matches a call when the tool is one of its tools and
//   - its pathPattern matches a path the call writes (from the tool's
//     metadata, so every write tool is covered, and the files a shell
//     command visibly writes), or the input's "path", "paths" or
//     "files[].path" (so read tools are covered), raw or cleaned; or
//   - its commandPattern matches a command line the call runs, or one of
//     the simple commands the shell guard finds in it after unwrapping
//     sudo, env, sh -c and the like.
//
// A manifest built in code that would not have parsed yields a plugin that
// blocks every call, so a mistake cannot silently disable it.
func (m Manifest) Plugin() Plugin {
	p := Plugin{Name: m.Name, Description: m.Description, Appendix: m.appendix(), ToolManifests: m.Tools}
	rules, err := m.compile()
	if err != nil {
		p.BeforeToolCall = func(context.Context, Call) (string, error) {
			return "", fmt.Errorf("its manifest is invalid: %w", err)
		}
		return p
	}
	p.BeforeToolCall = func(_ context.Context, c Call) (string, error) {
		return checkRules(m.Name, rules, c), nil
	}
	return p
}

type compiledRule struct {
	tools   []string
	path    *regexp.Regexp
	command *regexp.Regexp
	reason  string
}

func (m Manifest) compile() ([]compiledRule, error) {
	if err := m.validate(); err != nil {
		return nil, asManifestError(m.Name, err)
	}
	rules := make([]compiledRule, len(m.Deny))
	for i, r := range m.Deny {
		rules[i] = compiledRule{tools: r.Tools, reason: r.Reason}
		if r.PathPattern != "" {
			rules[i].path, _ = compilePattern("", r.PathPattern) // validated above
		}
		if r.CommandPattern != "" {
			rules[i].command, _ = compilePattern("", r.CommandPattern)
		}
	}
	return rules, nil
}

func checkRules(name string, rules []compiledRule, c Call) string {
	subjects := callSubjects{call: c}
	for _, r := range rules {
		if !toolListed(r.tools, c.Tool) {
			continue
		}
		if r.path != nil {
			for _, p := range subjects.paths() {
				if r.path.MatchString(p) {
					return manifestRefusal(name, r.reason, c.Tool, p)
				}
			}
		}
		if r.command != nil {
			for _, cmd := range subjects.commands() {
				if r.command.MatchString(cmd) {
					return manifestRefusal(name, r.reason, c.Tool, cmd)
				}
			}
		}
	}
	return ""
}

func manifestRefusal(plugin, reason, tool, subject string) string {
	return fmt.Sprintf("Blocked by the %s plugin: %s (refusing %s on %q). Ask the user to do it themselves if it is really needed.",
		plugin, reason, tool, shellguard.Shorten(subject))
}

// toolListed matches a tool name against a rule's names, where * matches
// any run of characters.
func toolListed(patterns []string, tool string) bool {
	for _, p := range patterns {
		if p == tool || p == "*" {
			return true
		}
		if strings.Contains(p, "*") {
			if ok, err := path.Match(p, tool); err == nil && ok {
				return true
			}
		}
	}
	return false
}

// callSubjects works out, once and only when a rule needs them, the paths
// and commands of a call.
type callSubjects struct {
	call               Call
	pathList, cmdList  []string
	pathDone, cmdsDone bool
}

func (s *callSubjects) paths() []string {
	if s.pathDone {
		return s.pathList
	}
	s.pathDone = true
	raw := slices.Clone(s.call.Writes)
	raw = append(raw, inputPaths(s.call.Input)...)
	for _, a := range s.call.shell() {
		raw = append(raw, shellWrites(a)...)
	}
	for _, p := range raw {
		s.pathList = appendUnique(s.pathList, p)
		s.pathList = appendUnique(s.pathList, cleanSlash(p))
	}
	return s.pathList
}

func (s *callSubjects) commands() []string {
	if s.cmdsDone {
		return s.cmdList
	}
	s.cmdsDone = true
	for i, a := range s.call.shell() {
		s.cmdList = appendUnique(s.cmdList, s.call.Commands[i])
		// A line the guard cannot analyse is the guard's to refuse; the
		// raw line is still matched above.
		for _, c := range effective(a) {
			s.cmdList = appendUnique(s.cmdList, c.String())
		}
		// A git alias defined on the line is matched as what it runs:
		// `git -c alias.p='push -f' p` as `git push -f`.
		for _, g := range a.Git() {
			if _, ok := g.Alias.(shellguard.ExpandedAlias); ok {
				s.cmdList = appendUnique(s.cmdList, g.Expanded.String())
			}
		}
	}
	return s.cmdList
}

// inputPaths reads the "path", "paths" and "files[].path" fields of a
// tool's input, which is how the read tools name what they read.
func inputPaths(input json.RawMessage) []string {
	if len(input) == 0 {
		return nil
	}
	var in struct {
		Path  json.RawMessage `json:"path"`
		Paths json.RawMessage `json:"paths"`
		Files json.RawMessage `json:"files"` // read_many_files: [{"path": …}]
	}
	if json.Unmarshal(input, &in) != nil {
		return nil
	}
	var out []string
	var one string
	if json.Unmarshal(in.Path, &one) == nil && one != "" {
		out = append(out, one)
	}
	var many []string
	if json.Unmarshal(in.Paths, &many) == nil {
		for _, p := range many {
			if p != "" {
				out = append(out, p)
			}
		}
	}
	var files []struct {
		Path string `json:"path"`
	}
	if json.Unmarshal(in.Files, &files) == nil {
		for _, f := range files {
			if f.Path != "" {
				out = append(out, f.Path)
			}
		}
	}
	return out
}

// cleanSlash is p with forward slashes and without ./ and ../ detours, so
// "src/../.env" is matched as ".env".
func cleanSlash(p string) string {
	if p == "" {
		return p
	}
	return path.Clean(strings.ReplaceAll(p, `\`, "/"))
}

func appendUnique(list []string, s string) []string {
	if s == "" || slices.Contains(list, s) {
		return list
	}
	return append(list, s)
}

// appendix is the manifest's own appendix, or one written from its rules
// so the model is told what will be refused before it happens.
func (m Manifest) appendix() string {
	if m.Appendix != "" {
		return m.Appendix
	}
	if len(m.Deny) == 0 {
		// A plugin that only adds tools refuses nothing to warn about.
		return ""
	}
	var b strings.Builder
	fmt.Fprintf(&b, "The %s plugin (%s) refuses these tool calls:\n", m.Name, m.Description)
	for _, r := range m.Deny {
		fmt.Fprintf(&b, "- %s: %s\n", strings.Join(r.Tools, ", "), r.Reason)
	}
	b.WriteString("When it refuses a call, tell the user what you meant to do and ask them to do it; do not work around the refusal.")
	return b.String()
}
