package archtest

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"
	"testing"
)

// processStarters are the identifiers, by import path, through which Go
// code can start or replace a process. A reference to any of them, called
// or not (a method value starts a process just as well later), counts.
// exec.Cmd is here because a Cmd built as a literal starts with Run or
// Start without exec.Command ever being named.
func processStarters() map[string][]string {
	return map[string][]string{
		"os/exec":               {"Command", "CommandContext", "Cmd"},
		"os":                    {"StartProcess"},
		"syscall":               {"ForkExec", "StartProcess", "Exec"},
		"golang.org/x/sys/unix": {"Exec", "Execve", "Execveat", "ForkExec", "StartProcess"},
	}
}

// procOwner is the one package that starts processes: everything else goes
// through it, so that the workspace's Launcher (the sandbox) and the
// scrubbed environment are a caller's explicit choice, visible in its
// proc.Spec, never an omission.
const procOwner = "internal/proc/"

// allowedStarts are the process starts outside internal/proc that stay,
// by file and identifier, each with the reason it may. Nothing the model
// or the workspace can influence may be added here.
func allowedStarts() map[string]string {
	return map[string]string{
		// shiro replaces itself with its own shiro-tui binary: the program
		// is shiro's, found next to its executable, before any session.
		"internal/cli/handoff_unix.go syscall.Exec": "shiro re-executes as shiro-tui",
		"internal/cli/handoff_other.go exec.Cmd":    "shiro runs shiro-tui where exec cannot replace it",
		// The demo builds its own scratch repository from files it wrote
		// itself, with system and global git config turned off.
		"internal/demo/demo.go exec.CommandContext": "the demo's scratch repository",
		// Checkpoints run git on shiro's private bare repository, with
		// system and global config, hooks and fsmonitor turned off, so no
		// config the workspace can write names a program (see git.go).
		"internal/checkpoint/git.go exec.CommandContext": "checkpoints' hermetic git",
		// The sandbox's supervisor forks the command proc handed it, from
		// the thread it confined; proc started the supervisor itself.
		"internal/supervise/supervise_linux.go syscall.ForkExec": "the supervisor starts its command",
	}
}

// TestProcessesStartOnlyThroughProc fails on any process start in the
// module's non-test code outside internal/proc and the allow-list above.
// It parses the source rather than matching text, so renamed and dot
// imports and method values are caught as well as plain calls.
func TestProcessesStartOnlyThroughProc(t *testing.T) {
	root := filepath.Join("..", "..")
	found := map[string]bool{}
	var bad []string
	for _, file := range goSources(t, root) {
		if strings.HasPrefix(file, procOwner) {
			continue
		}
		for _, use := range processStarts(t, root, file) {
			key := file + " " + use.name
			if _, ok := allowedStarts()[key]; ok {
				found[key] = true
				continue
			}
			bad = append(bad, use.pos+": "+use.name+" starts a process outside internal/proc; run it with proc.Run and the workspace's Launcher")
		}
	}
	sort.Strings(bad)
	for _, b := range bad {
		t.Error(b)
	}
	for key := range allowedStarts() {
		if !found[key] {
			t.Errorf("allow-list entry %q matches no process start any more; remove it", key)
		}
	}
}

// goSources lists the module's non-test Go files, relative to root with
// forward slashes, leaving out testdata and hidden folders as the go
// command does.
func goSources(t *testing.T, root string) []string {
	t.Helper()
	var files []string
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		name := d.Name()
		if d.IsDir() {
			if p != root && (name == "testdata" || name == "vendor" || strings.HasPrefix(name, ".") || strings.HasPrefix(name, "_")) {
				return filepath.SkipDir
			}
			return nil
		}
		if strings.HasSuffix(name, ".go") && !strings.HasSuffix(name, "_test.go") {
			rel, err := filepath.Rel(root, p)
			if err != nil {
				return err
			}
			files = append(files, filepath.ToSlash(rel))
		}
		return nil
	})
	if err != nil {
		t.Fatalf("walking the module: %v", err)
	}
	if len(files) == 0 {
		t.Fatal("no Go files found: is the test running inside the module?")
	}
	return files
}

// use is one reference to a process starter.
type use struct {
	pos  string // file:line
	name string // as written with the package's usual name: exec.Command
}

// processStarts finds the references to processStarters in one file.
func processStarts(t *testing.T, root, file string) []use {
	t.Helper()
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, filepath.Join(root, filepath.FromSlash(file)), nil, parser.SkipObjectResolution)
	if err != nil {
		t.Fatalf("parsing %s: %v", file, err)
	}
	starters := processStarters()
	// local maps the name a package is known by in this file to its path.
	local := map[string]string{}
	var out []use
	for _, imp := range f.Imports {
		p, err := strconv.Unquote(imp.Path.Value)
		if err != nil || starters[p] == nil {
			continue
		}
		name := path.Base(p)
		if imp.Name != nil {
			name = imp.Name.Name
		}
		if name == "." {
			// Every starter is then a bare identifier: refuse the import.
			out = append(out, use{pos: fset.Position(imp.Pos()).String(), name: "dot import of " + p})
			continue
		}
		local[name] = p
	}
	if len(local) == 0 {
		return out
	}
	ast.Inspect(f, func(n ast.Node) bool {
		sel, ok := n.(*ast.SelectorExpr)
		if !ok {
			return true
		}
		pkg, ok := sel.X.(*ast.Ident)
		if !ok {
			return true
		}
		p, ok := local[pkg.Name]
		if !ok {
			return true
		}
		for _, s := range starters[p] {
			if sel.Sel.Name == s {
				pos := fset.Position(sel.Pos())
				out = append(out, use{pos: file + ":" + strconv.Itoa(pos.Line), name: path.Base(p) + "." + s})
			}
		}
		return true
	})
	return out
}

// The finder sees through the ways a start can be written: a renamed
// import, a method value, a Cmd literal, a dot import, x/sys/unix.
func TestProcessStartsAreFoundHoweverWritten(t *testing.T) {
	root := t.TempDir()
	src := `package p

import (
	run "os/exec"
	. "syscall"
	"golang.org/x/sys/unix"
	"os"
)

var start = run.Command

func f() {
	c := &run.Cmd{Path: "/bin/true"}
	_ = c.Run()
	_ = unix.Exec("/bin/true", nil, nil)
	_, _ = os.StartProcess("/bin/true", nil, nil)
	_, _ = run.LookPath("true")
	_ = Getpid()
}
`
	if err := os.WriteFile(filepath.Join(root, "p.go"), []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, u := range processStarts(t, root, "p.go") {
		got = append(got, u.name)
	}
	want := []string{"dot import of syscall", "exec.Command", "exec.Cmd", "unix.Exec", "os.StartProcess"}
	if !slices.Equal(got, want) {
		t.Errorf("found %q, want %q", got, want)
	}
}
