package shellguard

import (
	"fmt"
	"sort"

	"mvdan.cc/sh/v3/syntax"
)

// Analysis is everything shellguard learns about one command line, worked
// out once by Analyze: the parse, the commands as written and as they run,
// the redirections and assignments, the scripts the line hands to shells,
// the guard's findings and the git commands with their aliases resolved.
// The guard, the plugins and the permission rules all read the same
// Analysis, so they cannot disagree about what a line does.
//
// An Analysis never changes after Analyze returns, so several goroutines
// may read it at once. The slices its methods return are shared: callers
// must not modify them.
type Analysis struct {
	source   string
	file     *syntax.File
	parseErr error
	line     inventory // what the line itself shows as written

	effective    []Command
	effectiveErr *AnalysisError
	scripts      []Script
	findings     []Verdict
	git          []GitCall
	accesses     []Access
	links        []Link
	parses       int
	stopped      bool
}

// Script is a script the command line hands to a shell (`sh -c '…'`,
// eval, a here-document fed to bash, a git `!` alias), parsed once.
type Script struct {
	// Source is the script's text. For an Approximate script it holds
	// the expansions as written.
	Source string
	// File is the parse, nil when ParseErr is set.
	File     *syntax.File
	ParseErr error
	// Via lists, outermost first, the programs through which the script
	// runs: ["sudo", "sh"] for `sudo sh -c '…'`.
	Via []string
	// Depth is 1 for a script the line hands over, 2 for a script within
	// that one, and so on.
	Depth int
	// Approximate marks a script whose text is only known at run time
	// (`sh -c "rm $x"`). The guard refuses the line; the approximation is
	// read only so that a plain danger in it gets a clearer refusal.
	Approximate bool
	// Commands are the script's simple commands as written, like
	// Analysis.Commands for the line.
	Commands    []Command
	Redirects   []Redirect
	Assignments []Assignment
}

// Redirect is one redirection, as written.
type Redirect struct {
	Op string // the operator: "<", ">", ">>", "&>", ">&", "<<", "<<<"…
	// Fd is the descriptor written before the operator ("2" in `2>`),
	// empty when none is.
	Fd string
	// Target is the word after the operator: its value after quote
	// removal, or with expansions left as written when it is not Literal.
	// For a here-document it is the delimiter.
	Target  string
	Literal bool
	// Writes reports that the redirection opens a file for writing: any
	// output redirection except duplicating or closing a descriptor
	// (`2>&1`, `>&-`). /dev/null counts; callers that trust it ask
	// HarmlessDevice.
	Writes bool
}

// Assignment is one variable assignment the syntax shows: `NAME=value`
// alone or before a command, an argument of export, declare, local,
// readonly or typeset, or the variable of a for or select loop.
type Assignment struct {
	Name string
	// Value is the value after quote removal, with expansions as written
	// when it is not Literal; empty for `export NAME`.
	Value   string
	Literal bool
	// By is the builtin or loop that assigns ("export", "declare", "for",
	// "select"…), empty for a plain NAME=value.
	By string
}

// inventory is what one parsed script shows as written.
type inventory struct {
	commands    []Command
	redirects   []Redirect
	assignments []Assignment
	declared    map[*syntax.Assign]string // the builtin that declares each argument of export, local…
}

// GitCall is one git command the line runs (wrapped or not), read past
// its global options, with an alias defined on the same command line
// (`git -c alias.r='reset --hard' r`) resolved.
type GitCall struct {
	// Command is the git command as it runs, as Effective lists it.
	Command Command
	// Index is Command's position among the effective commands, when
	// Effective succeeds (GitAt finds the call from it).
	Index int
	// Dirs are the -C directories, in order.
	Dirs []string
	// Subcommand is what git runs after alias expansion ("reset" for the
	// example above); empty when no subcommand is given, or when the
	// alias runs a shell command or cannot be resolved.
	Subcommand string
	// Args are the words after the subcommand, the alias's own first.
	Args []string
	// Alias says how the subcommand resolved, nil when it names no alias
	// defined on the line: an ExpandedAlias, ShellAlias or UnresolvedAlias.
	Alias GitAlias
	// Expanded is the git command git ends up running: the global options
	// other than the alias definitions, the subcommand and its words
	// (`git reset --hard`). It is Command itself when there is no alias
	// to expand, spelled as a git command when git's own command was run
	// directly (`git reset --hard` for `git-reset --hard`).
	Expanded Command
}

