package bash

import (
	"slices"
	"strings"
	"testing"

	"github.com/shiro-neko/shiro/internal/protocol"
	"github.com/shiro-neko/shiro/internal/tool"
	"github.com/shiro-neko/shiro/internal/tool/tooltest"
	"github.com/shiro-neko/shiro/internal/workspace/wstest"
)

func allTools() []tool.Tool {
	return append(Tools(nil, NewBackground("", nil, Hooks{})), Checks(nil)...)
}

// TestSchemas holds the schemas the tools derive from their input types
// to testdata/schemas.golden.json (rewrite it with -update and review the
// diff): types, descriptions, bounds, the required set and the refusal of
// unknown members. `go test -run Schemas -v` prints the bytes each tool
// costs on every request.
func TestSchemas(t *testing.T) {
	tooltest.SchemasGolden(t, allTools(), 0)
}

func TestInfo(t *testing.T) {
	want := map[string]struct {
		set     tool.Set
		effect  tool.Effect
		kind    protocol.ToolKind
		subject tool.SubjectKind
	}{
		"bash":        {tool.SetCore, tool.Runs, protocol.KindExecute, tool.CommandSubject},
		"bash_status": {tool.SetCore, tool.Reads, protocol.KindRead, tool.NoSubject},
		"bash_stop":   {tool.SetCore, tool.Runs, protocol.KindExecute, tool.NoSubject},
		"run_checks":  {tool.SetExtra, tool.Runs, protocol.KindExecute, tool.CommandSubject},
	}
	for _, tl := range allTools() {
		info := tl.Info()
		w := want[info.Name]
		if info.Set != w.set || info.Effect != w.effect || info.Kind != w.kind || info.Subject != w.subject || info.Interactive {
			t.Errorf("%s: info %+v", info.Name, info)
		}
		if info.Description == "" || !strings.HasPrefix(info.Guidance, info.Name+": ") {
			t.Errorf("%s: description %q, guidance %q", info.Name, info.Description, info.Guidance)
		}
	}
	if Tools(nil, nil)[0].Info().Name != "bash" || len(Tools(nil, nil)) != 1 {
		t.Error("without a Background, only bash is offered")
	}
	// The description names the shell and how it is run: never as a login
	// shell.
	env := wstest.Isolated(t, nil)
	env.Shell = "zsh"
	if d := Tools(env, nil)[0].Info().Description; !strings.HasPrefix(d, "Run a shell command with `zsh -c` in the workspace root.") {
		t.Errorf("description %q", d)
	}
	if d := Tools(nil, nil)[0].Info().Description; !strings.Contains(d, "`bash -c`") || strings.Contains(d, "-lc") {
		t.Errorf("description %q", d)
	}
}

func TestPlans(t *testing.T) {
	bg := NewBackground("", nil, Hooks{})
	bg.jobs = append(bg.jobs, &bgJob{handle: 3, name: "npm run dev"})
	ts := append(Tools(nil, bg), Checks(nil)...)
	long := strings.Repeat("x", 100)
	for _, c := range []struct {
		tool, input        string
		subjects, commands []string
		title              string
	}{
		{"bash", `{"command":"git status && rm -rf x","timeout":5000}`, []string{"git status && rm -rf x"}, []string{"git status && rm -rf x"}, "git status && rm -rf x"},
		{"bash", `{"command":"  make\n  make test\n","background":true,"name":"m"}`, []string{"  make\n  make test\n"}, []string{"  make\n  make test\n"}, "make …"},
		{"bash", `{"command":"echo\tone\r"}`, []string{"echo\tone\r"}, []string{"echo\tone\r"}, "echo one"},
		{"bash", `{"command":"` + long + `"}`, []string{long}, []string{long}, strings.Repeat("x", 79) + " …"},
		{"bash_status", `{"handle":3}`, nil, nil, "3 npm run dev"},
		{"bash_status", `{"handle":9}`, nil, nil, "9"},
		{"bash_stop", `{"handle":3}`, nil, nil, "3 npm run dev"},
		{"run_checks", `{"target":"lint"}`, nil, nil, "lint"},
	} {
		p, err := tooltest.Named(t, ts, c.tool).Prepare([]byte(c.input))
		if err != nil {
			t.Errorf("%s %s: %v", c.tool, c.input, err)
			continue
		}
		plan := p.Plan()
		if !slices.Equal(plan.Subjects, c.subjects) || !slices.Equal(plan.Commands, c.commands) || plan.Writes != nil || plan.Title != c.title {
			t.Errorf("%s %s: plan %+v, want subjects %q commands %q title %q", c.tool, c.input, plan, c.subjects, c.commands, c.title)
		}
	}

	env := wstest.Isolated(t, map[string]string{"AGENTS.md": "Run `make test` and `make lint`."})
	p, err := Checks(env)[0].Prepare([]byte(`{}`))
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"make test", "make lint"}
	if plan := p.Plan(); !slices.Equal(plan.Subjects, want) || !slices.Equal(plan.Commands, want) || plan.Title != "make test; make lint" {
		t.Errorf("run_checks plan %+v", plan)
	}
}
