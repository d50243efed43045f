package commands_test

import (
	"context"
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/shiro-neko/shiro/internal/agent"
	"github.com/shiro-neko/shiro/internal/catalog"
	"github.com/shiro-neko/shiro/internal/commands"
	"github.com/shiro-neko/shiro/internal/hooks"
	"github.com/shiro-neko/shiro/internal/llm"
	"github.com/shiro-neko/shiro/internal/llm/replay"
	"github.com/shiro-neko/shiro/internal/plugin"
	"github.com/shiro-neko/shiro/internal/protocol"
	"github.com/shiro-neko/shiro/internal/registry"
	"github.com/shiro-neko/shiro/internal/tool"
)

// fakeHost is a Host over a real session; the parts a test does not set
// say so.
type fakeHost struct {
	session   *agent.Owner
	reg       *tool.Registry
	models    []string
	jobs      *fakeJobs
	scaffold  bool
	reloaded  int
	scaffolds int
}

func (h *fakeHost) Session() *agent.Owner { return h.session }

// conversationOf is the session a fake host was given, as the
// conversation the set runs in (none when it has none).
func conversationOf(h commands.Host) commands.Conversation {
	if s, ok := h.(interface{ Session() *agent.Owner }); ok && s.Session() != nil {
		return s.Session()
	}
	return nil
}
func (h *fakeHost) Tools() *tool.Registry { return h.reg }
func (h *fakeHost) ProviderLabel() string { return "Test" }
func (h *fakeHost) ListModels(context.Context) ([]string, string, error) {
	if h.models == nil {
		return nil, "", errors.New("offline")
	}
	return h.models, "", nil
}
func (h *fakeHost) CacheLines() []string       { return []string{"cache: none"} }
func (h *fakeHost) Catalog() *catalog.Catalog  { return catalog.New(nil) }
func (h *fakeHost) Tasks() []protocol.Task     { return nil }
func (h *fakeHost) DescribeSkills() string     { return "skills\n" }
func (h *fakeHost) DescribePlugins() string    { return "plugins\n" }
func (h *fakeHost) Grants() []string           { return []string{"bash git status *", "bash ls *"} }
func (h *fakeHost) Hooks() *hooks.Runner       { return nil }
func (h *fakeHost) Registry() *registry.Client { return nil }
func (h *fakeHost) Jobs() commands.Jobs {
	if h.jobs == nil {
		return nil
	}
	return h.jobs
}
func (h *fakeHost) Reload()             { h.reloaded++ }
func (h *fakeHost) NeedsScaffold() bool { return h.scaffold }
func (h *fakeHost) Scaffold() ([]string, []string, error) {
	h.scaffolds++
	return []string{"TODO.md"}, []string{"docs/README.md"}, nil
}
func (h *fakeHost) InitPrompt(scaffolded bool) string {
	if scaffolded {
		return "write AGENTS.md (trackers made)"
	}
	return "write AGENTS.md"
}

type fakeJobs struct{ stopped []int }

func (j *fakeJobs) List() []commands.Job {
	return []commands.Job{{Handle: 1, Name: "old", Running: true}, {Handle: 3, Name: "dev", Running: true}, {Handle: 4, Name: "done"}}
}

func (j *fakeJobs) Stop(_ context.Context, h int) (commands.Job, error) {
	if h == 9 {
		return commands.Job{}, commands.ErrNoSuchJob
	}
	j.stopped = append(j.stopped, h)
	return commands.Job{Handle: h, Name: "x", Status: "stopped"}, nil
}

func newHost(t *testing.T, responses ...replay.Response) *fakeHost {
	t.Helper()
	reg, err := tool.NewRegistry()
	if err != nil {
		t.Fatal(err)
	}
	s, err := agent.Start(t.Context(), agent.Config{
		Provider: replay.New("t", responses), Model: "m1", SessionID: "t1", Cwd: t.TempDir(), Tools: reg,
		Gate: &agent.Gate{Plugins: plugin.NewHost()}, Prompter: prompter{}, Filter: tool.Filter{Sets: tool.DefaultSets()},
	})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_, _ = s.Submit(protocol.Shutdown{})
		for range s.Events() {
		}
	})
	return &fakeHost{session: s, reg: reg}
}

type prompter struct{}

func (prompter) Prompt([]tool.Tool, string) (string, string) { return "p", "" }

func run(t *testing.T, h *fakeHost, line string) (agent.CommandOutcome, error) {
	t.Helper()
	return runOn(t, h, line)
}

func TestAgentWithoutAnArgumentOffersChoices(t *testing.T) {
	h := newHost(t)
	out, err := run(t, h, "/agent")
	if err != nil {
		t.Fatal(err)
	}
	var lines []string
	for _, c := range out.Choices {
		lines = append(lines, c.Line)
	}
	if !slices.Contains(lines, "/agent plan") || !strings.Contains(out.Choices[0].Label, "(current)") {
		t.Fatalf("choices = %+v", out.Choices)
	}
}

