package app_test

import (
	"context"
	"iter"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/shiro-neko/shiro/internal/app"
	"github.com/shiro-neko/shiro/internal/config"
	"github.com/shiro-neko/shiro/internal/llm"
	"github.com/shiro-neko/shiro/internal/llm/replay"
	"github.com/shiro-neko/shiro/internal/protocol"
)

// dirs makes a SHIRO_HOME and a workspace with the given config files
// (user and project; empty means none).
func dirs(t *testing.T, user, project string) (getenv func(string) string, work, userFile, projectFile string) {
	t.Helper()
	home, work := t.TempDir(), t.TempDir()
	userFile = filepath.Join(home, ".shiro-neko", "config.json")
	projectFile = filepath.Join(work, ".shiro", "config.json")
	for path, body := range map[string]string{userFile: user, projectFile: project} {
		if body == "" {
			continue
		}
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(body), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	env := map[string]string{"SHIRO_HOME": home, "HOME": home, "SHIRO_API_KEY": "k"}
	return func(k string) string { return env[k] }, work, userFile, projectFile
}

// A table that cannot be honoured is an error naming the file and the
// field, whichever file it is in: never a warning, never a guess.
func TestLoadRefusesTablesItCannotHonour(t *testing.T) {
	for _, c := range []struct {
		name, user, project string
		inProject           bool
		want                []string
	}{
		{name: "a decision that is not one", user: `{"permission":{"bash":"maybe"}}`,
			want: []string{`field "permission"`, `"bash": "maybe" is not a decision`, `"allow", "ask" or "deny"`}},
		{name: "a bad decision in a table", user: `{"permission":{"bash":{"*":"ask","rm *":"dney"}}}`,
			want: []string{`field "permission"`, `"rm *"`, `"dney"`}},
		{name: "the project's bad table names the project's file", project: `{"permission":{"read_file":"nope"}}`, inProject: true,
			want: []string{`field "permission"`, `"nope"`}},
		{name: "an unknown tool set", user: `{"toolSets":["core","gti"]}`,
			want: []string{`field "toolSets"`, `"gti"`, "edit-plus"}},
		{name: "an unknown plugin", user: `{"plugins":["gaurd"]}`,
			want: []string{`field "plugins"`, `"gaurd"`, "guard"}},
		{name: "an unknown agent", user: `{"agent":"wizard"}`, want: []string{`field "agent"`, "wizard"}},
		{name: "an unknown thinking level", user: `{"thinking":"lots"}`, want: []string{`field "thinking"`, "lots"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			getenv, work, userFile, projectFile := dirs(t, c.user, c.project)
			_, err := app.Load(getenv, work, config.Flags{})
			if err == nil {
				t.Fatal("accepted")
			}
			file := userFile
			if c.inProject {
				file = projectFile
			}
			for _, w := range append(c.want, file) {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q does not say %q", err, w)
				}
			}
		})
	}
}

// openHome opens a session with a replay provider in a workspace whose
// SHIRO_HOME has the given files.
func openHome(t *testing.T, files map[string]string) *app.App {
	t.Helper()
	return openHomeWith(t, files, func(p llm.Provider) llm.Provider { return p })
}

// openHomeWith is openHome with the replay provider wrapped.
func openHomeWith(t *testing.T, files map[string]string, wrap func(llm.Provider) llm.Provider) *app.App {
	t.Helper()
	getenv, work, _, _ := dirs(t, "", "")
	home := getenv("SHIRO_HOME")
	for rel, body := range files {
		p := filepath.Join(home, ".shiro-neko", rel)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	loaded, err := app.Load(getenv, work, config.Flags{Provider: "replay"})
	if err != nil {
		t.Fatal(err)
	}
	var turns []replay.Response
	for range 3 {
		turns = append(turns, replay.Response{})
	}
	a, err := app.Open(t.Context(), app.Options{Loaded: loaded, Provider: wrap(replay.New("t", turns))})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(a.Close)
	return a
}

// Load problems are replaced at a reload, never piled up: one broken skill
// is one problem however often the extensions are reloaded.
func TestReloadReplacesProblems(t *testing.T) {
	a := openHome(t, map[string]string{"skills/broken/SKILL.md": "no front matter here\n"})
	if n := len(a.Problems()); n != 1 {
		t.Fatalf("problems at start: %v", a.Problems())
	}
	for i := range 2 {
		a.RequestReload()
		for e := range a.Session.Send(t.Context(), "go") {
			if n, ok := e.(protocol.NoticeEvent); ok && i == 0 && !strings.Contains(n.Text, "reloaded") && !strings.Contains(n.Text, "skill") {
				t.Errorf("unexpected notice %q", n.Text)
			}
		}
		a.Session.Wait()
	}
	if n := len(a.Problems()); n != 1 {
		t.Fatalf("problems after two reloads: %v", a.Problems())
	}
}

// A skill installed mid-session reaches the model at the next turn: the
// reload is a new generation of the extensions, which is the version of
// the prompt's skill part, so the memoised prefix is rendered again.
func TestReloadReachesTheModel(t *testing.T) {
	rec := &systemRecorder{}
	a := openHomeWith(t, nil, func(p llm.Provider) llm.Provider { rec.Provider = p; return rec })
	turn := func() {
		for range a.Session.Send(t.Context(), "go") {
		}
		a.Session.Wait()
	}
	turn()
	p := filepath.Join(a.Loaded.Paths.Skills(), "fresh-skill", "SKILL.md")
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte("---\nname: fresh-skill\ndescription: Use when testing reloads.\n---\nbody\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	a.RequestReload()
	turn()
	if len(rec.systems) != 2 || strings.Contains(rec.systems[0], "fresh-skill") || !strings.Contains(rec.systems[1], "fresh-skill") {
		t.Fatalf("the skill should reach the second request's system prompt, not the first: %d requests", len(rec.systems))
	}
}

// systemRecorder keeps the system prompt of every request.
type systemRecorder struct {
	llm.Provider
	systems []string
}

func (r *systemRecorder) Stream(ctx context.Context, req *llm.Request) iter.Seq2[llm.StreamPart, error] {
	var b strings.Builder
	for _, s := range req.System {
		b.WriteString(s.Text)
	}
	r.systems = append(r.systems, b.String())
	return r.Provider.Stream(ctx, req)
}

// A reload swaps in a new snapshot at the turn boundary while front ends
// read the extensions from their own goroutines; the race detector has
// the last word on this test.
func TestReloadIsSafeBesideReaders(t *testing.T) {
	a := openHome(t, nil)
	var wg sync.WaitGroup
	stop := make(chan struct{})
	wg.Go(func() {
		for {
			select {
			case <-stop:
				return
			default:
				_ = app.DescribeSkills(a)
				_ = app.DescribePlugins(a)
			}
		}
	})
	for range 3 {
		a.RequestReload()
		for range a.Session.Send(t.Context(), "go") {
		}
		a.Session.Wait()
	}
	close(stop)
	wg.Wait()
}

// Problems reach the front end once, as notices, before the first turn.
func TestProblemsAreAnnounced(t *testing.T) {
	a := openHome(t, map[string]string{"skills/broken/SKILL.md": "no front matter here\n"})
	var notices []string
	for e := range a.Session.Send(t.Context(), "go") {
		if n, ok := e.(protocol.NoticeEvent); ok {
			notices = append(notices, n.Text)
		}
	}
	if len(notices) != 1 || !strings.HasPrefix(notices[0], "skill ") {
		t.Fatalf("notices = %q", notices)
	}
}
