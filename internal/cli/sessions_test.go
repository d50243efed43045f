package cli

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/shiro-neko/shiro/internal/llm/llmtest"
	"github.com/shiro-neko/shiro/internal/protocol"
	"github.com/shiro-neko/shiro/internal/store"
)

func TestResumeFlagTakesTheNextWordAsTheID(t *testing.T) {
	for _, c := range []struct{ in, want []string }{
		{[]string{"-r", "3f2a"}, []string{"--resume=3f2a"}},
		{[]string{"--resume", "3f2a", "-p", "go"}, []string{"--resume=3f2a", "-p", "go"}},
		{[]string{"-r"}, []string{"-r"}},
		{[]string{"-r", "-p", "go"}, []string{"-r", "-p", "go"}},
		{[]string{"-p", "x", "--", "-r", "id"}, []string{"-p", "x", "--", "-r", "id"}},
	} {
		if got := normaliseResumeFlag(c.in); !slices.Equal(got, c.want) {
			t.Errorf("%q: got %q, want %q", c.in, got, c.want)
		}
	}
}

// project is a directory and a SHIRO_HOME that consecutive runs share.
type project struct {
	work, home string
	srv        *llmtest.Server
}

func newProject(t *testing.T, replies ...llmtest.Reply) *project {
	t.Helper()
	return &project{work: t.TempDir(), home: t.TempDir(), srv: llmtest.New(t, replies...)}
}

// run runs shiro in the project against its fake server.
func (p *project) run(t *testing.T, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	var out, errb strings.Builder
	env := map[string]string{"SHIRO_HOME": p.home, "HOME": p.home, "SHIRO_API_KEY": "test-key"}
	stdio := IO{
		In: strings.NewReader(""), Out: &out, Err: &syncWriter{b: &errb},
		Getenv: func(k string) string { return env[k] },
		Getwd:  func() (string, error) { return p.work, nil },
	}
	args = append(args, "--provider", "custom-anthropic", "--base-url", p.srv.URL, "--model", "m")
	code = Run(t.Context(), args, stdio)
	return code, out.String(), errb.String()
}

// sessions runs `shiro sessions ARGS`, which needs no server.
func (p *project) sessions(t *testing.T, args ...string) (int, string, string) {
	t.Helper()
	var out, errb strings.Builder
	env := map[string]string{"SHIRO_HOME": p.home, "HOME": p.home}
	stdio := IO{
		In: strings.NewReader(""), Out: &out, Err: &errb,
		Getenv: func(k string) string { return env[k] },
		Getwd:  func() (string, error) { return p.work, nil },
	}
	code := Run(t.Context(), append([]string{"sessions"}, args...), stdio)
	return code, out.String(), errb.String()
}

func TestHeadlessContinueCarriesTheHistory(t *testing.T) {
	p := newProject(t, llmtest.Reply{Text: "Noted: teal."}, llmtest.Reply{Text: "It was teal."})
	code, out, errb := p.run(t, "-p", "remember teal")
	if code != 0 || out != "Noted: teal.\n" {
		t.Fatalf("first run: %d %q %s", code, out, errb)
	}
	if !strings.Contains(errb, "Resume it with: shiro -c\n            or: shiro -r ") {
		t.Fatalf("no resume hint on stderr:\n%s", errb)
	}
	code, out, errb = p.run(t, "-c", "-p", "which colour?")
	if code != 0 || out != "It was teal.\n" {
		t.Fatalf("continued run: %d %q %s", code, out, errb)
	}
	if !strings.Contains(errb, `[notice] continuing session `) {
		t.Fatalf("stderr:\n%s", errb)
	}
	calls := p.srv.ModelCalls()
	var body struct {
		Messages []json.RawMessage `json:"messages"`
	}
	if err := json.Unmarshal(calls[1].Body, &body); err != nil {
		t.Fatal(err)
	}
	if len(body.Messages) != 3 || !strings.Contains(string(body.Messages[0]), "remember teal") ||
		!strings.Contains(string(body.Messages[1]), "Noted: teal.") || !strings.Contains(string(body.Messages[2]), "which colour?") {
		t.Fatalf("the continued request: %s", calls[1].Body)
	}
	// One session, four messages: -c added to it.
	code, out, _ = p.sessions(t, "list", "--json")
	var list []store.Session
	if err := json.Unmarshal([]byte(out), &list); err != nil || code != 0 {
		t.Fatalf("list --json: %d %v\n%s", code, err, out)
	}
	if len(list) != 1 || list[0].Messages != 4 || list[0].Title != "remember teal" {
		t.Fatalf("sessions %+v", list)
	}
}

