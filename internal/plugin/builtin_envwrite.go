package plugin

import (
	"context"
	"regexp"
	"strings"

	"mvdan.cc/sh/v3/syntax"
)

// NoEnvWrite refuses putting secret values into the environment or into
// files: export/declare -x, set, setx and PowerShell $env: of a variable
// whose name holds KEY, TOKEN, SECRET or PASSWORD, and echo, printf or cat
// of NAME=value for such a name into a file.
func NoEnvWrite() Plugin {
	return Plugin{
		Name:        "no-env-write",
		Description: "refuses setting or writing secret variables (…KEY, …TOKEN, …SECRET, …PASSWORD)",
		Appendix: "The no-env-write plugin refuses setting variables whose name contains KEY, TOKEN, SECRET or " +
			"PASSWORD (export, declare -x, set, setx, $env:) and writing such NAME=value lines into files with " +
			"echo, printf or cat. Never put a secret into a command; ask the user to set it in their own " +
			"environment or secret store.",
		BeforeToolCall: func(_ context.Context, c Call) (string, error) {
			for _, l := range c.shellLines() {
				for _, f := range l.scripts {
					if shown, why := secretWrite(f); why != "" {
						return shellRefusal("no-env-write", shown, why), nil
					}
				}
			}
			return "", nil
		},
	}
}

// secretName reports a variable name that suggests a secret.
func secretName(name string) bool {
	up := strings.ToUpper(name)
	for _, s := range []string{"KEY", "TOKEN", "SECRET", "PASSWORD", "PASSWD"} {
		if strings.Contains(up, s) {
			return true
		}
	}
	return false
}

// secretAssignment finds NAME=value with a secret NAME in text that a
// command prints (a parsed word or here-document, not the command line).
var secretAssignment = regexp.MustCompile(`([A-Za-z_][A-Za-z0-9_]*)\s*=\s*\S`)

func printsSecret(text string) bool {
	for _, m := range secretAssignment.FindAllStringSubmatch(text, -1) {
		if secretName(m[1]) {
			return true
		}
	}
	return false
}

// secretWrite walks one parsed script and returns the first offending
// command, as written, and why.
func secretWrite(f *syntax.File) (shown, why string) {
	syntax.Walk(f, func(n syntax.Node) bool {
		if why != "" {
			return false
		}
		switch n := n.(type) {
		case *syntax.DeclClause:
			if name := exportedSecret(n); name != "" {
				shown, why = printNode(n), "sets "+name+", which looks like a secret"
			}
		case *syntax.Stmt:
			if name := setSecret(n); name != "" {
				shown, why = printNode(n), "sets "+name+", which looks like a secret"
			} else if target := printsSecretToFile(n); target != "" {
				shown, why = printNode(n), "writes a secret value into "+target
			}
		case *syntax.BinaryCmd:
			if target := pipesSecretToFile(n); target != "" {
				shown, why = printNode(n), "writes a secret value into "+target
			}
		}
		return why == ""
	})
	return shown, why
}

// exportedSecret returns the secret name an export (or declare/typeset -x)
// gives a non-empty value.
func exportedSecret(d *syntax.DeclClause) string {
	exported := d.Variant.Value == "export"
	if d.Variant.Value == "declare" || d.Variant.Value == "typeset" {
		for _, a := range d.Args {
			if a.Naked && a.Name == nil && a.Value != nil {
				if flag := approxWord(a.Value); strings.HasPrefix(flag, "-") && strings.Contains(flag, "x") {
					exported = true
				}
			}
		}
	}
	if !exported {
		return ""
	}
	for _, a := range d.Args {
		if a.Name != nil && !a.Naked && secretName(a.Name.Value) && hasValue(a) {
			return a.Name.Value
		}
	}
	return ""
}

func hasValue(a *syntax.Assign) bool {
	return a.Array != nil || a.Value != nil && approxWord(a.Value) != ""
}

