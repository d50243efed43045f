package shellguard

import (
	"strings"
)

// maxAliasChain bounds how many aliases one git command may go through
// (an alias may name another alias); git itself stops at a loop.
const maxAliasChain = 16

// gitInvocation is one git command read past its global options, with the
// aliases defined on the same command line (`-c alias.NAME=…`) applied to
// its subcommand.
type gitInvocation struct {
	dirs    []string // the -C directories
	globals []arg    // the global options other than alias definitions, with their values
	aliases []gitAliasDef

	alias      string // the alias the subcommand named, "" for none
	aliasOpts  []arg  // global options an alias starts with (`-p log`)
	words      []arg  // the subcommand and its words after expansion; nil when none runs
	expanded   []arg  // git, globals and words, when an alias expanded to a git command
	shell      *arg   // the script of a `!` alias the command uses
	shellDef   int    // that alias's index in aliases
	shellArgs  []arg  // the words git passes to that script
	unresolved string // why the alias cannot be resolved before it runs, "" when it can

	settings   []gitSetting // the other -c and --config-env settings, in order
	execPath   bool         // --exec-path=DIR: git runs its commands from DIR
	subDynamic bool         // the subcommand (or a global option) is decided at run time
}

// gitSetting is one `-c KEY=VALUE` or `--config-env KEY=VAR` other than an
// alias.
type gitSetting struct {
	key     string // lower-cased
	value   arg
	fromEnv bool
}

// gitAliasDef is one `-c alias.NAME=VALUE` or `--config-env alias.NAME=VAR`.
type gitAliasDef struct {
	name    string // lower-cased: git's configuration keys ignore case
	value   arg
	fromEnv bool // the value is read from the environment variable named by value
}

// gitValued are git's global options that take the next word as a value.
var gitValued = []string{"-C", "-c", "--git-dir", "--work-tree", "--namespace", "--config-env", "--super-prefix", "--attr-source", "--list-cmds"}

// readGit reads a git command's global options and resolves an alias
// defined on the same command line, so that the rules judge
// `git -c alias.r='reset --hard' r` as the `git reset --hard` it runs.
func (a *engine) readGit(sc *scope, argv []arg) *gitInvocation {
	g := &gitInvocation{}
	unknownKey := false
	i := 1
	for ; i < len(argv); i++ {
		w := argv[i]
		if !w.lit || !strings.HasPrefix(w.text, "-") {
			break
		}
		valued := oneOf(w.text, gitValued...)
		var value arg
		if valued && i+1 < len(argv) {
			value = argv[i+1]
		}
		// A configuration setting: -c KEY=VALUE, --config-env KEY=VAR or
		// --config-env=KEY=VAR.
		var setting arg
		switch {
		case (w.text == "-c" || w.text == "--config-env") && valued:
			setting = value
		case strings.HasPrefix(w.text, "--config-env="):
			setting = literalArg(strings.TrimPrefix(w.text, "--config-env="))
		}
		key, v, _ := strings.Cut(setting.text, "=")
		fromEnv := w.text != "-c"
		switch {
		case setting.text == "":
		case !setting.lit && strings.ContainsAny(key, "$`"):
			unknownKey = true // `-c "$kv"` may define any alias
		case len(key) > len("alias.") && strings.EqualFold(key[:len("alias.")], "alias."):
			g.aliases = append(g.aliases, gitAliasDef{
				name:    strings.ToLower(key[len("alias."):]),
				value:   arg{text: v, src: v, lit: setting.lit, word: setting.word},
				fromEnv: fromEnv,
			})
			if valued {
				i++
			}
			continue
		default:
			g.settings = append(g.settings, gitSetting{key: strings.ToLower(key), value: arg{text: v, src: v, lit: setting.lit, word: setting.word}, fromEnv: fromEnv})
		}
		if strings.HasPrefix(w.text, "--exec-path=") && len(w.text) > len("--exec-path=") {
			g.execPath = true
		}
		g.globals = append(g.globals, w)
		if valued && i+1 < len(argv) {
			i++
			g.globals = append(g.globals, argv[i])
			if w.text == "-C" {
				g.dirs = append(g.dirs, argv[i].value())
			}
		}
	}
	if i >= len(argv) {
		return g
	}
	g.subDynamic = !argv[i].lit
	g.resolve(a, sc, argv[i:], unknownKey)
	if g.alias != "" && g.words != nil && g.shell == nil && g.unresolved == "" {
		g.expanded = make([]arg, 0, 1+len(g.globals)+len(g.aliasOpts)+len(g.words))
		g.expanded = append(append(append(append(g.expanded, argv[0]), g.globals...), g.aliasOpts...), g.words...)
	}
	return g
}

