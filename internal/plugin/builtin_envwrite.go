package plugin

import (
	"context"
	"regexp"
	"strings"
	"sync"

	"mvdan.cc/sh/v3/syntax"

	"github.com/shiro-neko/shiro/internal/shellguard"
)

// NoEnvWrite refuses putting secret values into the environment or into
// files: export/declare -x, set, setx and PowerShell $env: of a variable
// whose name holds KEY, TOKEN, SECRET or PASSWORD, and echo, printf or cat
// of NAME=value for such a name into a file.
func NoEnvWrite() Plugin {
	return Plugin{
		Name:        "no-env-write",
		Description: "refuses setting or writing secret variables (…KEY, …TOKEN, …SECRET, …PASSWORD)",
		Appendix: "The no-env-write plugin refuses setting variables named …KEY, …TOKEN, …SECRET or …PASSWORD " +
			"and writing such NAME=value lines into files. Never put a secret into a command; ask the user to set " +
			"it in their environment or secret store.",
		BeforeToolCall: func(_ context.Context, c Call) (string, error) {
			for _, a := range c.shell() {
				if f := a.File(); f != nil {
					if shown, why := secretWrite(f); why != "" {
						return shellguard.Refusal("no-env-write", shown, why), nil
					}
				}
				for _, s := range a.Scripts() {
					if s.File == nil {
						continue
					}
					if shown, why := secretWrite(s.File); why != "" {
						return shellguard.Refusal("no-env-write", shown, why), nil
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
var secretAssignment = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`([A-Za-z_][A-Za-z0-9_]*)\s*=\s*\S`)
})

// printedSecret returns the first secret name assigned in text, or "".
func printedSecret(text string) string {
	for _, m := range secretAssignment().FindAllStringSubmatch(text, -1) {
		if secretName(m[1]) {
			return m[1]
		}
	}
	return ""
}

// secretWrite walks one parsed script and returns the first offending
// command and why. The command is shown with the value left out, so the
// refusal does not repeat the secret.
func secretWrite(f *syntax.File) (shown, why string) {
	syntax.Walk(f, func(n syntax.Node) bool {
		if why != "" {
			return false
		}
		switch n := n.(type) {
		case *syntax.DeclClause:
			if name := exportedSecret(n); name != "" {
				shown, why = n.Variant.Value+" "+name+"=…", "sets "+name+", which looks like a secret"
			}
		case *syntax.Stmt:
			if program, name := setSecret(n); name != "" {
				shown, why = program+" "+name+"=…", "sets "+name+", which looks like a secret"
			} else if program, name, target := printsSecretToFile(n); target != "" {
				shown, why = program+" "+name+"=… > "+target, "writes a secret value into "+target
			}
		case *syntax.BinaryCmd:
			if program, name, target := pipesSecretToFile(n); target != "" {
				shown, why = program+" "+name+"=… | … "+target, "writes a secret value into "+target
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

// setSecret returns the program and the secret name of a set, setx or
// PowerShell $env: assignment.
func setSecret(st *syntax.Stmt) (program, name string) {
	call, ok := st.Cmd.(*syntax.CallExpr)
	if !ok || len(call.Args) == 0 {
		return "", ""
	}
	first := approxWord(call.Args[0])
	if rest, ok := cutPrefixFold(first, "$env:"); ok { // $env:API_KEY = "…"
		name, _, assigns := strings.Cut(rest, "=")
		if secretName(name) && (assigns || len(call.Args) > 1) {
			return "$env:", name
		}
		return "", ""
	}
	if len(call.Args) < 2 {
		return "", ""
	}
	arg := approxWord(call.Args[1])
	switch strings.ToLower(first) {
	case "setx", "setx.exe": // setx NAME value
		name, _, _ := strings.Cut(arg, "=")
		if secretName(name) {
			return first, name
		}
	case "set": // cmd.exe: set NAME=value
		if name, value, ok := strings.Cut(arg, "="); ok && value != "" && secretName(name) {
			return first, name
		}
	}
	return "", ""
}

func cutPrefixFold(s, prefix string) (string, bool) {
	if len(s) >= len(prefix) && strings.EqualFold(s[:len(prefix)], prefix) {
		return s[len(prefix):], true
	}
	return "", false
}

// printsSecretToFile returns the program, the secret name and the file
// of an echo, printf or cat that writes a secret assignment into a file.
func printsSecretToFile(st *syntax.Stmt) (program, name, target string) {
	program, name = printsSecretStmt(st)
	if name == "" {
		return "", "", ""
	}
	return program, name, fileTarget(st)
}

// printsSecretStmt finds an echo, printf or cat whose words, here-document
// or here-string hold a secret assignment, and returns the program and the
// secret's name.
func printsSecretStmt(st *syntax.Stmt) (program, name string) {
	call, ok := st.Cmd.(*syntax.CallExpr)
	if !ok || len(call.Args) == 0 {
		return "", ""
	}
	program = approxWord(call.Args[0])
	switch strings.ToLower(program) {
	case "echo", "printf", "cat", "write-output", "echo.exe":
	default:
		return "", ""
	}
	for _, w := range call.Args[1:] {
		if name := printedSecret(approxWord(w)); name != "" {
			return program, name
		}
	}
	for _, r := range st.Redirs {
		if r.Hdoc != nil {
			if name := printedSecret(approxWord(r.Hdoc)); name != "" {
				return program, name
			}
		}
		if r.Op == syntax.WordHdoc && r.Word != nil {
			if name := printedSecret(approxWord(r.Word)); name != "" {
				return program, name
			}
		}
	}
	return "", ""
}

// fileTarget returns the first file a statement's redirections write, not
// counting the terminal and /dev/null.
func fileTarget(st *syntax.Stmt) string {
	for _, r := range st.Redirs {
		if r.Word == nil {
			continue
		}
		if t := approxWord(r.Word); shellguard.RedirectWrites(r.Op, t) && !shellguard.HarmlessDevice(t) {
			return t
		}
	}
	return ""
}

// pipesSecretToFile finds `echo API_KEY=… | tee -a .env` and
// `printf … | cat >> .env`: a stage printing a secret assignment followed
// by a stage writing a file.
func pipesSecretToFile(b *syntax.BinaryCmd) (program, name, target string) {
	if b.Op != syntax.Pipe && b.Op != syntax.PipeAll {
		return "", "", ""
	}
	stages := pipelineStages(b, nil)
	for i, st := range stages {
		program, name := printsSecretStmt(st)
		if name == "" {
			continue
		}
		for _, later := range stages[i+1:] {
			if t := fileTarget(later); t != "" {
				return program, name, t
			}
			if call, ok := later.Cmd.(*syntax.CallExpr); ok && len(call.Args) > 1 && approxWord(call.Args[0]) == "tee" {
				words := make([]string, 0, len(call.Args)-1)
				for _, w := range call.Args[1:] {
					words = append(words, approxWord(w))
				}
				if _, ops := shellguard.ScanArgs(words, ""); len(ops) > 0 {
					return program, name, ops[0]
				}
			}
		}
	}
	return "", "", ""
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
