// Package docstest checks that the docs tell the truth about the binary:
// a claim in docs/*.md or README.md that names a flag, a path, a slash
// command, a tool, a test or a figure is compared with the code.
//
// What is checked, and where the truth comes from:
//
//   - `shiro …` command lines and flags on their own: the cobra tree of
//     internal/cli (cli.CommandTree, the tree Run executes);
//   - paths under .shiro-neko: what config.Paths produces; a project's
//     .shiro/<name>: what the app reads (proven by TestProjectPathsAreRead);
//     internal/… and cmd/… paths and .go files: the repository;
//   - slash commands: internal/commands' list, and the terminal UI's own;
//   - snake_case names and the names in tables of tools: the tools a full
//     session registers; and every registered tool is named in
//     docs/tools.md, every slash command somewhere in the docs;
//   - test names: the module's Test, Benchmark and Fuzz functions;
//   - figures: the pins of figures_test.go, and the generated tool-cost
//     section of docs/tools.md.
//
// Measured figures (timings, memory, hit ratios) are not pinned: they
// depend on the machine, and the docs give the command that measures them.
// What else the checks cannot tell from a claim is listed, with reasons, in
// allow_test.go.
package docstest

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// docFiles are the docs the checks read: every docs/*.md and the README.
func docFiles(t *testing.T, repo string) []doc {
	t.Helper()
	names, err := filepath.Glob(filepath.Join(repo, "docs", "*.md"))
	if err != nil {
		t.Fatal(err)
	}
	names = append(names, filepath.Join(repo, "README.md"))
	var docs []doc
	for _, path := range names {
		src, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		rel, _ := filepath.Rel(repo, path)
		docs = append(docs, parseDoc(filepath.ToSlash(rel), src))
	}
	return docs
}

func TestDocsMatchTheCode(t *testing.T) {
	f := gather(t)
	c := newChecker(f)
	docs := docFiles(t, f.repo)
	for _, d := range docs {
		c.check(d)
		c.figures(d)
	}
	c.everythingIsDocumented()
	c.generatedSections(docs)
	if len(c.problems) == 0 {
		return
	}
	var lines []string
	for _, p := range c.problems {
		lines = append(lines, p.String())
	}
	slices.Sort(lines)
	t.Fatalf("%d claims in the docs disagree with the code:\n%s", len(lines), strings.Join(lines, "\n"))
}

// everythingIsDocumented checks the other way: every slash command is
// named in some doc, and every registered tool in docs/tools.md.
func (c *checker) everythingIsDocumented() {
	d := doc{name: "docs"}
	for name := range c.f.slash {
		if !c.mentionedCommands[name] {
			c.report(d, 0, "the slash command /%s is in no doc: document it (docs/tui.md lists the commands, or the page of its feature)", name)
		}
	}
	tools := doc{name: "docs/tools.md"}
	for name := range c.f.tools {
		if !c.toolsInToolsDoc[name] {
			c.report(tools, 0, "the tool %s is not named in docs/tools.md", name)
		}
	}
}
