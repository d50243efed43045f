package claudecode

import (
	"fmt"
	"path"
	"regexp"
	"strings"
	"unicode"

	"github.com/shiro-neko/shiro/internal/permission"
	"github.com/shiro-neko/shiro/internal/problem"
)

// Where says what a settings file's paths are relative to.
type Where struct {
	Home      string // `~/` in a rule
	Workspace string // `/path`, `./path` and `path` in a rule
}

// Rules turns the permission rules of settings files into shiro rules.
// Claude Code checks deny, then ask, then allow, whatever the order or
// the file; shiro's tables let the last matching rule win, so each
// tool's table lists the allow rules first, then ask, then deny, which
// gives the same answer. A project's allow rules are left out and
// reported: a cloned repository may only tighten. It returns nil rules
// when the files have none.
func Rules(files []Settings, where Where) (*permission.Rules, []problem.Problem, error) {
	b := newBuilder(where)
	for _, f := range files {
		lists := []struct {
			name  string
			rules []string
			d     permission.Decision
		}{
			{"permissions.allow", f.Permissions.Allow, permission.Allow},
			{"permissions.ask", f.Permissions.Ask, permission.Ask},
			{"permissions.deny", f.Permissions.Deny, permission.Deny},
		}
		for _, l := range lists {
			if l.d == permission.Allow && f.Scope != ScopeUser {
				if len(l.rules) > 0 {
					b.problems = append(b.problems, ruleProblem(f.Name, l.name, fmt.Sprintf("%d rule(s) ignored: a project's settings may only ask or deny more, as with .shiro/config.json; to allow, write the rule in ~/.claude/settings.json or your shiro config", len(l.rules))))
				}
				continue
			}
			for _, text := range l.rules {
				if err := b.add(text, l.d, fmt.Sprintf("%q (%s in %s)", strings.TrimSpace(text), l.name, f.Name)); err != nil {
					b.problems = append(b.problems, ruleProblem(f.Name, l.name, fmt.Sprintf("%q: %v", text, err)))
				}
			}
		}
	}
	if len(b.order) == 0 {
		return nil, b.problems, nil
	}
	r, err := permission.Build(b.entries())
	return r, b.problems, err
}

// target is what a Claude Code tool name becomes in shiro: a class of
// tools, or a tool name (or pattern of names).
type target struct {
	class permission.Class
	name  string
}

func (t target) id() string {
	if t.class != "" {
		return "class " + string(t.class)
	}
	return t.name
}

// ruleProblem reports rules of a settings file's list (permissions.allow,
// .ask or .deny) that shiro does not load, and why; the other rules of
// the file still load.
func ruleProblem(file, list, why string) problem.Problem {
	return problem.Problem{Kind: "Claude Code settings", Where: file, Err: list + ": " + why}
}

// builder gathers the rules of every file per target, by decision.
type builder struct {
	where    Where
	order    []target
	rules    map[string]*[3][]permission.Rule // allow, ask, deny
	problems []problem.Problem
}

func newBuilder(w Where) *builder {
	return &builder{where: w, rules: map[string]*[3][]permission.Rule{}}
}

func (b *builder) add(text string, d permission.Decision, origin string) error {
	r, err := ParseRule(text)
	if err != nil {
		return err
	}
	t, patterns, err := translate(r, d, b.where)
	if err != nil {
		return err
	}
	slot, ok := b.rules[t.id()]
	if !ok {
		slot = &[3][]permission.Rule{}
		b.rules[t.id()] = slot
		b.order = append(b.order, t)
	}
	i := map[permission.Decision]int{permission.Allow: 0, permission.Ask: 1, permission.Deny: 2}[d]
	for _, p := range patterns {
		slot[i] = append(slot[i], permission.Rule{Pattern: p, Decision: d, Origin: origin})
	}
	return nil
}

func (b *builder) entries() []permission.Entry {
	out := make([]permission.Entry, 0, len(b.order))
	for _, t := range b.order {
		slot := b.rules[t.id()]
		rules := append(append(append([]permission.Rule{}, slot[0]...), slot[1]...), slot[2]...)
		out = append(out, permission.Entry{Key: t.name, Class: t.class, Rules: rules})
	}
	return out
}

