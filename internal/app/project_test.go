package app_test

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/shiro-neko/shiro/internal/app"
	"github.com/shiro-neko/shiro/internal/config"
	"github.com/shiro-neko/shiro/internal/llm/llmtest"
	"github.com/shiro-neko/shiro/internal/llm/replay"
	"github.com/shiro-neko/shiro/internal/protocol"
)

// unformatted is a Go file gofmt changes: whether it still reads so after
// a turn tells whether the format plugin ran.
const unformatted = "package main\nfunc  main(){}\n"

// formatTurn runs one session in work whose model writes main.go, and
// returns the start-up notices and main.go afterwards.
func formatTurn(t *testing.T, getenv func(string) string, work string) (notices []string, mainGo string, loaded app.Loaded) {
	t.Helper()
	srv := llmtest.New(t,
		llmtest.Reply{ToolCalls: []llmtest.ToolCall{{ID: "w", Name: "write_file", Input: `{"path":"main.go","content":"package main\nfunc  main(){}\n"}`}}},
		llmtest.Reply{Text: "written"},
	)
	loaded, err := app.Load(getenv, work, config.Flags{Provider: "custom-openai", BaseURL: srv.URL, Model: "test-model"})
	if err != nil {
		t.Fatal(err)
	}
	a, err := app.Open(t.Context(), app.Options{Loaded: loaded, Yolo: true})
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range run(t.Context(), a.Session, "write main.go") {
		if n, ok := e.(protocol.NoticeEvent); ok {
			notices = append(notices, n.Text)
		}
	}
	a.Session.Wait()
	a.Close()
	data, err := os.ReadFile(filepath.Join(work, "main.go"))
	if err != nil {
		t.Fatal(err)
	}
	return notices, string(data), loaded
}

// A project config that switches on a plugin that runs programs, placed
// by hand, is not applied until approved (the formatter does not run, and
// the start says how to approve); once approved it is; changed, it waits
// again.
func TestProjectConfigThatRunsProgramsWaitsForApproval(t *testing.T) {
	getenv, work, _, projectFile := dirs(t, "", `{"plugins":["format"]}`)

	notices, got, loaded := formatTurn(t, getenv, work)
	if got != unformatted {
		t.Fatalf("the format plugin ran before approval: main.go is %q", got)
	}
	if slices.Contains(loaded.Settings.Plugins, "format") {
		t.Errorf("plugins before approval: %q", loaded.Settings.Plugins)
	}
	pending := 0
	for _, n := range notices {
		if strings.Contains(n, "plugins format") && strings.Contains(n, "shiro config approve") && strings.Contains(n, projectFile) {
			pending++
		}
	}
	if pending != 1 {
		t.Fatalf("want one notice saying what waits and how to approve it, got %q", notices)
	}

	if err := loaded.ApproveProject(loaded.Project.Digest, time.Now()); err != nil {
		t.Fatal(err)
	}
	notices, got, loaded = formatTurn(t, getenv, work)
	if got != "package main\n\nfunc main() {}\n" {
		t.Fatalf("the approved format plugin did not run: main.go is %q", got)
	}
	if !loaded.Project.Approved || loaded.Project.Pending() {
		t.Errorf("review after approval: %+v", loaded.Project)
	}
	for _, n := range notices {
		if strings.Contains(n, "approve") {
			t.Errorf("an approved config is still announced: %q", n)
		}
	}

	// A change to what the approval covers needs approving again.
	if err := os.WriteFile(projectFile, []byte(`{"plugins":["format","no-main-commit"]}`), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(work, "main.go"), []byte(unformatted), 0o644); err != nil {
		t.Fatal(err)
	}
	_, got, loaded = formatTurn(t, getenv, work)
	if got != unformatted {
		t.Fatalf("a changed config applied without approval: main.go is %q", got)
	}
	if !loaded.Project.Pending() || slices.Contains(loaded.Settings.Plugins, "format") {
		t.Errorf("changed config: %+v, plugins %q", loaded.Project, loaded.Settings.Plugins)
	}
	// An approval of what the person read is refused once the file changed.
	if err := loaded.ApproveProject(strings.Repeat("0", 64), time.Now()); err == nil || !strings.Contains(err.Error(), "has changed") {
		t.Errorf("approving a stale digest: %v", err)
	}
}