func TestHeadlessResumeErrors(t *testing.T) {
	p := newProject(t)
	if code, _, errb := p.run(t, "-c", "-p", "hi"); code != 1 || !strings.Contains(errb, "no saved session for this directory") {
		t.Fatalf("-c with nothing saved: %d %s", code, errb)
	}
	if code, _, errb := p.run(t, "-r", "-p", "hi"); code != 1 || !strings.Contains(errb, "-r without an id opens a picker") {
		t.Fatalf("bare -r headless: %d %s", code, errb)
	}
	if code, _, errb := p.run(t, "-c", "-r", "ab", "-p", "hi"); code != 1 || !strings.Contains(errb, "pass one of them") {
		t.Fatalf("-c and -r: %d %s", code, errb)
	}
	if code, _, errb := p.run(t, "-r", "abcd", "-p", "hi"); code != 1 || !strings.Contains(errb, `no such session matching "abcd"`) {
		t.Fatalf("-r unknown: %d %s", code, errb)
	}
}

func TestAHeadlessSlashCommandPrintsItsOutput(t *testing.T) {
	p := newProject(t, llmtest.Reply{Text: "ok"})
	if code, _, errb := p.run(t, "-p", "start the parser work"); code != 0 {
		t.Fatalf("%d %s", code, errb)
	}
	code, out, errb := p.run(t, "-c", "-p", "/sessions")
	if code != 0 || !strings.Contains(out, "start the parser work") || !strings.Contains(out, "2 msg") || !strings.HasPrefix(out, "* ") {
		t.Fatalf("-c -p /sessions: %d\n%s\n%s", code, out, errb)
	}
	code, out, _ = p.run(t, "-p", "/sessions", "--json")
	if code != 0 || !strings.Contains(out, `"type":"command-result","op":"op1","command":"sessions"`) {
		t.Fatalf("--json: %d\n%s", code, out)
	}
	if code, _, _ = p.run(t, "-p", "/resume nothing-like-it"); code != 1 {
		t.Fatalf("a failing command exits %d, want 1", code)
	}
	if n := len(p.srv.ModelCalls()); n != 1 {
		t.Fatalf("slash commands called the model: %d calls", n)
	}
}

func TestSessionsSubcommands(t *testing.T) {
	p := newProject(t,
		llmtest.Reply{Text: "Reading.", ToolCalls: []llmtest.ToolCall{{ID: "c1", Name: "read_file", Input: `{"path":"notes.txt"}`}}},
		llmtest.Reply{Text: "The notes say hello."},
	)
	if err := os.WriteFile(filepath.Join(p.work, "notes.txt"), []byte("hello\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if code, _, errb := p.run(t, "-p", "read the notes"); code != 0 {
		t.Fatalf("%d %s", code, errb)
	}
	code, out, _ := p.sessions(t, "list")
	lines := strings.Split(strings.TrimSpace(out), "\n")
	if code != 0 || len(lines) != 2 || !strings.HasPrefix(lines[0], "ID") || !strings.Contains(lines[1], "read the notes") {
		t.Fatalf("list:\n%s", out)
	}
	id := strings.Fields(lines[1])[0]

	_, out, _ = p.sessions(t, "show", id)
	for _, want := range []string{"title:     read the notes", "messages:  4", "you:   read the notes", "[read_file] {\"path\":\"notes.txt\"}", "→ read_file ok", "shiro: The notes say hello."} {
		if !strings.Contains(out, want) {
			t.Errorf("show lacks %q:\n%s", want, out)
		}
	}
	code, out, _ = p.sessions(t, "show", id, "--json")
	var shown struct {
		ID    string          `json:"id"`
		Tasks []protocol.Task `json:"tasks"`
	}
	if err := json.Unmarshal([]byte(out), &shown); err != nil || code != 0 || !strings.HasPrefix(shown.ID, id) || shown.Tasks == nil {
		t.Fatalf("show --json: %v\n%s", err, out)
	}

	_, md, _ := p.sessions(t, "export", id)
	if !strings.HasPrefix(md, "# read the notes\n") || !strings.Contains(md, "**read_file**") || !strings.Contains(md, "1: hello") {
		t.Fatalf("export md:\n%s", md)
	}
	_, js, _ := p.sessions(t, "export", id, "--format", "json")
	var exported struct {
		Entries []store.Entry `json:"entries"`
	}
	if err := json.Unmarshal([]byte(js), &exported); err != nil || len(exported.Entries) != 4 {
		t.Fatalf("export json: %v\n%s", err, js)
	}
	if code, _, errb := p.sessions(t, "export", id, "--format", "pdf"); code != 1 || !strings.Contains(errb, "use md or json") {
		t.Fatalf("bad format: %d %s", code, errb)
	}

	_, out, _ = p.sessions(t, "search", "notes")
	if !strings.Contains(out, id) {
		t.Fatalf("search:\n%s", out)
	}
	code, out, _ = p.sessions(t, "rm", id)
	if code != 0 || !strings.HasPrefix(out, "removed ") {
		t.Fatalf("rm: %d %s", code, out)
	}
	if _, out, _ = p.sessions(t, "list", "--all"); out != "no saved sessions\n" {
		t.Fatalf("after rm:\n%s", out)
	}
	if _, out, _ = p.sessions(t, "list", "--json"); strings.TrimSpace(out) != "[]" {
		t.Fatalf("empty list --json: %q", out)
	}
	if code, _, errb := p.sessions(t, "show", id); code != 1 || !strings.Contains(errb, "no such session") {
		t.Fatalf("show after rm: %d %s", code, errb)
	}
}
