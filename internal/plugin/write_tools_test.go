package plugin_test

import (
	"context"
	"encoding/json"
	"slices"
	"testing"

	"github.com/shiro-neko/shiro/internal/plugin"
	"github.com/shiro-neko/shiro/internal/tool"
	"github.com/shiro-neko/shiro/internal/tools/bash"
	"github.com/shiro-neko/shiro/internal/tools/edit"
	"github.com/shiro-neko/shiro/internal/tools/files"
	"github.com/shiro-neko/shiro/internal/tools/patch"
	"github.com/shiro-neko/shiro/internal/workspace"
)

// callOf is a call as the gate hands it to the plugins: built from what
// the tool says of itself (Info) and of this call (the Plan of its input,
// decoded strictly). The gate also hands over its shell analyses; the Host
// makes them here.
func callOf(t *testing.T, tl tool.Tool, input, cwd string) plugin.Call {
	t.Helper()
	info := tl.Info()
	p, err := tl.Prepare(json.RawMessage(input))
	if err != nil {
		t.Fatalf("%s rejects %s: %v", info.Name, input, err)
	}
	plan := p.Plan()
	return plugin.Call{
		Tool: info.Name, Input: p.Input(), Cwd: cwd, Mutating: info.Effect.Mutating(),
		Writes: plan.Writes, Commands: plan.Commands,
	}
}

func workspaceEnv(t *testing.T) *workspace.Env {
	t.Helper()
	env, err := workspace.New(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	return env
}

// standInRole says what a stand-in's one argument is to its Plan.
type standInRole int

const (
	writesField standInRole = iota
	subjectField
)

// standIn is a tool known only by what it says of itself, standing for
// the tools other packages add (an MCP server's): its one string argument
// field is either what its calls write or only their subject.
func standIn(name string, effect tool.Effect, field string, role standInRole) tool.Tool {
	return tool.New(tool.Def[map[string]string]{
		Info: tool.Info{Name: name, Description: "a stand-in", Effect: effect, Subject: tool.PathSubject},
		Plan: func(in *map[string]string) tool.Plan {
			v := (*in)[field]
			if role == writesField {
				return tool.Plan{Subjects: []string{v}, Writes: []string{v}}
			}
			return tool.Plan{Subjects: []string{v}}
		},
		Run: func(context.Context, tool.Runtime, *map[string]string) (tool.Result, error) {
			return tool.Text("ran"), nil
		},
	})
}

// writeTools builds every tool that can change files: the real ones of
// the file, edit, patch and bash packages (bash without background
// commands, whose tools change no file), and a stand-in for an MCP tool.
func writeTools(env *workspace.Env) []tool.Tool {
	var all []tool.Tool
	all = append(all, files.Tools(env)...)
	all = append(all, edit.Tools(env)...)
	all = append(all, patch.Tools(env)...)
	all = append(all, bash.Tools(env, nil)...)
	return append(all, standIn("mcp__fs__write", tool.Writes, "file", writesField))
}

// inputFor builds a tool's input naming path as what it writes. Inputs
// are decoded strictly, so a new write tool with another input shape
// fails the test below until it is taught here, and none is silently
// skipped.
func inputFor(tool, path string) string {
	var v any
	switch tool {
	case "write_file":
		v = map[string]string{"path": path, "content": "x"}
	case "move_file":
		v = map[string]string{"from": "notes.txt", "to": path}
	case "edit_file":
		v = map[string]string{"path": path, "oldString": "a", "newString": "b"}
	case "multi_edit":
		v = map[string]any{"path": path, "edits": []map[string]string{{"oldString": "a", "newString": "b"}}}
	case "insert_lines":
		v = map[string]any{"path": path, "line": 1, "text": "x"}
	case "delete_lines":
		v = map[string]any{"path": path, "start": 1, "end": 1}
	case "replace_lines":
		v = map[string]any{"path": path, "start": 1, "end": 1, "text": "x"}
	case "append_file", "prepend_file":
		v = map[string]string{"path": path, "text": "x"}
	case "apply_patch":
		v = map[string]string{"patch": "*** Begin Patch\n*** Update File: " + path + "\n@@\n-a\n+b\n*** End Patch"}
	case "mcp__fs__write":
		v = map[string]string{"file": path}
	case "bash":
		v = map[string]string{"command": "printf 'x' > '" + path + "'"}
	default:
		v = map[string]string{"path": path}
	}
	b, _ := json.Marshal(v)
	return string(b)
}

// TestPathPluginsCoverEveryWriteTool enumerates every tool that changes
// things (the real ones and a stand-in for tools other packages add) and
// checks that secrets and protect refuse through each of them, keyed on
// what the tool's Plan says it writes or runs, never on its name.
func TestPathPluginsCoverEveryWriteTool(t *testing.T) {
	env := workspaceEnv(t)
	writers := 0
	for _, tl := range writeTools(env) {
		info := tl.Info()
		if !info.Effect.Mutating() {
			continue
		}
		writers++
		for _, tc := range []struct {
			p    plugin.Plugin
			path string
		}{
			{plugin.Secrets(), ".env"},
			{plugin.Secrets(), "config/.ssh/id_ed25519"},
			{plugin.Protect(""), ".git/config"},
			{plugin.Protect(""), "package-lock.json"},
		} {
			c := callOf(t, tl, inputFor(info.Name, tc.path), env.Root)
			if len(c.Writes) == 0 && len(c.Commands) == 0 {
				t.Fatalf("%s changes things but its Plan names neither writes nor commands, so no plugin can see what it changes", info.Name)
			}
			if len(c.Writes) > 0 && !slices.Contains(c.Writes, tc.path) {
				t.Fatalf("%s: Plan.Writes of %s = %q does not name %q; teach inputFor this tool's input", info.Name, c.Input, c.Writes, tc.path)
			}
			if !c.Mutating {
				t.Fatalf("%s: the call is not marked mutating", info.Name)
			}
			if reason := check(t, tc.p, c); reason == "" {
				t.Errorf("%s let %s write %q", tc.p.Name, info.Name, tc.path)
			}
			if reason := check(t, tc.p, callOf(t, tl, inputFor(info.Name, "src/ok.go"), env.Root)); reason != "" {
				t.Errorf("%s refused %s writing src/ok.go: %s", tc.p.Name, info.Name, reason)
			}
		}
	}
	if writers < 13 {
		t.Fatalf("only %d write tools enumerated", writers)
	}
}
