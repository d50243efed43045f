package git

import (
	"testing"

	"github.com/shiro-neko/shiro/internal/protocol"
	"github.com/shiro-neko/shiro/internal/tool"
	"github.com/shiro-neko/shiro/internal/tool/tooltest"
)

// TestSchemas holds the schemas the tools derive from their input types
// to testdata/schemas.golden.json (rewrite it with -update and review the
// diff): types, descriptions, bounds, the required set and the refusal of
// unknown members.
func TestSchemas(t *testing.T) {
	tooltest.SchemasGolden(t, Tools(newWorkspace(t), fakeModel{}), 400)
}

func TestInfo(t *testing.T) {
	type want struct {
		set     tool.Set
		kind    protocol.ToolKind
		subject tool.SubjectKind
	}
	wants := map[string]want{
		"git_status":         {tool.SetGit, protocol.KindRead, tool.NoSubject},
		"git_diff":           {tool.SetGit, protocol.KindRead, tool.PathSubject},
		"git_log":            {tool.SetGit, protocol.KindRead, tool.PathSubject},
		"git_show":           {tool.SetGit, protocol.KindRead, tool.TextSubject},
		"git_blame":          {tool.SetGit, protocol.KindRead, tool.PathSubject},
		"git_branch":         {tool.SetGit, protocol.KindRead, tool.NoSubject},
		"git_commit_message": {tool.SetGit, protocol.KindOther, tool.NoSubject},
		"changed_files":      {tool.SetExtra, protocol.KindRead, tool.NoSubject},
		"git_log_file":       {tool.SetGitExtra, protocol.KindRead, tool.PathSubject},
		"git_diff_commits":   {tool.SetGitExtra, protocol.KindRead, tool.TextSubject},
		"git_show_file":      {tool.SetGitExtra, protocol.KindRead, tool.PathSubject},
		"git_current_branch": {tool.SetGitExtra, protocol.KindRead, tool.NoSubject},
		"git_changed_in_ref": {tool.SetGitExtra, protocol.KindRead, tool.TextSubject},
	}
	ts := Tools(newWorkspace(t), fakeModel{})
	if _, err := tool.NewRegistry(ts...); err != nil {
		t.Fatal(err)
	}
	if len(Tools(newWorkspace(t), nil)) != len(wants)-1 {
		t.Error("git_commit_message offered without a model")
	}
	for _, tl := range ts {
		info := tl.Info()
		w := wants[info.Name]
		// All of them only read: they are free by default and read-only
		// agents keep them.
		if info.Effect != tool.Reads || info.Set != w.set || info.Kind != w.kind || info.Subject != w.subject || info.Interactive {
			t.Errorf("%s: info %+v", info.Name, info)
		}
		if info.Guidance == "" || info.Description == "" {
			t.Errorf("%s: no guidance or description", info.Name)
		}
	}
}

func TestPlan(t *testing.T) {
	ts := Tools(newWorkspace(t), fakeModel{})
	for _, c := range []struct {
		tool, input string
		want        tool.Plan
	}{
		{"git_status", `{}`, tool.Plan{}},
		{"git_branch", `{}`, tool.Plan{}},
		{"git_branch", `{"remote":true}`, tool.Plan{Title: "with remote-tracking branches"}},
		{"git_commit_message", `{}`, tool.Plan{}},
		{"changed_files", `{}`, tool.Plan{}},
		{"git_diff", `{}`, tool.Plan{Subjects: []string{"."}}},
		{"git_diff", `{"path":"x/y"}`, tool.Plan{Subjects: []string{"x/y"}, Title: "x/y"}},
		{"git_diff", `{"staged":true}`, tool.Plan{Subjects: []string{"."}, Title: "staged"}},
		{"git_diff", `{"staged":true,"path":"a.go"}`, tool.Plan{Subjects: []string{"a.go"}, Title: "staged a.go"}},
		{"git_log", `{}`, tool.Plan{Subjects: []string{"."}}},
		{"git_log", `{"path":"x/y","limit":3}`, tool.Plan{Subjects: []string{"x/y"}, Title: "x/y"}},
		{"git_show", `{"ref":"x/y"}`, tool.Plan{Subjects: []string{"x/y"}, Title: "x/y"}},
		{"git_show", `{"ref":"HEAD~1","path":"a.go"}`, tool.Plan{Subjects: []string{"HEAD~1"}, Title: "HEAD~1 -- a.go"}},
		{"git_blame", `{"path":"x/y"}`, tool.Plan{Subjects: []string{"x/y"}, Title: "x/y"}},
		{"git_blame", `{"path":"a.go","startLine":41}`, tool.Plan{Subjects: []string{"a.go"}, Title: "a.go:41-80"}},
		{"git_blame", `{"path":"a.go","endLine":2}`, tool.Plan{Subjects: []string{"a.go"}, Title: "a.go:1-2"}},
		{"git_diff", `{"path":"a\nb\tc"}`, tool.Plan{Subjects: []string{"a\nb\tc"}, Title: "a b c"}},
	} {
		tooltest.Plan(t, tooltest.Named(t, ts, c.tool), c.input, c.want)
	}
}

func TestTitleIsOneShortLine(t *testing.T) {
	long := "dir/a-very-long-path-name-that-goes-on-and-on/and-on-and-on/until-it-is-far-too-long-for-one-line.go"
	got := title(long)
	if n := len([]rune(got)); n != titleMax || got[len(got)-len("…"):] != "…" {
		t.Errorf("title of %d chars: %q (%d chars)", len(long), got, n)
	}
	if got := title("  a\r\nb\x00c\x7f "); got != "a  b c" {
		t.Errorf("controls: %q", got)
	}
}
