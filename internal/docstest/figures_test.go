package docstest

import (
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"time"

	"github.com/shiro-neko/shiro/internal/askuser"
	"github.com/shiro-neko/shiro/internal/config"
	"github.com/shiro-neko/shiro/internal/hooks"
	"github.com/shiro-neko/shiro/internal/learn"
	"github.com/shiro-neko/shiro/internal/memory"
	"github.com/shiro-neko/shiro/internal/skills"
	"github.com/shiro-neko/shiro/internal/subagent"
	"github.com/shiro-neko/shiro/internal/tool"
	"github.com/shiro-neko/shiro/internal/workflow"
)

// pin ties a figure a doc states to the code: re finds the claim, one
// capture group per value, and want says what the values must be. A pin
// whose claim is gone from the doc fails too, so a pin never rots into
// checking nothing.
type pin struct {
	doc, what string
	re        *regexp.Regexp
	want      func() []string
}

func n(i int) []string { return []string{fmt.Sprint(i)} }

func pins() []pin {
	defaults := func() config.Settings {
		s, err := config.Resolve(config.File{}, config.File{}, func(string) string { return "" }, config.Flags{Provider: "replay"})
		if err != nil {
			panic(err) // the built-in defaults always resolve
		}
		return s
	}
	jsonList := func(list []string) []string {
		b, _ := json.Marshal(list)
		return []string{string(b)}
	}
	bundled := func() []string {
		cat, _ := skills.Load(skills.Sources{})
		return cat.Names()
	}
	return []pin{
		{"docs/memory.md", "the most entries kept", regexp.MustCompile(`keeps at most \*\*(\d+)\*\* entries`), func() []string { return n(memory.MaxEntries) }},
		{"docs/memory.md", "the longest entry", regexp.MustCompile(`cut at \*\*(\d+)\*\* characters`), func() []string { return n(memory.MaxTextChars) }},
		{"docs/memory.md", "the expiry of unused entries", regexp.MustCompile(`\*\*(\d+) days\*\* after`), func() []string { return n(int(memory.UnusedTTL / (24 * time.Hour))) }},
		{"docs/memory.md", "recall's results", regexp.MustCompile(`returns up to (\d+) entries`), func() []string { return n(memory.RecallResults) }},
		{"docs/memory.md", "the boot block's entries", regexp.MustCompile(`up to \*\*(\d+)\*\* entries under`), func() []string { return n(memory.BootEntries) }},
		{"docs/memory.md", "forget's shortest text", regexp.MustCompile(`at least (\d+) characters`), func() []string { return n(memory.MinForgetChars) }},
		{"docs/memory.md", "the learner's shortest history", regexp.MustCompile(`holds\s+at\s+least\s+(\d+)\s+messages`), func() []string { return n(learn.MinHistory) }},
		{"docs/memory.md", "the learner's turns", regexp.MustCompile(`every\s+(\d+)rd\s+turn`), func() []string { return n(learn.EveryTurns) }},
		{"docs/memory.md", "the learner's new messages", regexp.MustCompile(`sooner\s+when\s+(\d+)\s+messages`), func() []string { return n(learn.NewMessages) }},
		{"docs/memory.md", "the learner's spend share", regexp.MustCompile(`skipped\s+past\s+(\d+)%`), func() []string { return n(int(learn.SpendShare * 100)) }},
		{"docs/memory.md", "the learner's window", regexp.MustCompile(`the\s+last\s+(\d+)\s+messages,\s+at\s+most\s+([\d,]+)\s+characters`), func() []string {
			return []string{fmt.Sprint(learn.WindowMessages), thousands(learn.WindowChars)}
		}},
		{"docs/memory.md", "the learner's proposals", regexp.MustCompile(`propose\s+up\s+to\s+(\d+)\s+memories\s+and\s+(\d+)\s+skills`), func() []string {
			return []string{fmt.Sprint(learn.MaxMemories), fmt.Sprint(learn.MaxSkills)}
		}},
		{"docs/memory.md", "a learned skill's shortest body", regexp.MustCompile(`a\s+body\s+of\s+(\d+)\s+characters\s+or\s+more`), func() []string { return n(learn.MinSkillBody) }},
		{"docs/memory.md", "a learned skill's cap", regexp.MustCompile(`never\s+grown\s+past\s+([\d,]+)\s+characters`), func() []string { return []string{thousands(learn.SkillFileCap)} }},
		{"docs/memory.md", "the learner's bounds", regexp.MustCompile(`background,\s+at\s+most\s+(\d+)\s+seconds[^*]*?before\s+the\s+turn\s+ends,\s+at\s+most\s+(\d+)\s+seconds`), func() []string {
			return []string{fmt.Sprint(int(learn.BackgroundBound.Seconds())), fmt.Sprint(int(learn.InlineBound.Seconds()))}
		}},
		{"docs/workflow.md", "the nudges per session", regexp.MustCompile(`fewer than (\d+) reminders`), func() []string { return n(workflow.MaxNudges) }},
		{"docs/workflow.md", "the nudge count as /workflow shows it", regexp.MustCompile("`nudges: n/(\\d+)"), func() []string { return n(workflow.MaxNudges) }},
		{"docs/hooks.md", "a hook's stdout limit", regexp.MustCompile(`printing more than (\d+) MiB`), func() []string { return n(hooks.MaxStdout >> 20) }},
		{"docs/hooks.md", "the default hook timeout", regexp.MustCompile("`hookTimeoutMs` in the config, (\\d+) s unless set"), func() []string { return n(int(hooks.DefaultTimeout / time.Second)) }},
		{"docs/configuration.md", "the default plugins", regexp.MustCompile("\\| `plugins` \\| `(\\[[^`]*\\])`"), func() []string { return jsonList(config.DefaultPlugins()) }},
		{"docs/configuration.md", "the default tool sets", regexp.MustCompile("\\| `toolSets` \\| `(\\[[^`]*\\])`"), func() []string {
			var names []string
			for _, s := range tool.DefaultSets() {
				names = append(names, string(s))
			}
			return jsonList(names)
		}},
		{"docs/configuration.md", "the default retries", regexp.MustCompile("\\| `maxRetries` \\| (\\d+) \\|"), func() []string { return n(defaults().MaxRetries) }},
		{"docs/configuration.md", "the default hook timeout", regexp.MustCompile("\\| `hookTimeoutMs` \\| (\\d+) \\|"), func() []string { return n(int(defaults().HookTimeout / time.Millisecond)) }},
		{"docs/plugins.md", "the default plugins", regexp.MustCompile("the \\*\\*default set\\*\\* is enabled:\\n\\n(`[^\\n]*`)\\n"), func() []string {
			return []string{"`" + strings.Join(config.DefaultPlugins(), "`, `") + "`"}
		}},
		{"docs/skills.md", "the bundled skills", regexp.MustCompile(`compiled into the binary \((\d+) skills: ([^)]*)\)`), func() []string {
			names := bundled()
			return []string{fmt.Sprint(len(names)), strings.Join(names, ", ")}
		}},
		{"docs/tools.md", "the result cap", regexp.MustCompile(`A result longer than ([\d,]+) characters is cut`), func() []string { return []string{thousands(tool.ResultCap)} }},
		{"docs/tools.md", "the ask tool's options", regexp.MustCompile("`options\\?` \\(up to (\\d+) of"), func() []string { return n(askuser.MaxOptions) }},
		{"docs/tools.md", "the task tool's batch", regexp.MustCompile("`tasks\\[1\\.\\.(\\d+)\\]`"), func() []string { return n(subagent.MaxBatch) }},
		{"docs/skills.md", "the bundled skills' count", regexp.MustCompile(`so (\d+) skills cost`), func() []string { return n(len(bundled())) }},
	}
}