// resolve applies the aliases to words (the subcommand and what follows
// it), following an alias that names another, as git does.
func (g *gitInvocation) resolve(a *engine, sc *scope, words []arg, unknownKey bool) {
	g.words = words
	if !words[0].lit {
		if len(g.aliases) > 0 || unknownKey {
			g.alias = words[0].value()
			g.unresolved = "the git subcommand is decided at run time, and the line defines aliases"
			g.words = nil
		}
		return
	}
	if unknownKey {
		g.alias = words[0].text
		g.unresolved = "a git -c option decided at run time may define an alias"
		g.words = nil
		return
	}
	var used []string
	for {
		at, ok := g.lookup(words[0].text)
		if !ok {
			g.words = words
			return
		}
		if g.alias == "" {
			g.alias = words[0].text
		}
		def := g.aliases[at]
		g.words = nil
		switch {
		case oneOf(def.name, used...):
			g.unresolved = "the git aliases it runs refer to each other in a loop"
			return
		case len(used) == maxAliasChain:
			g.unresolved = "the git aliases it runs are nested too deeply"
			return
		case def.fromEnv:
			g.unresolved = "the git alias it runs is read from an environment variable"
			return
		case strings.HasPrefix(def.value.text, "!"):
			script := def.value
			script.text = script.text[1:]
			script.src = script.text
			g.shell, g.shellDef, g.shellArgs = &script, at, words[1:]
			return
		case !def.value.lit:
			g.unresolved = "the git alias it runs is decided at run time"
			return
		}
		used = append(used, def.name)
		expansion := a.splitWords(sc, literalArg(def.value.text))
		// Like git, take the global options an alias starts with. Git
		// refuses an alias whose options change its environment (-C, -c,
		// --git-dir=…); the guard refuses it too rather than follow it.
		for len(expansion) > 0 && expansion[0].lit && strings.HasPrefix(expansion[0].text, "-") {
			if t := expansion[0].text; oneOf(t, gitValued...) || strings.Contains(t, "=") {
				g.unresolved = "the git alias it runs sets global options"
				return
			}
			g.aliasOpts = append(g.aliasOpts, expansion[0])
			expansion = expansion[1:]
		}
		switch {
		case len(expansion) == 0:
			g.unresolved = "the git alias it runs is empty"
			return
		case !expansion[0].lit:
			g.unresolved = "the git alias it runs is decided at run time"
			return
		}
		words = append(expansion, words[1:]...)
	}
}

// lookup finds the definition of the alias name, as an index in
// g.aliases; the last definition wins.
func (g *gitInvocation) lookup(name string) (int, bool) {
	name = strings.ToLower(name)
	for i := len(g.aliases) - 1; i >= 0; i-- {
		if g.aliases[i].name == name {
			return i, true
		}
	}
	return -1, false
}

// call is the public record of the invocation: written is the command as
// it runs, argv the same as a git command (`git reset --hard` for
// `git-reset --hard`).
func (g *gitInvocation) call(written, argv []arg, via []string, index int) GitCall {
	c := GitCall{Command: toCommand(written, via), Index: index, Dirs: g.dirs}
	c.Expanded = toCommand(argv, via)
	if len(g.words) > 0 {
		c.Subcommand = g.words[0].value()
		c.Args = make([]string, len(g.words)-1)
		for i, w := range g.words[1:] {
			c.Args[i] = w.value()
		}
	}
	switch {
	case g.alias == "":
	case g.unresolved != "":
		c.Alias = UnresolvedAlias{Name: g.alias, Why: g.unresolved}
	case g.shell != nil:
		c.Alias = ShellAlias{Name: g.alias, Script: -1}
	default:
		at, _ := g.lookup(g.alias)
		c.Alias = ExpandedAlias{Name: g.alias, Value: g.aliases[at].value.text}
		c.Expanded = toCommand(g.expanded, via)
	}
	return c
}

// gitScripts checks the script of every `!` alias the command defines,
// used or not, since any of them may run: the one the command uses with
// the words git passes to it. callIndex is the command's entry in
// Analysis.Git, or -1 when it is not recorded.
func (a *engine) gitScripts(sc *scope, g *gitInvocation, callIndex int, via []string, at string) {
	used := -1 // the definition of the `!` alias the command uses
	if g.shell != nil {
		used = g.shellDef
	}
	for i, def := range g.aliases {
		if i == used || def.fromEnv || !strings.HasPrefix(def.value.text, "!") {
			continue
		}
		script := def.value
		script.text = script.text[1:]
		script.src = script.text
		a.runScript(sc, []arg{script}, via, at)
	}
	if g.shell == nil {
		return
	}
	index := a.runScript(sc, shellAliasWords(*g.shell, g.shellArgs), via, at)
	if callIndex >= 0 {
		a.out.git[callIndex].Alias = ShellAlias{Name: g.alias, Script: index}
	}
}

// shellAliasWords is the script git runs for a `!` alias given args: git
// appends ` "$@"` and passes the words as the positional parameters. The
// guard writes the words into the script instead, a literal one quoted and
// any other as written (the expansion it stands for happens in the outer
// shell, and yields the same words), so that `!git push` given `-f` is
// read as the `git push -f` it runs.
func shellAliasWords(script arg, args []arg) []arg {
	words := make([]arg, 0, 1+len(args))
	words = append(words, script)
	for _, w := range args {
		if w.lit {
			words = append(words, literalArg(shellQuote(w.text)))
		} else {
			words = append(words, literalArg(w.src))
		}
	}
	return words
}

// shellQuote single-quotes s for a shell.
func shellQuote(s string) string { return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'" }