// Settings commands go through the session's Configure: visible in the
// session's own state once no turn runs.
func TestSettingsCommandsConfigureTheSession(t *testing.T) {
	h := newHost(t)
	if _, err := run(t, h, "/agent review"); err != nil {
		t.Fatal(err)
	}
	if _, err := run(t, h, "/think low"); err != nil {
		t.Fatal(err)
	}
	if _, err := run(t, h, "/model m2"); err != nil {
		t.Fatal(err)
	}
	if v := h.session.Variant(); v.Name != "review" || v.Thinking != llm.ThinkLow || h.session.Model() != "m2" {
		t.Fatalf("variant %+v, model %s", v, h.session.Model())
	}
	if _, err := run(t, h, "/agent nope"); err == nil || !strings.Contains(err.Error(), "unknown agent") {
		t.Fatalf("unknown agent: %v", err)
	}
	if _, err := run(t, h, "/think hard"); err == nil {
		t.Fatal("an unknown thinking level was accepted")
	}
}

func TestModelsOffersPickableLines(t *testing.T) {
	h := newHost(t)
	if _, err := run(t, h, "/models"); err == nil || !strings.Contains(err.Error(), "offline") {
		t.Fatalf("err = %v", err)
	}
	h.models = []string{"m1", "m2"}
	out, err := run(t, h, "/model")
	if err != nil {
		t.Fatal(err)
	}
	if len(out.Choices) != 2 || out.Choices[0].Label != "m1 (current)" || out.Choices[1].Line != "/model m2" {
		t.Fatalf("choices = %+v", out.Choices)
	}
}

func TestInitAsksAboutTrackersThenPrompts(t *testing.T) {
	h := newHost(t)
	out, err := run(t, h, "/init")
	if err != nil || out.Prompt != "write AGENTS.md" || len(out.Choices) != 0 {
		t.Fatalf("without trackers missing: %+v %v", out, err)
	}
	h.scaffold = true
	out, _ = run(t, h, "/init")
	if out.Prompt != "" || len(out.Choices) != 2 || out.Choices[0].Line != "/init scaffold" {
		t.Fatalf("asks first: %+v", out)
	}
	out, _ = run(t, h, "/init scaffold")
	if h.scaffolds != 1 || out.Prompt != "write AGENTS.md (trackers made)" || !strings.Contains(out.Output, "wrote TODO.md") || !strings.Contains(out.Output, "left alone docs/README.md") {
		t.Fatalf("scaffold: %+v", out)
	}
}

func TestBashStopPicksJobs(t *testing.T) {
	h := newHost(t)
	h.jobs = &fakeJobs{}
	if _, err := run(t, h, "/bash stop newest"); err != nil {
		t.Fatal(err)
	}
	if _, err := run(t, h, "/bash stop all"); err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(h.jobs.stopped, []int{3, 1, 3}) {
		t.Fatalf("stopped %v", h.jobs.stopped)
	}
	if _, err := run(t, h, "/bash stop 9"); err == nil || !strings.Contains(err.Error(), "no background command 9") {
		t.Fatalf("unknown handle: %v", err)
	}
	if _, err := run(t, h, "/bash stop soon"); err == nil {
		t.Fatal("a bad target was accepted")
	}
}

func TestClearEmptiesTheConversation(t *testing.T) {
	h := newHost(t, replay.Response{llm.TextDelta{Text: "hi"}, llm.Finish{Reason: llm.StopEnd}})
	for range h.session.Send(t.Context(), "hello") {
	}
	h.session.Wait()
	if len(h.session.History()) != 2 {
		t.Fatalf("history = %d", len(h.session.History()))
	}
	if _, err := run(t, h, "/clear"); err != nil {
		t.Fatal(err)
	}
	if len(h.session.History()) != 0 {
		t.Fatal("history kept")
	}
}

func TestListAndImmediacy(t *testing.T) {
	s := commands.New(&fakeHost{}, conversationOf(&fakeHost{}))
	names := map[string]protocol.CommandInfo{}
	for _, c := range s.List() {
		names[c.Name] = c
	}
	if !names["cost"].Immediate || names["clear"].Immediate || names["init"].Immediate {
		t.Fatalf("list = %+v", s.List())
	}
	if !s.Immediate("/nonsense") || s.Immediate("/clear") || !s.Immediate("/COST") {
		t.Fatal("immediacy by line is wrong")
	}
	if _, err := s.Run(t.Context(), "/nonsense"); err == nil || !strings.Contains(err.Error(), "/help") {
		t.Fatalf("unknown command: %v", err)
	}
}

func TestHelpListsEveryCommand(t *testing.T) {
	out, err := commands.New(&fakeHost{}, conversationOf(&fakeHost{})).Run(t.Context(), "/help")
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range commands.New(&fakeHost{}, conversationOf(&fakeHost{})).List() {
		if !strings.Contains(out.Output, "/"+c.Name) {
			t.Errorf("/help misses /%s", c.Name)
		}
	}
}
