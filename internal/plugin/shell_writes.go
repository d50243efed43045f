package plugin

import (
	"os"
	"path"
	"path/filepath"
	"strings"

	"mvdan.cc/sh/v3/syntax"

	"github.com/shiro-neko/shiro/internal/shellguard"
)

// shellWrites returns the paths a command line visibly writes: the
// targets of its output redirections (in the line and in every script it
// hands to a shell) and the files named to programs that write them (tee,
// cp, mv, sed -i, dd of=, curl -o…). It cannot see what a program decides
// for itself (`python -c "open('.env','w')"`, `npm install`); those are
// the limits of judging a command before it runs.
func shellWrites(a *shellguard.Analysis, cwd string) []string {
	var out []string
	add := func(rs []shellguard.Redirect) {
		for _, r := range rs {
			if r.Writes {
				out = append(out, r.Target)
			}
		}
	}
	add(a.Redirects())
	for _, s := range a.Scripts() {
		add(s.Redirects)
	}
	for _, c := range effective(a) {
		out = append(out, commandWrites(c, cwd)...)
	}
	return out
}

// redirectWrites reports an output redirection to a file (not to another
// descriptor: `2>&1`, `>&-`), for the plugins that walk a parsed script
// statement by statement.
func redirectWrites(r *syntax.Redirect) bool {
	if r.Word == nil {
		return false
	}
	switch r.Op {
	case syntax.RdrOut, syntax.AppOut, syntax.RdrInOut, syntax.RdrClob, syntax.AppClob,
		syntax.RdrAll, syntax.RdrAllClob, syntax.AppAll, syntax.AppAllClob:
		return true
	case syntax.DplOut:
		t := approxWord(r.Word)
		return t != "-" && strings.Trim(t, "0123456789") != "" // `>&file` sends both streams to a file
	}
	return false
}

// approxWord is a word's value with quotes removed from its literal parts
// and any expansion kept as written, which is enough to recognise
// `"$HOME/.ssh/config"` as a path under .ssh.
func approxWord(w *syntax.Word) string {
	var b strings.Builder
	appendWordParts(&b, w.Parts)
	return b.String()
}

func appendWordParts(b *strings.Builder, parts []syntax.WordPart) {
	for _, p := range parts {
		switch p := p.(type) {
		case *syntax.Lit:
			b.WriteString(p.Value)
		case *syntax.SglQuoted:
			b.WriteString(p.Value)
		case *syntax.DblQuoted:
			appendWordParts(b, p.Parts)
		default:
			var src strings.Builder
			_ = syntax.NewPrinter().Print(&src, p)
			b.WriteString(src.String())
		}
	}
}

// argSpec says which options of a program take a value, so their values
// are not mistaken for files.
type argSpec struct {
	short string   // letters whose value is the next word or the rest of the cluster
	long  []string // long options whose value may be the next word
}

// scanArgs splits a GNU-style argument list into options (name → values)
// and operands; options may follow operands, and "--" ends them.
func scanArgs(args []string, spec argSpec) (opts map[string][]string, ops []string) {
	opts = make(map[string][]string)
	for i := 0; i < len(args); i++ {
		a := args[i]
		switch {
		case a == "--":
			return opts, append(ops, args[i+1:]...)
		case strings.HasPrefix(a, "--"):
			name, value, hasValue := strings.Cut(a[2:], "=")
			if !hasValue && containsString(spec.long, name) && i+1 < len(args) {
				i++
				value = args[i]
			}
			opts[name] = append(opts[name], value)
		case len(a) > 1 && a[0] == '-':
			for j := 1; j < len(a); j++ {
				name := a[j : j+1]
				if !strings.Contains(spec.short, name) {
					opts[name] = append(opts[name], "")
					continue
				}
				value := a[j+1:]
				if value == "" && i+1 < len(args) {
					i++
					value = args[i]
				}
				opts[name] = append(opts[name], value)
				break
			}
		default:
			ops = append(ops, a)
		}
	}
	return opts, ops
}