// GitAlias is the resolution of an alias: ExpandedAlias, ShellAlias or
// UnresolvedAlias.
type GitAlias interface {
	// AliasName is the alias the command line used.
	AliasName() string
}

// ExpandedAlias is an alias that stands for a git command: GitCall's
// Subcommand and Args hold its expansion.
type ExpandedAlias struct {
	Name  string
	Value string // the alias's definition
}

// ShellAlias is an alias starting with `!`: git hands the rest to a shell,
// with the command's remaining words as its arguments.
type ShellAlias struct {
	Name string
	// Script is the shell script's index in Analysis.Scripts, or -1 when
	// it was not parsed (nested too deep, or over the analysis budget;
	// the guard refuses such a line).
	Script int
}

// UnresolvedAlias is an alias the guard cannot resolve before it runs: its
// definition is decided at run time or read from the environment, or the
// aliases loop. The guard refuses the command.
type UnresolvedAlias struct {
	Name string
	Why  string
}

func (a ExpandedAlias) AliasName() string   { return a.Name }
func (a ShellAlias) AliasName() string      { return a.Name }
func (a UnresolvedAlias) AliasName() string { return a.Name }

// Analyze parses line once, with every script it hands to a shell, and
// works out everything its methods report (Verdict, Findings, Effective,
// Commands…), in one pass whose time is bounded by the size of the line.
func Analyze(line string) *Analysis {
	out, a := analyzeOnce(line, nil)
	if a.stale() {
		// A fact found late in the walk (an assignment inside a loop
		// after the command it changes, a redefinition in an eval) would
		// have changed an earlier judgement: judge the line again,
		// knowing every fact from the start.
		seed := a.facts.seed()
		out, a = analyzeOnce(line, &seed)
		if a.stale() && !a.stopped {
			a.opaque(line, "changes a variable or command name it uses, in ways too tangled to check")
			out.findings = dedupe(a.findings)
		}
	}
	return out
}

// AnalyzeLines returns the analysis of each line, in order: the one in
// made at the same place when it is of that very line, otherwise one made
// now. The gate analyses a call's lines once and hands the analyses on;
// the plugins and the rules call this so that they judge exactly those,
// and a call built without them (or with another line's) is still judged
// line by line. When made covers every line it is returned as it is.
func AnalyzeLines(lines []string, made []*Analysis) []*Analysis {
	var out []*Analysis
	for i, line := range lines {
		if i < len(made) && made[i] != nil && made[i].source == line {
			if out != nil {
				out[i] = made[i]
			}
			continue
		}
		if out == nil {
			out = make([]*Analysis, len(lines))
			copy(out, made[:i])
		}
		out[i] = Analyze(line)
	}
	if out == nil {
		return made[:len(lines)]
	}
	return out
}

// analyzeOnce is one walk of the line, starting from seeded facts when
// given.
func analyzeOnce(line string, seed *facts) (*Analysis, *engine) {
	out := &Analysis{source: line}
	a := newEngine(line, out)
	if seed != nil {
		a.facts = *seed
		a.seededShadows = len(seed.shadows)
	}
	a.run()
	out.findings = dedupe(a.findings)
	out.stopped = a.stopped
	if out.effectiveErr != nil {
		// A line Effective cannot analyse lists none of its commands, as
		// Effective always did; the git calls stay, for callers that must
		// judge what they can see.
		out.effective = nil
	}
	return out, a
}

