package docstest

import (
	"fmt"
	"regexp"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
)

// problem is one claim of a doc that the code does not bear out.
type problem struct {
	doc  string
	line int
	msg  string
}

func (p problem) String() string { return fmt.Sprintf("%s:%d: %s", p.doc, p.line, p.msg) }

// checker compares the docs with the facts and collects what disagrees.
type checker struct {
	f        *facts
	problems []problem
	// mentioned records every slash command and tool a doc names, for the
	// checks that go the other way (everything that exists is documented).
	mentionedCommands map[string]bool
	toolsInToolsDoc   map[string]bool
}

func newChecker(f *facts) *checker {
	return &checker{f: f, mentionedCommands: map[string]bool{}, toolsInToolsDoc: map[string]bool{}}
}

func (c *checker) report(d doc, line int, format string, args ...any) {
	c.problems = append(c.problems, problem{doc: d.name, line: line, msg: fmt.Sprintf(format, args...)})
}

// check runs every kind of check on one doc.
func (c *checker) check(d doc) {
	c.commandLines(d)
	c.bareFlags(d)
	c.statePaths(d)
	c.projectPaths(d)
	c.repoPaths(d)
	c.slashCommands(d)
	c.toolNames(d)
	c.testNames(d)
}

// code is every span and every line of every code block: where the docs
// put names, paths and commands.
func (d doc) code() []piece {
	out := append([]piece(nil), d.spans...)
	for _, b := range d.blocks {
		out = append(out, b...)
	}
	return out
}

// --- flags ---

// commandLines checks each `shiro …` command line of a span or a code
// block: its subcommands must exist and each flag must be one the command
// has (its own or inherited).
func (c *checker) commandLines(d doc) {
	for _, p := range d.code() {
		words := shellWords(p.text)
		for i, w := range words {
			start := i == 0 || isOperator(words[i-1]) || words[i-1] == "$"
			if w != "shiro" || !start {
				continue
			}
			if msg := c.checkCommand(words[i+1:]); msg != "" {
				c.report(d, p.line, "%s (in %q)", msg, p.text)
			}
		}
	}
}

// checkCommand walks the words after `shiro` down the command tree.
func (c *checker) checkCommand(words []string) string {
	cmd := c.f.cli
	path := "shiro"
	positional := false
	for i := 0; i < len(words); i++ {
		w := words[i]
		switch {
		case isOperator(w):
			return ""
		case w == "--":
			return ""
		case strings.HasPrefix(w, "--"):
			name, _, hasValue := strings.Cut(w[2:], "=")
			fl := lookupFlag(cmd, name)
			if fl == nil {
				return fmt.Sprintf("`%s` has no flag --%s", path, name)
			}
			if !hasValue && takesValue(fl) && i+1 < len(words) && !looksLikeFlag(words[i+1]) {
				i++
			}
		case len(w) > 1 && w[0] == '-':
			short := w[1:2]
			fl := lookupShort(cmd, short)
			if fl == nil {
				return fmt.Sprintf("`%s` has no flag -%s", path, short)
			}
			if len(w) == 2 && takesValue(fl) && i+1 < len(words) && !looksLikeFlag(words[i+1]) {
				i++
			}
		default:
			if positional {
				continue
			}
			if sub := findChild(cmd, w); sub != nil {
				cmd, path = sub, path+" "+sub.Name()
				continue
			}
			if !cmd.Runnable() && cmd.HasSubCommands() {
				return fmt.Sprintf("`%s` has no subcommand %q", path, w)
			}
			positional = true
		}
	}
	return ""
}

func lookupFlag(cmd *cobra.Command, name string) *pflag.Flag {
	if fl := cmd.Flags().Lookup(name); fl != nil {
		return fl
	}
	return cmd.InheritedFlags().Lookup(name)
}

func lookupShort(cmd *cobra.Command, short string) *pflag.Flag {
	if fl := cmd.Flags().ShorthandLookup(short); fl != nil {
		return fl
	}
	return cmd.InheritedFlags().ShorthandLookup(short)
}

func takesValue(fl *pflag.Flag) bool { return fl.NoOptDefVal == "" && fl.Value.Type() != "bool" }

func looksLikeFlag(w string) bool { return len(w) > 1 && w[0] == '-' }

func findChild(cmd *cobra.Command, name string) *cobra.Command {
	for _, sub := range cmd.Commands() {
		if sub.Name() == name || sub.HasAlias(name) {
			return sub
		}
	}
	return nil
}

var longFlag = regexp.MustCompile(`--([a-z][a-z0-9-]*)`)

// bareFlags checks spans that are flags on their own (`--yolo`,
// `-v/--version`, `--record FILE`): each long flag must be one of shiro's,
// unless the doc is describing another program's option (foreignFlags).
// Short flags alone are not checked: `-f` and `-rf` are rm's and git's as
// often as they are shiro's.
func (c *checker) bareFlags(d doc) {
	for _, p := range d.spans {
		if !strings.HasPrefix(p.text, "-") {
			continue
		}
		for _, m := range longFlag.FindAllStringSubmatch(p.text, -1) {
			name := m[1]
			if c.f.longFlags[name] {
				continue
			}
			if _, foreign := foreignFlags()[name]; foreign {
				continue
			}
			c.report(d, p.line, "no shiro command has a flag --%s (if it is another program's option, add it to foreignFlags with the reason)", name)
		}
	}
}