// translate maps one rule onto a shiro target and subject patterns with
// the same meaning, or says why it cannot.
func translate(r Rule, d permission.Decision, w Where) (target, []string, error) {
	if strings.HasPrefix(r.Tool, "mcp__") {
		return mcpTarget(r)
	}
	all := []string{"*"}
	switch r.Tool {
	case "Bash":
		if !r.HasSpec {
			return target{class: permission.ClassShell}, all, nil
		}
		p, err := bashPattern(r.Spec)
		return target{class: permission.ClassShell}, []string{p}, err
	case "Read":
		if !r.HasSpec {
			return target{class: permission.ClassReads}, all, nil
		}
		ps, err := pathPatterns(r.Spec, d, w)
		return target{class: permission.ClassReads}, ps, err
	case "Edit", "Write", "MultiEdit", "NotebookEdit":
		if !r.HasSpec {
			return target{class: permission.ClassWrites}, all, nil
		}
		ps, err := pathPatterns(r.Spec, d, w)
		return target{class: permission.ClassWrites}, ps, err
	case "WebFetch":
		if !r.HasSpec {
			return target{name: "web_fetch"}, all, nil
		}
		ps, err := urlPatterns(r.Spec, d)
		return target{name: "web_fetch"}, ps, err
	}
	bare := map[string]string{"Grep": "grep", "Glob": "glob", "WebSearch": "web_search", "Task": "task", "Agent": "task"}
	name, ok := bare[r.Tool]
	if !ok {
		return target{}, nil, fmt.Errorf("shiro has no tool that %s maps onto; the rule is not loaded", r.Tool)
	}
	if r.HasSpec {
		return target{}, nil, fmt.Errorf("shiro maps %s onto %s, but cannot match its specifier; write %s alone, or a rule for %s in shiro's config", r.Tool, name, r.Tool, name)
	}
	return target{name: name}, all, nil
}

// mcpTarget maps mcp__server (every tool of the server), mcp__server__*
// and mcp__server__tool onto shiro's MCP tool names, which are spelt the
// same way.
func mcpTarget(r Rule) (target, []string, error) {
	if r.HasSpec {
		return target{}, nil, fmt.Errorf("an MCP rule takes no specifier; write %s alone", r.Tool)
	}
	name := r.Tool
	if rest := strings.TrimPrefix(name, "mcp__"); rest == "" {
		return target{}, nil, fmt.Errorf("%s names no server; write mcp__server or mcp__server__tool", name)
	} else if !strings.Contains(rest, "__") {
		name += "__*"
	}
	return target{name: name}, []string{"*"}, nil
}

// bashPattern maps a Bash specifier: `npm run test:*` is a prefix at a
// word boundary, which is shiro's `npm run test *` (it matches the
// command with nothing after it too); any other `*` already means the
// same in both.
func bashPattern(spec string) (string, error) {
	if stem, ok := strings.CutSuffix(spec, ":*"); ok {
		if strings.TrimSpace(stem) == "" {
			return "*", nil
		}
		return strings.TrimRight(stem, " ") + " *", nil
	}
	if strings.Contains(spec, ":*") {
		return "", fmt.Errorf(`":*" means a prefix only at the end of a Bash rule`)
	}
	return spec, nil
}

// urlPatterns maps `domain:host` onto patterns of the addresses web_fetch
// is given. An allow matches only the host over http(s) and its paths;
// an ask or deny also catches a port, query, user part or bare host,
// since catching more only asks more.
func urlPatterns(spec string, d permission.Decision) ([]string, error) {
	host, ok := strings.CutPrefix(spec, "domain:")
	if !ok {
		return nil, fmt.Errorf("a WebFetch rule is WebFetch(domain:example.com)")
	}
	host = strings.ToLower(strings.TrimSpace(host))
	if host == "" || strings.Trim(host, "abcdefghijklmnopqrstuvwxyz0123456789.-*") != "" {
		return nil, fmt.Errorf("%q is not a host name", host)
	}
	if d == permission.Allow {
		if strings.Contains(host, "*") {
			return nil, fmt.Errorf("an allow rule with a wildcard host would allow more in shiro than it says; name each host")
		}
		return []string{"https://" + host, "https://" + host + "/*", "http://" + host, "http://" + host + "/*"}, nil
	}
	return []string{"*://" + host, "*://" + host + "/*", "*://" + host + ":*", "*://" + host + "?*", "*://" + host + "#*",
		"*@" + host + "*", host, host + "/*"}, nil
}

