package prompt_test

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/shiro-neko/shiro/internal/agent"
	"github.com/shiro-neko/shiro/internal/app"
	"github.com/shiro-neko/shiro/internal/config"
	"github.com/shiro-neko/shiro/internal/llm/llmtest"
	"github.com/shiro-neko/shiro/internal/protocol"
)

// openApp assembles and starts a real session (app.Open: tools, plugins,
// skills, memory, prompt) in cwd, speaking preset's protocol to the server
// at url. State lives in a fresh SHIRO_HOME. The session is attended, as
// in the terminal UI, so the request offers what a person's session
// offers; no script here makes a call that asks (see runTurn).
func openApp(t testing.TB, url, preset, cwd string, mutate func(*app.Options)) *app.App {
	t.Helper()
	return openAppHome(t, url, preset, cwd, t.TempDir(), mutate)
}

func openAppHome(t testing.TB, url, preset, cwd, home string, mutate func(*app.Options)) *app.App {
	t.Helper()
	loaded, err := load(url, preset, cwd, home)
	if err != nil {
		t.Fatal(err)
	}
	loaded.Settings.MaxRetries = 0
	// No language server: the figures measured here must not depend on
	// whether this machine has gopls installed (it adds five tools).
	opts := app.Options{Loaded: loaded, Attended: true, NoLSP: true}
	if mutate != nil {
		mutate(&opts)
	}
	a, err := app.Open(context.Background(), opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(a.Close)
	return a
}

// load reads the configuration as the CLI does, with home as SHIRO_HOME
// and HOME.
func load(url, preset, cwd, home string) (app.Loaded, error) {
	env := map[string]string{"SHIRO_HOME": home, "SHIRO_API_KEY": "test-key", "HOME": home}
	return app.Load(func(k string) string { return env[k] }, cwd,
		config.Flags{Provider: preset, BaseURL: url, Model: "test-model"})
}

// writeUserConfig writes the config file of the SHIRO_HOME home.
func writeUserConfig(t testing.TB, home, body string) string {
	t.Helper()
	paths, err := config.PathsFromEnv(func(k string) string { return map[string]string{"SHIRO_HOME": home}[k] })
	if err != nil {
		t.Fatal(err)
	}
	file := paths.ConfigFile()
	if err := os.MkdirAll(filepath.Dir(file), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(file, []byte(body), 0o600); err != nil {
		t.Fatal(err)
	}
	return file
}

// writeProjectConfig writes the project config of the workspace work.
func writeProjectConfig(t testing.TB, work, body string) string {
	t.Helper()
	file := filepath.Join(config.ProjectDir(work), "config.json")
	if err := os.MkdirAll(filepath.Dir(file), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(file, []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
	return file
}

func yolo(o *app.Options) { o.Yolo = true }

// runTurn sends prompt and returns the turn's events, up to and including
// its DoneEvent. A failed turn fails the test. The person declines the
// third identical call of a turn, which the gate puts to them (the scripts
// cycle through a few files, as a looping model would); any other request
// for a person fails the test: these scripts make none, and an answer
// nobody planned would change what the measurements count.
func runTurn(t testing.TB, s *agent.Session, prompt string) []protocol.Event {
	t.Helper()
	var evs []protocol.Event
	for e := range s.Send(context.Background(), prompt) {
		switch e := e.(type) {
		case protocol.ErrorEvent:
			t.Fatalf("turn failed: %s", e.Error)
		case protocol.ApprovalRequestEvent:
			if !e.Repeated {
				t.Fatalf("unexpected approval request for %s %s", e.Name, e.Input)
			}
			if _, err := s.Submit(protocol.Approval{ID: e.ID, Decision: protocol.No}); err != nil {
				t.Fatalf("declining a repeated call: %v", err)
			}
		case protocol.QuestionEvent:
			t.Fatalf("unexpected question: %s", e.Question)
		}
		evs = append(evs, e)
	}
	if len(evs) == 0 {
		t.Fatal("the turn yielded no events")
	}
	if done, ok := evs[len(evs)-1].(protocol.DoneEvent); !ok || done.Reason != protocol.StopEnd || done.Usage == nil {
		t.Fatalf("the turn did not end normally: last event %#v", evs[len(evs)-1])
	}
	return evs
}

// runCommand runs a slash command on an idle session and returns its
// result.
func runCommand(t testing.TB, s *agent.Session, line string) protocol.CommandResultEvent {
	t.Helper()
	if _, err := s.Submit(protocol.Command{Line: line}); err != nil {
		t.Fatal(err)
	}
	for e := range s.Events() {
		if r, ok := e.(protocol.CommandResultEvent); ok {
			return r
		}
	}
	t.Fatalf("the session closed before %s answered", line)
	return protocol.CommandResultEvent{}
}

// repoRoot is this repository's root, for measurements "on this
// repository"; the sessions only read it.
func repoRoot(t testing.TB) string {
	t.Helper()
	root, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(root, "go.mod")); err != nil {
		t.Skip("not inside the repository")
	}
	return root
}

// gitRepo makes a temporary git repository (a .git directory is enough
// for shiro) holding files, each with the given content.
func gitRepo(t testing.TB, files map[string]string) string {
	t.Helper()
	root := t.TempDir()
	if err := os.Mkdir(filepath.Join(root, ".git"), 0o755); err != nil {
		t.Fatal(err)
	}
	for name, body := range files {
		p := filepath.Join(root, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return root
}

// shortSession scripts a turn of n model calls in which each call but the
// last makes one call of a short result (call gives it for the step) and
// no task list is kept: the shape of the sessions issue 27 benchmarked,
// where what is new each step is a few hundred bytes.
func shortSession(n int, call func(step int) llmtest.ToolCall) []llmtest.Reply {
	var replies []llmtest.Reply
	for step := 1; step < n; step++ {
		replies = append(replies, llmtest.Reply{Text: fmt.Sprintf("Step %d.", step), ToolCalls: []llmtest.ToolCall{call(step)}})
	}
	return append(replies, llmtest.Reply{Text: "Done."})
}

// shortSteps are the calls of the short sessions: a small file read, a
// grep with a few hits, a glob.
var shortSteps = []struct {
	name string
	call func(step int) llmtest.ToolCall
}{
	{"read_file of a 0.7 KB file", func(s int) llmtest.ToolCall {
		return llmtest.ToolCall{ID: fmt.Sprintf("read%d", s), Name: "read_file", Input: `{"path":"internal/version/version.go"}`}
	}},
	{"grep with a few hits", func(s int) llmtest.ToolCall {
		return llmtest.ToolCall{ID: fmt.Sprintf("grep%d", s), Name: "grep", Input: `{"pattern":"func Start","path":"internal/agent"}`}
	}},
	{"glob", func(s int) llmtest.ToolCall {
		return llmtest.ToolCall{ID: fmt.Sprintf("glob%d", s), Name: "glob", Input: `{"pattern":"cmd/*/main.go"}`}
	}},
}

// measureShort runs a short session of n steps and returns its simulation.
func measureShort(t testing.TB, n int, call func(step int) llmtest.ToolCall) *cacheSim {
	t.Helper()
	srv := newCachingServer(t, shortSession(n, call)...)
	a := openApp(t, srv.URL, "anthropic", repoRoot(t), nil)
	runTurn(t, a.Session, "go")
	if got := len(srv.upstream.ModelCalls()); got != n {
		t.Fatalf("%d model calls, want %d", got, n)
	}
	return srv.sim
}

// taskSession scripts a turn of n model calls. Each call but the last
// rewrites the task list (so the volatile part changes every step), reads
// one of files, and every third one remembers something (memory changes
// too); the last call answers.
func taskSession(n int, files []string) []llmtest.Reply {
	var replies []llmtest.Reply
	for step := 1; step < n; step++ {
		var todos []map[string]string
		for i := 1; i < n; i++ {
			status := "pending"
			switch {
			case i < step:
				status = "done"
			case i == step:
				status = "in_progress"
			}
			todos = append(todos, map[string]string{"content": fmt.Sprintf("step %d of the plan", i), "status": status})
		}
		list, _ := json.Marshal(map[string]any{"todos": todos})
		path, _ := json.Marshal(map[string]string{"path": files[step%len(files)]})
		calls := []llmtest.ToolCall{
			{ID: fmt.Sprintf("todo%d", step), Name: "todo_write", Input: string(list)},
			{ID: fmt.Sprintf("read%d", step), Name: "read_file", Input: string(path)},
		}
		if step%3 == 0 {
			fact, _ := json.Marshal(map[string]string{"kind": "fact", "text": fmt.Sprintf("finding number %d about this code", step)})
			calls = append(calls, llmtest.ToolCall{ID: fmt.Sprintf("mem%d", step), Name: "remember", Input: string(fact)})
		}
		replies = append(replies, llmtest.Reply{Text: fmt.Sprintf("Working on step %d.", step), ToolCalls: calls})
	}
	return append(replies, llmtest.Reply{Text: "All steps are done."})
}

// body is a decoded request body.
type body map[string]any

func decode(t testing.TB, r llmtest.Request) body {
	t.Helper()
	var b body
	if err := json.Unmarshal(r.Body, &b); err != nil {
		t.Fatalf("request body: %v", err)
	}
	return b
}

// toolNames lists the request's tool names (both wire formats).
func (b body) toolNames() []string {
	var names []string
	tools, _ := b["tools"].([]any)
	for _, x := range tools {
		m := x.(map[string]any)
		if n, ok := m["name"].(string); ok {
			names = append(names, n)
		} else if f, ok := m["function"].(map[string]any); ok {
			names = append(names, f["name"].(string))
		}
	}
	return names
}

// system returns the Anthropic system blocks.
func (b body) system() []map[string]any {
	var out []map[string]any
	sys, _ := b["system"].([]any)
	for _, x := range sys {
		out = append(out, x.(map[string]any))
	}
	return out
}

// lastBlocks returns the content blocks of the last Anthropic message.
func (b body) lastBlocks() []map[string]any {
	msgs := b["messages"].([]any)
	last := msgs[len(msgs)-1].(map[string]any)
	var out []map[string]any
	for _, x := range last["content"].([]any) {
		out = append(out, x.(map[string]any))
	}
	return out
}

// promptToolNames reads the tool names from the prompt's "Tools available
// to you now" section.
func promptToolNames(t testing.TB, system string) []string {
	t.Helper()
	_, section, ok := strings.Cut(system, "# Tools available to you now\n")
	if !ok {
		t.Fatalf("no tools section in:\n%s", system)
	}
	section, _, _ = strings.Cut(section, "\n\n")
	var names []string
	for _, line := range strings.Split(section, "\n") {
		head, _, ok := strings.Cut(strings.TrimPrefix(line, "- "), ": ")
		if !ok {
			t.Fatalf("tools section line %q", line)
		}
		names = append(names, strings.Split(head, ", ")...)
	}
	slices.Sort(names)
	return names
}