// Keys that only tighten apply without approval; tool sets beyond the
// user's wait for it, and narrower ones do not.
func TestProjectConfigReview(t *testing.T) {
	for _, c := range []struct {
		name, user, project string
		pending             []string
		plugins             []string // must be enabled
	}{
		{name: "refusing plugins need no approval", project: `{"plugins":["no-git-config","confirm-delete"]}`, plugins: []string{"no-git-config", "confirm-delete"}},
		{name: "a plugin the user enabled needs none", user: `{"plugins":["guard","format"]}`, project: `{"plugins":["format"]}`, plugins: []string{"format"}},
		{name: "a plugin that runs git", project: `{"plugins":["no-main-commit"]}`, pending: []string{"plugins no-main-commit"}},
		{name: "a wider tool set", project: `{"toolSets":["core","net"]}`, pending: []string{"toolSets net"}},
		{name: "narrower tool sets", project: `{"toolSets":["core","nav"]}`},
	} {
		t.Run(c.name, func(t *testing.T) {
			getenv, work, _, _ := dirs(t, c.user, c.project)
			l, err := app.Load(getenv, work, config.Flags{})
			if err != nil {
				t.Fatal(err)
			}
			needs := strings.Join(l.Project.Needs, "; ")
			if l.Project.Pending() != (len(c.pending) > 0) {
				t.Fatalf("pending = %v (%q)", l.Project.Pending(), needs)
			}
			for _, w := range c.pending {
				if !strings.Contains(needs, w) {
					t.Errorf("needs %q, want %q", needs, w)
				}
			}
			for _, p := range c.plugins {
				if !slices.Contains(l.Settings.Plugins, p) {
					t.Errorf("plugin %s not enabled: %q", p, l.Settings.Plugins)
				}
			}
			if strings.Contains(c.project, "net") && slices.Contains(l.Settings.ToolSets, "net") {
				t.Errorf("net offered before approval: %q", l.Settings.ToolSets)
			}
		})
	}
}

// An unknown plugin or tool-set name in a project's config is reported
// with its file and field, and shiro starts; in the user's own it is an
// error.
func TestProjectConfigTypoStartsWithAProblem(t *testing.T) {
	getenv, work, _, projectFile := dirs(t, "", `{"plugins":["fromat","no-git-config"],"toolSets":["core","gti"]}`)
	l, err := app.Load(getenv, work, config.Flags{})
	if err != nil {
		t.Fatalf("a typo in the project's config stopped shiro: %v", err)
	}
	var got []string
	for _, p := range l.ConfigProblems() {
		got = append(got, p.String())
	}
	all := strings.Join(got, "\n")
	for _, w := range []string{projectFile, `field "plugins"`, `"fromat"`, `field "toolSets"`, `"gti"`} {
		if !strings.Contains(all, w) {
			t.Errorf("problems %q lack %q", all, w)
		}
	}
	if !slices.Contains(l.Settings.Plugins, "no-git-config") {
		t.Errorf("the valid name was dropped too: %q", l.Settings.Plugins)
	}
	a, err := app.Open(t.Context(), app.Options{Loaded: l, Provider: replay.New("inspection", nil)})
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(app.DescribePlugins(a), `"fromat"`) {
		t.Errorf("shiro plugins does not list the problem:\n%s", app.DescribePlugins(a))
	}
	a.Close()

	getenv, work, userFile, _ := dirs(t, `{"plugins":["fromat"]}`, "")
	if _, err := app.Load(getenv, work, config.Flags{}); err == nil || !strings.Contains(err.Error(), userFile) {
		t.Errorf("the user's own typo: %v", err)
	}
}

// A project's looser sandbox mode stays ignored, and now says so; a
// stricter one applies without a word.
func TestProjectSandboxModeOnlyTightens(t *testing.T) {
	getenv, work, _, _ := dirs(t, "", `{"sandbox":{"mode":"off"}}`)
	l, err := app.Load(getenv, work, config.Flags{})
	if err != nil {
		t.Fatal(err)
	}
	if w := strings.Join(l.Warnings(), "\n"); !strings.Contains(w, `sandbox.mode "off" is looser`) {
		t.Errorf("warnings %q", w)
	}
	getenv, work, _, _ = dirs(t, "", `{"sandbox":{"mode":"read-only"}}`)
	if l, err = app.Load(getenv, work, config.Flags{}); err != nil {
		t.Fatal(err)
	}
	if w := strings.Join(l.Warnings(), "\n"); strings.Contains(w, "sandbox") {
		t.Errorf("a stricter mode warned: %q", w)
	}
}