// pathPatterns maps a Read or Edit specifier, which Claude Code matches
// like a gitignore line: `//abs` from the root, `~/p` from home, `/p`
// from the project, `./p` and `p` from the working folder, a pattern
// without a slash at any depth, `**` across folders, `*` within one, and
// a match on a folder covers what is in it. shiro's `*` crosses folders,
// so a single `*` or `?` in an allow rule would allow more than written:
// such a rule is reported instead (an ask or deny may catch more). Each
// pattern is given workspace-relative and absolute, as subjects come in
// both forms.
func pathPatterns(spec string, d permission.Decision, w Where) ([]string, error) {
	if strings.IndexFunc(spec, unicode.IsControl) >= 0 {
		return nil, fmt.Errorf("the path holds a control character")
	}
	if strings.ContainsAny(spec, "[]\\{}!") {
		return nil, fmt.Errorf("shiro's patterns have no brackets, braces, negation or escapes; write the rule with * and ** only")
	}
	if d == permission.Allow && strings.ContainsAny(wholeDoubleStar.ReplaceAllString(spec, "$1"), "*?") {
		return nil, fmt.Errorf("a single * or ? would allow more in shiro, where * also crosses folders; write ** or name the files")
	}
	ws := path.Clean(strings.ReplaceAll(w.Workspace, "\\", "/"))
	var bases []string
	anchored := true
	switch {
	case strings.HasPrefix(spec, "//"):
		abs := path.Clean("/" + strings.TrimLeft(spec, "/"))
		bases = append(bases, abs)
		if rel, ok := within(ws, abs); ok {
			bases = append(bases, rel)
		}
	case strings.HasPrefix(spec, "~/"):
		abs := path.Join(w.Home, spec[2:])
		if strings.HasSuffix(spec, "/") {
			abs += "/"
		}
		bases = append(bases, abs)
		if rel, ok := within(ws, abs); ok {
			bases = append(bases, rel)
		}
	default:
		rel := strings.TrimPrefix(spec, "./")
		if strings.HasPrefix(spec, "/") {
			rel = strings.TrimLeft(spec, "/")
		} else if !strings.HasPrefix(spec, "./") && !strings.Contains(strings.TrimSuffix(rel, "/"), "/") {
			anchored = false // gitignore: a name without a slash matches at any depth
		}
		if rel == "" || rel == "." || strings.HasPrefix(rel, "../") || rel == ".." {
			return nil, fmt.Errorf("the path leaves the project; write it as //absolute/path")
		}
		bases = append(bases, rel, ws+"/"+rel)
		if !anchored {
			bases = append(bases, "*/"+rel)
		}
	}
	var out []string
	for _, b := range bases {
		for _, p := range expandDoubleStar(b) {
			out = appendUnique(out, p)
			if !strings.HasSuffix(p, "*") {
				// A folder's rule covers what is in it.
				out = appendUnique(out, strings.TrimSuffix(p, "/")+"/*")
			}
		}
	}
	return out, nil
}

// wholeDoubleStar finds a `**` that is a whole path element, the only
// place it means "any folders" rather than a plain `*`.
var wholeDoubleStar = regexp.MustCompile(`(^|/)\*\*(/|$)`)

// expandDoubleStar turns gitignore's `**/` (zero or more folders) into
// shiro patterns: each one both as `*/` and as nothing; a remaining `**`
// is `*`.
func expandDoubleStar(p string) []string {
	i := strings.Index(p, "**/")
	if i < 0 {
		p = strings.ReplaceAll(p, "**", "*")
		return []string{strings.TrimSuffix(p, "/")}
	}
	var out []string
	for _, next := range []string{p[:i] + "\x00/" + p[i+3:], p[:i] + p[i+3:]} {
		for _, e := range expandDoubleStar(next) {
			out = appendUnique(out, strings.ReplaceAll(e, "\x00", "*"))
		}
	}
	return out
}

// within returns abs relative to root when it lies inside it.
func within(root, abs string) (string, bool) {
	rel, ok := strings.CutPrefix(abs, root+"/")
	return rel, ok && rel != ""
}

func appendUnique(list []string, s string) []string {
	for _, x := range list {
		if x == s {
			return list
		}
	}
	return append(list, s)
}
