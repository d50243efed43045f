package prompt_test

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/shiro-neko/shiro/internal/agent"
	"github.com/shiro-neko/shiro/internal/app"
	"github.com/shiro-neko/shiro/internal/config"
	"github.com/shiro-neko/shiro/internal/llm/llmtest"
	"github.com/shiro-neko/shiro/internal/memory"
	"github.com/shiro-neko/shiro/internal/protocol"
	"github.com/shiro-neko/shiro/internal/skills"
	"github.com/shiro-neko/shiro/internal/workflow"
)

// firstRequest runs a one-reply turn and returns the decoded request and
// its system prompt (all system text, stable and volatile).
func firstRequest(t *testing.T, preset string, cwd string, mutate func(*app.Options)) (*app.App, body, string) {
	t.Helper()
	srv := llmtest.New(t, llmtest.Reply{Text: "ok"})
	a := openApp(t, srv.URL, preset, cwd, mutate)
	runTurn(t, a.Session, "hi")
	b := decode(t, srv.ModelCalls()[0])
	var sys []string
	for _, s := range b.system() {
		sys = append(sys, s["text"].(string))
	}
	return a, b, strings.Join(sys, "\n")
}

// The request's tool list and the prompt's tool section come from the one
// ActiveTools list: for the default sets, a config that narrows toolSets
// to core, an unattended session and each agent variant, they name the
// same tools.
func TestRequestToolsAndPromptToolsAgree(t *testing.T) {
	type setup struct {
		project string // the project's .shiro/config.json, if any
		mutate  func(*app.Options)
	}
	cases := map[string]setup{
		"default":    {},
		"core only":  {project: `{"toolSets": []}`},
		"unattended": {mutate: func(o *app.Options) { o.Attended = false }},
	}
	for _, v := range agent.Variants() {
		cases["variant "+v.Name] = setup{mutate: func(o *app.Options) { o.Settings.Agent = v.Name }}
	}
	for name, c := range cases {
		t.Run(name, func(t *testing.T) {
			work := t.TempDir()
			if c.project != "" {
				writeProjectConfig(t, work, c.project)
			}
			a, b, system := firstRequest(t, "anthropic", work, c.mutate)
			reqNames := b.toolNames()
			if got := promptToolNames(t, system); !slices.Equal(got, reqNames) {
				t.Fatalf("request tools %v\nprompt tools  %v", reqNames, got)
			}
			var active []string
			for _, tool := range a.Owner().ActiveTools() {
				active = append(active, tool.Info().Name)
			}
			if !slices.Equal(active, reqNames) {
				t.Fatalf("ActiveTools %v, request %v", active, reqNames)
			}
			// What each case withholds, it withholds from both.
			switch name {
			case "default":
				for _, want := range []string{"ask", "task", "tool_search"} {
					if !slices.Contains(reqNames, want) {
						t.Errorf("the default session does not offer %s: %v", want, reqNames)
					}
				}
				// The rarely used tools wait behind tool_search, which names them.
				for _, later := range []string{"git_status", "outline"} {
					if slices.Contains(reqNames, later) || !strings.Contains(toolDescription(b, "tool_search"), later) {
						t.Errorf("%s should be offered on demand, through tool_search: %v", later, reqNames)
					}
				}
			case "core only":
				for _, gone := range []string{"git_status", "outline", "apply_patch"} {
					if slices.Contains(reqNames, gone) {
						t.Errorf("toolSets [] (core only) offers %s", gone)
					}
				}
				if !slices.Contains(reqNames, "read_file") || !slices.Contains(reqNames, "todo_write") {
					t.Errorf("core and session tools stay: %v", reqNames)
				}
			case "unattended":
				if slices.Contains(reqNames, "ask") || !slices.Contains(reqNames, "task") {
					t.Errorf("an unattended session withholds ask (nobody would answer) and keeps task: %v", reqNames)
				}
			}
		})
	}
}

// A toolSets entry that names no tool set is an error naming the file,
// the field and the valid sets, before anything starts, in the user's own
// config. In a project's, which a clone brings along typos and all, it is
// a problem said at start with the same words, and the session starts
// (issue 23).
func TestUnknownToolSetIsAnErrorNamingFileAndField(t *testing.T) {
	home := t.TempDir()
	userFile := writeUserConfig(t, home, `{"toolSets": ["core", "bogus"]}`)
	_, err := load("http://127.0.0.1:1/v1", "anthropic", t.TempDir(), home)
	if err == nil {
		t.Fatalf("%s with an unknown tool set loaded without an error", userFile)
	}
	checkToolSetError(t, err.Error(), userFile)

	work := t.TempDir()
	projectFile := writeProjectConfig(t, work, `{"toolSets": ["git", "bogus"]}`)
	l, err := load("http://127.0.0.1:1/v1", "anthropic", work, t.TempDir())
	if err != nil {
		t.Fatalf("a project's unknown tool set stops the session: %v", err)
	}
	var said []string
	for _, p := range l.ConfigProblems() {
		said = append(said, p.String())
	}
	checkToolSetError(t, strings.Join(said, "\n"), projectFile)
}