// tooLong is the parse error of a line over maxSource, which is not parsed.
func tooLong() error {
	return fmt.Errorf("cannot parse shell command: too long to check (over %d KiB)", maxSource>>10)
}

func dedupe(findings []Verdict) []Verdict {
	if len(findings) == 0 {
		return nil
	}
	var out []Verdict
	seen := make(map[Verdict]bool, len(findings))
	for _, v := range findings {
		if !seen[v] {
			seen[v] = true
			out = append(out, v)
		}
	}
	return out
}

// Source is the command line analysed.
func (a *Analysis) Source() string { return a.source }

// File is the parse of the line, nil when ParseErr is set.
func (a *Analysis) File() *syntax.File { return a.file }

// ParseErr is why the line could not be parsed (a syntax error, or a line
// too long to check), nil when it was.
func (a *Analysis) ParseErr() error { return a.parseErr }

// Commands returns every simple command of the line as written, including
// those in pipelines, lists, subshells, substitutions, functions and
// control flow, in source order, without unwrapping sudo or sh -c (see
// Effective). Like Redirects and Assignments, it lacks what comes
// after the limit in a line the analysis gave up on (see Stopped).
func (a *Analysis) Commands() []Command { return a.line.commands }

// Redirects returns the line's own redirections, in source order; those of
// the scripts it hands to shells are in Scripts.
func (a *Analysis) Redirects() []Redirect { return a.line.redirects }

// Assignments returns the line's own assignments, in source order.
func (a *Analysis) Assignments() []Assignment { return a.line.assignments }

// Effective returns every simple command the line runs once wrappers,
// nested shells, eval, find -exec, xargs and the like are unwrapped, or an
// *AnalysisError when what runs is decided only at run time.
func (a *Analysis) Effective() ([]Command, error) {
	if a.effectiveErr != nil {
		return nil, a.effectiveErr
	}
	return a.effective, nil
}

// Scripts returns the scripts the line hands to shells, each parsed once,
// in the order the analysis met them.
func (a *Analysis) Scripts() []Script { return a.scripts }

// Findings returns every dangerous sub-command of the line in source
// order, once each; nil when it is safe.
func (a *Analysis) Findings() []Verdict { return a.findings }

// Verdict returns the guard's refusal, or nil when the line is safe to
// run: the first finding of a rule, or failing that the first "opaque"
// one, so that `$(echo x) ; rm -rf src` is refused for `rm -rf src`.
func (a *Analysis) Verdict() *Verdict {
	if len(a.findings) == 0 {
		return nil
	}
	pick := a.findings[0]
	for _, v := range a.findings {
		if v.Category != CategoryOpaque {
			pick = v
			break
		}
	}
	return &pick
}

// Git returns the git commands the line runs, in the order of the
// effective commands. They are listed even when Effective fails, for the
// parts of the line the analysis could read.
func (a *Analysis) Git() []GitCall { return a.git }

// GitAt returns the git call whose command is the i-th effective command.
func (a *Analysis) GitAt(i int) (GitCall, bool) {
	j := sort.Search(len(a.git), func(j int) bool { return a.git[j].Index >= i })
	if j < len(a.git) && a.git[j].Index == i {
		return a.git[j], true
	}
	return GitCall{}, false
}

// Stopped reports that the analysis gave up at one of its limits (too
// long, too large, too deeply nested) before reading the whole line. The
// guard then refuses the line and Effective fails; Commands, Redirects,
// Assignments, Git and Scripts lack what came after the limit.
func (a *Analysis) Stopped() bool { return a.stopped }

// Parses is how many scripts the analysis parsed: the line itself plus
// each entry of Scripts, so 1 + len(Scripts()) for a line short enough to
// check, and 0 for one that is not. (Splitting the string of `env -S` or
// of a git alias into words is not a script parse.)
func (a *Analysis) Parses() int { return a.parses }