// setSecret returns the secret name a set, setx or PowerShell $env:
// assignment sets.
func setSecret(st *syntax.Stmt) string {
	call, ok := st.Cmd.(*syntax.CallExpr)
	if !ok || len(call.Args) == 0 {
		return ""
	}
	first := approxWord(call.Args[0])
	if rest, ok := cutPrefixFold(first, "$env:"); ok { // $env:API_KEY = "…"
		name, _, assigns := strings.Cut(rest, "=")
		if secretName(name) && (assigns || len(call.Args) > 1) {
			return name
		}
		return ""
	}
	if len(call.Args) < 2 {
		return ""
	}
	arg := approxWord(call.Args[1])
	switch strings.ToLower(first) {
	case "setx", "setx.exe": // setx NAME value
		name, _, _ := strings.Cut(arg, "=")
		if secretName(name) {
			return name
		}
	case "set": // cmd.exe: set NAME=value
		if name, value, ok := strings.Cut(arg, "="); ok && value != "" && secretName(name) {
			return name
		}
	}
	return ""
}

func cutPrefixFold(s, prefix string) (string, bool) {
	if len(s) >= len(prefix) && strings.EqualFold(s[:len(prefix)], prefix) {
		return s[len(prefix):], true
	}
	return "", false
}

// printsSecretToFile returns the file an echo, printf or cat statement
// writes a secret assignment into, or "".
func printsSecretToFile(st *syntax.Stmt) string {
	if !printsSecretStmt(st) {
		return ""
	}
	return fileTarget(st)
}

// printsSecretStmt reports an echo, printf or cat whose words, here-document
// or here-string hold a secret assignment.
func printsSecretStmt(st *syntax.Stmt) bool {
	call, ok := st.Cmd.(*syntax.CallExpr)
	if !ok || len(call.Args) == 0 {
		return false
	}
	switch strings.ToLower(approxWord(call.Args[0])) {
	case "echo", "printf", "cat", "write-output", "echo.exe":
	default:
		return false
	}
	for _, w := range call.Args[1:] {
		if printsSecret(approxWord(w)) {
			return true
		}
	}
	for _, r := range st.Redirs {
		if r.Hdoc != nil && printsSecret(approxWord(r.Hdoc)) {
			return true
		}
		if r.Op == syntax.WordHdoc && r.Word != nil && printsSecret(approxWord(r.Word)) {
			return true
		}
	}
	return false
}

// fileTarget returns the first file a statement's redirections write, not
// counting the terminal and /dev/null.
func fileTarget(st *syntax.Stmt) string {
	for _, r := range st.Redirs {
		if !redirectWrites(r) {
			continue
		}
		t := approxWord(r.Word)
		switch t {
		case "/dev/null", "/dev/stdout", "/dev/stderr", "/dev/tty":
			continue
		}
		return t
	}
	return ""
}

// pipesSecretToFile finds `echo API_KEY=… | tee -a .env` and
// `printf … | cat >> .env`: a stage printing a secret assignment followed
// by a stage writing a file.
func pipesSecretToFile(b *syntax.BinaryCmd) string {
	if b.Op != syntax.Pipe && b.Op != syntax.PipeAll {
		return ""
	}
	stages := pipelineStages(b, nil)
	for i, st := range stages {
		if !printsSecretStmt(st) {
			continue
		}
		for _, later := range stages[i+1:] {
			if t := fileTarget(later); t != "" {
				return t
			}
			if call, ok := later.Cmd.(*syntax.CallExpr); ok && len(call.Args) > 1 && approxWord(call.Args[0]) == "tee" {
				words := make([]string, 0, len(call.Args)-1)
				for _, w := range call.Args[1:] {
					words = append(words, approxWord(w))
				}
				if _, ops := scanArgs(words, argSpec{}); len(ops) > 0 {
					return ops[0]
				}
			}
		}
	}
	return ""
}

func pipelineStages(b *syntax.BinaryCmd, out []*syntax.Stmt) []*syntax.Stmt {
	for _, side := range []*syntax.Stmt{b.X, b.Y} {
		if inner, ok := side.Cmd.(*syntax.BinaryCmd); ok && len(side.Redirs) == 0 && (inner.Op == syntax.Pipe || inner.Op == syntax.PipeAll) {
			out = pipelineStages(inner, out)
			continue
		}
		out = append(out, side)
	}
	return out
}

// printNode renders a node as shell source, for the refusal.
func printNode(n syntax.Node) string {
	var b strings.Builder
	if err := syntax.NewPrinter(syntax.SingleLine(true)).Print(&b, n); err != nil {
		return ""
	}
	return b.String()
}