func checkToolSetError(t *testing.T, msg, file string) {
	t.Helper()
	for _, want := range []string{file, `field "toolSets"`, `"bogus"`, "core, edit-plus, nav, extra, git, net"} {
		if !strings.Contains(msg, want) {
			t.Errorf("error %q does not say %s", msg, want)
		}
	}
}

// Read-only variants withhold the write tools from the request and from
// the prompt alike.
func TestReadOnlyVariantsWithholdWriteTools(t *testing.T) {
	writers := []string{"write_file", "edit_file", "multi_edit", "apply_patch", "bash", "bash_stop", "run_checks"}
	for _, name := range []string{"plan", "review"} {
		_, b, system := firstRequest(t, "anthropic", t.TempDir(), func(o *app.Options) { o.Settings.Agent = name })
		for _, w := range writers {
			if slices.Contains(b.toolNames(), w) {
				t.Errorf("%s: the request offers %s", name, w)
			}
			if strings.Contains(system, "- "+w+":") || strings.Contains(system, w+": ") {
				t.Errorf("%s: the prompt describes %s", name, w)
			}
		}
		if !strings.Contains(system, "You are the "+name+" agent") {
			t.Errorf("%s: appendix missing", name)
		}
		for _, keep := range []string{"read_file", "grep", "todo_write", "remember", "tool_search"} {
			if !slices.Contains(b.toolNames(), keep) {
				t.Errorf("%s: %s should stay", name, keep)
			}
		}
	}
	_, b, system := firstRequest(t, "anthropic", t.TempDir(), nil)
	if !slices.Contains(b.toolNames(), "write_file") || !strings.Contains(system, "- write_file:") {
		t.Fatal("the default agent offers and describes write_file")
	}
}

// forget destroys what earlier sessions learned, so the read-only agents
// are not offered it (docs/memory.md), though it runs without asking.
func TestReadOnlyVariantsWithholdForget(t *testing.T) {
	for _, name := range []string{"plan", "review"} {
		_, b, system := firstRequest(t, "anthropic", t.TempDir(), func(o *app.Options) { o.Settings.Agent = name })
		if slices.Contains(b.toolNames(), "forget") || strings.Contains(system, "- forget:") {
			t.Errorf("%s: forget is offered to a read-only agent", name)
		}
	}
	_, b, _ := firstRequest(t, "anthropic", t.TempDir(), nil)
	if !strings.Contains(toolDescription(b, "tool_search"), "forget") {
		t.Fatal("the default agent can load forget")
	}
}

func TestNoSkillsDropsTheCatalogue(t *testing.T) {
	_, b, system := firstRequest(t, "anthropic", t.TempDir(), nil)
	if !strings.Contains(system, skills.PromptHeader) || !strings.Contains(system, "- plan: ") || !slices.Contains(b.toolNames(), "skill") {
		t.Fatal("the default prompt carries the skill catalogue and the skill tool")
	}
	_, b, system = firstRequest(t, "anthropic", t.TempDir(), func(o *app.Options) { o.NoSkills = true })
	if strings.Contains(system, skills.PromptHeader) || slices.Contains(b.toolNames(), "skill") {
		t.Fatal("--no-skills must drop the catalogue and the tool")
	}
}

func TestNoInstructionsDropsTheFiles(t *testing.T) {
	repo := gitRepo(t, map[string]string{"AGENTS.md": "Always run make check.", "TODO.md": "- [ ] ship v2"})
	_, _, system := firstRequest(t, "anthropic", repo, nil)
	if !strings.Contains(system, "--- Project instructions (AGENTS.md)") || !strings.Contains(system, "Always run make check.") ||
		!strings.Contains(system, "--- Project tracker (TODO.md)") {
		t.Fatalf("instruction files missing:\n%s", system)
	}
	_, _, system = firstRequest(t, "anthropic", repo, func(o *app.Options) { o.NoInstructions = true })
	if strings.Contains(system, "Always run make check.") || strings.Contains(system, "ship v2") {
		t.Fatal("--no-instructions must leave the files out")
	}
	if !strings.Contains(system, workflow.PlanLine) {
		t.Fatal("the workflow policy does not depend on --no-instructions")
	}
}