func containsString(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// commandWrites returns the files a known program is told to write.
func commandWrites(c shellguard.Command, cwd string) []string {
	if len(c.Args) < 2 {
		return nil
	}
	args := c.Args[1:]
	if !c.Literal {
		args = unquoteAll(args)
	}
	switch name := c.Name(); name {
	case "tee":
		_, ops := scanArgs(args, argSpec{})
		return ops
	case "rm", "unlink", "rmdir", "shred", "touch", "mkdir", "truncate":
		_, ops := scanArgs(args, operandSpecs(name))
		return ops
	case "chmod", "chown", "chgrp":
		opts, ops := scanArgs(args, argSpec{long: []string{"reference", "from"}})
		if _, ref := opts["reference"]; !ref && len(ops) > 0 {
			ops = ops[1:] // the mode or owner
		}
		return ops
	case "cp", "mv", "ln", "install":
		return copyWrites(name, args, cwd)
	case "dd":
		var out []string
		for _, a := range args {
			if v, ok := strings.CutPrefix(a, "of="); ok {
				out = append(out, v)
			}
		}
		return out
	case "sed":
		return inPlaceWrites(args, "efl", []string{"expression", "file", "line-length"})
	case "perl":
		return inPlaceWrites(args, "eEIMx", nil)
	case "curl":
		opts, _ := scanArgs(args, argSpec{short: "ABbcCDdEeFHKmoPQrTtUuwXxYyz",
			long: []string{"output", "dump-header", "cookie-jar", "data", "header", "request", "user", "url", "form", "config"}})
		return optionValues(opts, "o", "output", "D", "dump-header", "c", "cookie-jar")
	case "wget", "wget2":
		opts, _ := scanArgs(args, argSpec{short: "OoaPeUTtwQlADIXRiB",
			long: []string{"output-document", "output-file", "append-output", "directory-prefix"}})
		return optionValues(opts, "O", "output-document", "o", "output-file", "a", "append-output")
	}
	return nil
}

// operandSpecs are the value-taking options of the programs whose every
// operand is a file they write or remove.
func operandSpecs(name string) argSpec {
	switch name {
	case "shred":
		return argSpec{short: "ns", long: []string{"iterations", "size", "random-source"}}
	case "touch":
		return argSpec{short: "dtr", long: []string{"date", "reference", "time"}}
	case "mkdir":
		return argSpec{short: "m", long: []string{"mode"}}
	case "truncate":
		return argSpec{short: "sr", long: []string{"size", "reference"}}
	}
	return argSpec{}
}

func optionValues(opts map[string][]string, names ...string) []string {
	var out []string
	for _, n := range names {
		for _, v := range opts[n] {
			if v != "" && v != "-" {
				out = append(out, v)
			}
		}
	}
	return out
}

// copyWrites finds what cp, mv, ln and install write: the destination, and
// each source's name inside it when it is a directory; mv also removes its
// sources.
func copyWrites(name string, args []string, cwd string) []string {
	opts, ops := scanArgs(args, argSpec{short: "tSmogbZ", long: []string{"target-directory", "suffix", "mode", "owner", "group", "backup"}})
	var out []string
	if name == "mv" {
		out = append(out, ops...)
	}
	dirs := optionValues(opts, "t", "target-directory")
	sources := ops
	if len(dirs) == 0 {
		if len(ops) < 2 {
			if name == "ln" && len(ops) == 1 {
				return append(out, path.Base(ops[0])) // a link named like its target, here
			}
			return out
		}
		dest := ops[len(ops)-1]
		sources = ops[:len(ops)-1]
		out = append(out, dest)
		if !isDirectory(dest, cwd) {
			return out
		}
		dirs = []string{dest}
	}
	for _, d := range dirs {
		for _, s := range sources {
			out = append(out, path.Join(d, path.Base(s)))
		}
	}
	return out
}

// isDirectory reports a destination that is, or is written as, a directory.
func isDirectory(p, cwd string) bool {
	if strings.HasSuffix(p, "/") || p == "." || p == ".." || p == "~" {
		return true
	}
	if !filepath.IsAbs(p) {
		if cwd == "" {
			return false
		}
		p = filepath.Join(cwd, p)
	}
	info, err := os.Stat(p)
	return err == nil && info.IsDir()
}

// inPlaceWrites returns the files sed -i or perl -i edit. In a short
// cluster i takes the rest as a backup suffix (`-i.bak`); the first
// operand is the script unless one came with -e or -f.
func inPlaceWrites(args []string, valued string, long []string) []string {
	inPlace, script := false, false
	var ops []string
	for i := 0; i < len(args); i++ {
		a := args[i]
		switch {
		case a == "--":
			ops = append(ops, args[i+1:]...)
			i = len(args)
		case strings.HasPrefix(a, "--"):
			name, _, hasValue := strings.Cut(a[2:], "=")
			switch {
			case name == "in-place":
				inPlace = true
			case containsString(long, name):
				script = true
				if !hasValue {
					i++
				}
			}
		case len(a) > 1 && a[0] == '-':
		cluster:
			for j := 1; j < len(a); j++ {
				switch ch := a[j]; {
				case ch == 'i':
					inPlace = true
					break cluster
				case strings.IndexByte(valued, ch) >= 0:
					script = script || ch == 'e' || ch == 'E' || ch == 'f'
					if j == len(a)-1 {
						i++
					}
					break cluster
				}
			}
		default:
			ops = append(ops, a)
		}
	}
	if !inPlace {
		return nil
	}
	if len(ops) > 1 && ops[0] == "" {
		ops = ops[1:] // BSD sed's separate, empty backup suffix: sed -i '' …
	}
	if !script && len(ops) > 0 {
		ops = ops[1:]
	}
	return ops
}

// unquoteAll removes quote characters from words that still hold their
// source text, leaving expansions in place.
func unquoteAll(args []string) []string {
	out := make([]string, len(args))
	for i, a := range args {
		out[i] = strings.NewReplacer(`"`, "", `'`, "").Replace(a)
	}
	return out
}