// shellWords splits a doc's command line the way a reader would: quotes
// group words, `|`, `||`, `&&`, `;`, `>` and `<` are operators of their
// own, `#` starts a comment, and a run of two or more spaces ends the
// command, since code blocks put a description there.
func shellWords(line string) []string {
	var words []string
	var cur strings.Builder
	inWord := false
	var quote rune
	flush := func() {
		if inWord {
			words = append(words, cur.String())
			cur.Reset()
			inWord = false
		}
	}
	runes := []rune(line)
	for i := 0; i < len(runes); i++ {
		r := runes[i]
		switch {
		case quote != 0:
			if r == quote {
				quote = 0
			} else {
				cur.WriteRune(r)
			}
		case r == '"' || r == '\'':
			quote, inWord = r, true
		case r == ' ' || r == '\t':
			flush()
			if len(words) > 0 && i+1 < len(runes) && runes[i+1] == ' ' {
				return words
			}
		case r == '#' && !inWord:
			return words
		case strings.ContainsRune("|&;<>", r):
			flush()
			op := string(r)
			if i+1 < len(runes) && (runes[i+1] == r || (r == '>' && runes[i+1] == '&')) {
				op += string(runes[i+1])
				i++
			}
			words = append(words, op)
		default:
			cur.WriteRune(r)
			inWord = true
		}
	}
	flush()
	return words
}

func isOperator(w string) bool {
	switch w {
	case "|", "||", "&&", ";", "&", ">", ">>", "<", "<<", ">&":
		return true
	}
	return false
}

// --- slash commands, tools, tests ---

var slashCommand = regexp.MustCompile(`^/([a-z?][a-z0-9-]*)(?:$|[\s(])`)

// slashCommands checks spans that start with a slash command (`/cost`,
// `/hooks approve NAME`): the session must have it, or the terminal UI.
func (c *checker) slashCommands(d doc) {
	for _, p := range d.spans {
		m := slashCommand.FindStringSubmatch(p.text)
		if m == nil {
			continue
		}
		name := m[1]
		c.mentionedCommands[name] = true
		if c.f.slash[name] {
			continue
		}
		if _, ok := uiCommands()[name]; ok {
			continue
		}
		if _, ok := notCommands()[name]; ok {
			continue
		}
		c.report(d, p.line, "`/%s` is not a slash command (the session has %s)", name, sortedKeys(c.f.slash))
	}
}

var snakeName = regexp.MustCompile(`^[a-z][a-z0-9]*(?:_[a-z0-9]+)+$`)

// toolNames checks spans that look like tool names (snake_case) and the
// names in the first column of a table headed "tool": they must be
// registered tools, unless notTools says what else they are.
func (c *checker) toolNames(d doc) {
	isToolsDoc := d.name == "docs/tools.md"
	for _, p := range d.spans {
		if isToolsDoc && c.f.tools[p.text] != nil {
			c.toolsInToolsDoc[p.text] = true
		}
		if !snakeName.MatchString(p.text) || c.f.tools[p.text] != nil {
			continue
		}
		if _, ok := notTools()[p.text]; ok {
			continue
		}
		c.report(d, p.line, "`%s` is not a registered tool (if it names something else, add it to notTools with the reason)", p.text)
	}
	for _, t := range d.tables {
		if len(t.header) == 0 || !strings.EqualFold(t.header[0], "tool") {
			continue
		}
		for _, row := range t.rows {
			if len(row) == 0 {
				continue
			}
			for _, p := range row[0] {
				if c.f.tools[p.text] == nil && !snakeName.MatchString(p.text) {
					c.report(d, p.line, "`%s`, in a table of tools, is not a registered tool", p.text)
				}
			}
		}
	}
}

var testName = regexp.MustCompile(`^(?:Test|Benchmark|Fuzz)[A-Z0-9]\w*$`)

// testNames checks spans that name a test, benchmark or fuzz target.
func (c *checker) testNames(d doc) {
	for _, p := range d.spans {
		if testName.MatchString(p.text) && !c.f.tests[p.text] {
			c.report(d, p.line, "there is no test function %s", p.text)
		}
	}
}

// --- helpers ---

// trimProse drops what prose puts after a path: a full stop, a comma, a
// closing bracket.
func trimProse(s string) string { return strings.TrimRight(s, ".,:;)") }

var brace = regexp.MustCompile(`\{([^{}]*)\}`)

// expandBraces expands the first {a,b} group of a path, recursively.
func expandBraces(s string) []string {
	loc := brace.FindStringSubmatchIndex(s)
	if loc == nil {
		return []string{s}
	}
	var out []string
	for _, alt := range strings.Split(s[loc[2]:loc[3]], ",") {
		out = append(out, expandBraces(s[:loc[0]]+strings.TrimSpace(alt)+s[loc[1]:])...)
	}
	return out
}