// Memory: remember writes the project's file under SHIRO_HOME, the next
// step carries the boot block in the volatile part (never the stable
// one), and a new session in the same project starts with it.
func TestMemoryThroughTheSession(t *testing.T) {
	work := t.TempDir()
	home := t.TempDir()
	srv := llmtest.New(t,
		llmtest.Reply{ToolCalls: []llmtest.ToolCall{{ID: "m", Name: "remember", Input: `{"kind":"gotcha","text":"The fixtures need TZ=UTC."}`}}},
		llmtest.Reply{Text: "noted"},
		llmtest.Reply{Text: "hello again"},
	)
	a := openAppHome(t, srv.URL, "anthropic", work, home, nil)
	runTurn(t, a.Session, "remember this")
	calls := srv.ModelCalls()
	first, second := decode(t, calls[0]), decode(t, calls[1])
	if first.system()[0]["text"] != second.system()[0]["text"] {
		t.Fatal("remembering changed the stable prefix")
	}
	blocks := second.lastBlocks()
	tail := blocks[len(blocks)-1]["text"].(string)
	if !strings.Contains(tail, memory.BootHeader+"\n- (gotcha) The fixtures need TZ=UTC.") {
		t.Fatalf("tail lacks the boot block:\n%s", tail)
	}
	paths, _ := config.PathsFromEnv(func(k string) string { return map[string]string{"SHIRO_HOME": home}[k] })
	if _, err := os.Stat(paths.Memory(a.Env.Root)); err != nil {
		t.Fatalf("memory file: %v", err)
	}

	again := openAppHome(t, srv.URL, "anthropic", work, home, nil)
	runTurn(t, again.Session, "hi")
	blocks = decode(t, srv.ModelCalls()[2]).lastBlocks()
	if !strings.Contains(blocks[len(blocks)-1]["text"].(string), "TZ=UTC") {
		t.Fatal("a restarted session does not see the memory")
	}
}

func TestNoMemoryNeitherLoadsNorWrites(t *testing.T) {
	work, home := t.TempDir(), t.TempDir()
	srv := llmtest.New(t,
		llmtest.Reply{ToolCalls: []llmtest.ToolCall{{ID: "m", Name: "remember", Input: `{"kind":"fact","text":"x marks the spot"}`}}},
		llmtest.Reply{Text: "ok"},
	)
	a := openAppHome(t, srv.URL, "anthropic", work, home, func(o *app.Options) { o.NoMemory = true })
	evs := runTurn(t, a.Session, "remember")
	if a.Memory != nil {
		t.Fatal("memory opened under --no-memory")
	}
	for _, name := range []string{"remember", "recall", "forget"} {
		if slices.Contains(decode(t, srv.ModelCalls()[0]).toolNames(), name) {
			t.Errorf("%s offered under --no-memory", name)
		}
	}
	if e, ok := find[protocol.ToolErrorEvent](evs); !ok || e.Name != "remember" || !strings.Contains(e.Error, "not offered") {
		t.Fatalf("the call should fail as not offered: %v", evs)
	}
	if _, err := os.Stat(filepath.Join(home, ".shiro-neko", "memory")); !os.IsNotExist(err) {
		t.Fatal("--no-memory wrote a memory file")
	}
}

// Tracker files created mid-session switch the workflow policy on at the
// next turn (the original checked once per session), and the nudge ladder
// runs through the app's observers.
func TestWorkflowFollowsTheWorkspace(t *testing.T) {
	repo := gitRepo(t, map[string]string{"main.go": "package main\n"})
	srv := llmtest.New(t,
		llmtest.Reply{ToolCalls: []llmtest.ToolCall{{ID: "w", Name: "write_file", Input: `{"path":"TODO.md","content":"# TODO\n- [ ] tests\n"}`}}},
		llmtest.Reply{Text: "created"},
		llmtest.Reply{ToolCalls: []llmtest.ToolCall{{ID: "e", Name: "write_file", Input: `{"path":"lib.go","content":"package main\n"}`}}},
		llmtest.Reply{Text: "wrote lib.go"},
	)
	a := openApp(t, srv.URL, "anthropic", repo, yolo)
	runTurn(t, a.Session, "make a TODO")
	evs := runTurn(t, a.Session, "write lib.go")
	calls := srv.ModelCalls()
	before, after := decode(t, calls[1]).system()[0]["text"].(string), decode(t, calls[2]).system()[0]["text"].(string)
	if strings.Contains(before, "# Project workflow") || !strings.Contains(after, "# Project workflow") || !strings.Contains(after, workflow.PlanLine) {
		t.Fatal("the policy must switch on once TODO.md exists")
	}
	if !strings.Contains(after, "--- Project tracker (TODO.md)") {
		t.Fatal("the tracker file must load at the next turn")
	}
	if !strings.Contains(after, "TODO.md\n") {
		t.Fatal("the overview must list the new file")
	}
	var notices []string
	for _, e := range evs {
		if n, ok := e.(protocol.NoticeEvent); ok {
			notices = append(notices, n.Text)
		}
	}
	if len(notices) != 1 || !strings.HasPrefix(notices[0], "reminder: you modified files without updating the project task list") {
		t.Fatalf("notices = %q", notices)
	}
}

func find[T protocol.Event](evs []protocol.Event) (T, bool) {
	for _, e := range evs {
		if v, ok := e.(T); ok {
			return v, true
		}
	}
	var zero T
	return zero, false
}