// figures checks the pins of one doc.
func (c *checker) figures(d doc) {
	for _, p := range pins() {
		if p.doc != d.name {
			continue
		}
		matches := p.re.FindAllStringSubmatchIndex(d.raw, -1)
		if len(matches) == 0 {
			c.report(d, 0, "the pinned claim on %s is gone (no match for %s): state it again, or change its pin in figures_test.go", p.what, p.re)
			continue
		}
		want := p.want()
		for _, m := range matches {
			var got []string
			for g := 1; g*2 < len(m); g++ {
				got = append(got, d.raw[m[2*g]:m[2*g+1]])
			}
			if strings.Join(got, "\x00") != strings.Join(want, "\x00") {
				c.report(d, lineAt(d.raw, m[0]), "%s: the doc says %q, the code says %q", p.what, got, want)
			}
		}
	}
}

func lineAt(s string, offset int) int { return 1 + strings.Count(s[:offset], "\n") }

const (
	costBegin = "<!-- tool-cost:begin -->"
	costEnd   = "<!-- tool-cost:end -->"
	listBegin = "<!-- tool-list:begin -->"
	listEnd   = "<!-- tool-list:end -->"
)

// update rewrites the generated sections of the docs instead of failing
// on them: go test ./internal/docstest -run DocsMatch -update.
var update = flag.Bool("update", false, "rewrite the generated sections of docs/tools.md")

// generatedSections checks the sections docs/tools.md carries from the
// code verbatim, between their markers. A failure prints the section to
// paste; -update writes it.
func (c *checker) generatedSections(docs []doc) {
	for _, d := range docs {
		if d.name != "docs/tools.md" {
			continue
		}
		sections := []struct{ name, begin, end, want string }{
			{"tool-list", listBegin, listEnd, renderList(c.f.tools, c.f.packages)},
			{"tool-cost", costBegin, costEnd, c.f.cost.render(c.f.tools)},
		}
		raw := d.raw
		for _, sec := range sections {
			begin, end := strings.Index(raw, sec.begin), strings.Index(raw, sec.end)
			if begin < 0 || end < begin {
				c.report(d, 0, "the %s section (between %s and %s) is missing; it is:\n%s", sec.name, sec.begin, sec.end, sec.want)
				continue
			}
			if strings.TrimSpace(raw[begin+len(sec.begin):end]) == strings.TrimSpace(sec.want) {
				continue
			}
			if *update {
				raw = raw[:begin+len(sec.begin)] + "\n" + strings.TrimSpace(sec.want) + "\n" + raw[end:]
				continue
			}
			c.report(d, lineAt(raw, begin), "the %s section is out of date; replace it with (or run go test ./internal/docstest -run DocsMatch -update):\n%s", sec.name, sec.want)
		}
		if raw != d.raw {
			if err := writeFile(filepath.Join(c.f.repo, filepath.FromSlash(d.name)), raw); err != nil {
				c.report(d, 0, "cannot update: %v", err)
			}
		}
	}
}

// writeFile replaces path with data through a temporary file and a rename,
// so a doc is never left half-written.
func writeFile(path, data string) error {
	tmp, err := os.CreateTemp(filepath.Dir(path), ".docstest-*")
	if err != nil {
		return err
	}
	defer os.Remove(tmp.Name())
	if _, err := tmp.WriteString(data); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Close(); err != nil {
		return err
	}
	if err := os.Chmod(tmp.Name(), 0o644); err != nil {
		return err
	}
	return os.Rename(tmp.Name(), path)
}
