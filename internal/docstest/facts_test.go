package docstest

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/shiro-neko/shiro/internal/app"
	"github.com/shiro-neko/shiro/internal/cli"
	"github.com/shiro-neko/shiro/internal/config"
	"github.com/shiro-neko/shiro/internal/llm/replay"
	"github.com/shiro-neko/shiro/internal/protocol"
	"github.com/shiro-neko/shiro/internal/tool"
)

// facts is what the code says, gathered once: the checks compare the docs
// with it.
type facts struct {
	repo string // the module root
	// cli is shiro's command tree; longFlags is every long flag of any
	// command in it.
	cli       *cobra.Command
	longFlags map[string]bool
	// slash are the session's slash commands (names and aliases).
	slash map[string]bool
	// tools are the tools a full, attended session registers, and the
	// package that defines each.
	tools    map[string]*tool.Info
	packages map[string]string
	// state are the paths config.Paths produces, relative to
	// $SHIRO_HOME/.shiro-neko, with a project key written <key>.
	state []string
	// tests are the names of the test, benchmark and fuzz functions.
	tests map[string]bool
	// sets is what each tool set costs in the default configuration.
	cost toolCost
}

// inertCommandTree is the tree Run executes, bound to no real streams or
// environment: inspect it, do not execute it.
func inertCommandTree() *cobra.Command {
	return cli.CommandTree(cli.IO{
		In: strings.NewReader(""), Out: io.Discard, Err: io.Discard,
		Getenv: func(string) string { return "" },
		Getwd:  func() (string, error) { return "", nil },
	})
}

func gather(t *testing.T) *facts {
	t.Helper()
	f := &facts{repo: moduleRoot(t), cli: inertCommandTree(), slash: map[string]bool{}}
	f.longFlags = map[string]bool{}
	walkCommands(f.cli, func(c *cobra.Command) {
		c.Flags().VisitAll(func(fl *pflag.Flag) { f.longFlags[fl.Name] = true })
	})
	f.tools, f.packages, f.cost = sessionTools(t, f.slash)
	f.state = statePaths()
	f.tests = testNames(t, f.repo)
	return f
}

func walkCommands(c *cobra.Command, visit func(*cobra.Command)) {
	visit(c)
	for _, sub := range c.Commands() {
		walkCommands(sub, visit)
	}
}

// sessionTools opens a session in the default configuration, as the
// terminal UI does (attended) and as headless mode does (not), and reads
// what its tools say of themselves, and the slash commands it announces
// (its commands event, as every front end learns them) into slash.
func sessionTools(t *testing.T, slash map[string]bool) (map[string]*tool.Info, map[string]string, toolCost) {
	t.Helper()
	home, work := t.TempDir(), t.TempDir()
	env := map[string]string{"SHIRO_HOME": home, "HOME": home}
	loaded, err := app.Load(func(k string) string { return env[k] }, work, config.Flags{Provider: "replay"})
	if err != nil {
		t.Fatal(err)
	}
	var cost toolCost
	infos, pkgs := map[string]*tool.Info{}, map[string]string{}
	for _, attended := range []bool{true, false} {
		a, err := app.Open(t.Context(), app.Options{Loaded: loaded, Attended: attended, Provider: replay.New("docs", nil)})
		if err != nil {
			t.Fatal(err)
		}
		var active []*tool.Info
		for _, tl := range a.Owner().ActiveTools() {
			active = append(active, tl.Info())
		}
		if attended {
			for _, c := range announcedCommands(t, a) {
				slash[c.Name] = true
				for _, alias := range c.Aliases {
					slash[alias] = true
				}
			}
			for _, name := range a.Tools.Names() {
				tl, _ := a.Tools.Get(name)
				infos[name] = tl.Info()
				pkgs[name] = packageOf(tl)
			}
			cost.attended = active
		} else {
			cost.unattended = active
		}
		a.Close()
	}
	return infos, pkgs, cost
}

// packageOf names the package that defines a tool: the package of its
// input type for a tool built with tool.New (a *tool.typed[In]), else the
// package of its own type.
func packageOf(tl tool.Tool) string {
	if w, ok := tl.(interface{ Unwrap() tool.Tool }); ok { // an on-demand tool
		tl = w.Unwrap()
	}
	rt := reflect.TypeOf(tl)
	for rt.Kind() == reflect.Pointer {
		rt = rt.Elem()
	}
	path := rt.PkgPath()
	if open := strings.IndexByte(rt.Name(), '['); open >= 0 {
		arg := strings.TrimSuffix(rt.Name()[open+1:], "]")
		if dot := strings.LastIndexByte(arg, '.'); dot >= 0 {
			path = arg[:dot]
		}
	}
	return strings.TrimPrefix(path, "github.com/shiro-neko/shiro/")
}

// announcedCommands reads a new session's events up to its commands event.
func announcedCommands(t *testing.T, a *app.App) []protocol.CommandInfo {
	t.Helper()
	for e := range a.Session.Events() {
		if c, ok := e.(protocol.CommandsEvent); ok {
			return c.Commands
		}
	}
	t.Fatal("the session closed without announcing its slash commands")
	return nil
}

// statePaths are the paths config.Paths produces under the state
// directory, found by calling every method that returns a path, so a new
// one is known here the moment it exists.
func statePaths() []string {
	const home, project = "/home/docs", "/project/docs"
	p := config.Paths{Home: home}
	state := p.State()
	v := reflect.ValueOf(p)
	var out []string
	for i := range v.NumMethod() {
		m := v.Method(i)
		mt := m.Type()
		if mt.NumOut() != 1 || mt.Out(0).Kind() != reflect.String {
			continue
		}
		var res []reflect.Value
		switch {
		case mt.NumIn() == 0:
			res = m.Call(nil)
		case mt.NumIn() == 1 && mt.In(0).Kind() == reflect.String:
			res = m.Call([]reflect.Value{reflect.ValueOf(project)})
		default:
			continue
		}
		rel, err := filepath.Rel(state, res[0].String())
		if err != nil || rel == "." || strings.HasPrefix(rel, "..") {
			continue
		}
		rel = strings.ReplaceAll(filepath.ToSlash(rel), config.ProjectKey(project), "<key>")
		out = append(out, rel)
	}
	slices.Sort(out)
	return out
}

// testNames collects every Test, Benchmark and Fuzz function of the
// module, so a doc that names one can be checked.
func testNames(t *testing.T, repo string) map[string]bool {
	t.Helper()
	names := map[string]bool{}
	err := filepath.WalkDir(repo, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && (d.Name() == "testdata" || strings.HasPrefix(d.Name(), ".")) && path != repo {
			return fs.SkipDir
		}
		if d.IsDir() || !strings.HasSuffix(path, "_test.go") {
			return nil
		}
		f, err := parser.ParseFile(token.NewFileSet(), path, nil, parser.SkipObjectResolution)
		if err != nil {
			return err
		}
		for _, decl := range f.Decls {
			if fn, ok := decl.(*ast.FuncDecl); ok && fn.Recv == nil {
				names[fn.Name.Name] = true
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return names
}

func moduleRoot(t *testing.T) string {
	t.Helper()
	dir, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return dir
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			t.Fatal("no go.mod above the test")
		}
		dir = parent
	}
}
