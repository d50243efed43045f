package git

import (
	"encoding/json"
	"reflect"
	"testing"

	"github.com/shiro-neko/shiro/internal/protocol"
	"github.com/shiro-neko/shiro/internal/tool"
)

// handWritten are the schemas the tools had before they were derived from
// the input types: the derived ones must say the same.
var handWritten = map[string]string{
	"git_status":         `{"type":"object","properties":{},"additionalProperties":false}`,
	"git_diff":           `{"type":"object","properties":{"staged":{"type":"boolean"},"path":{"type":"string"}},"additionalProperties":false}`,
	"git_log":            `{"type":"object","properties":{"limit":{"type":"integer","minimum":1,"maximum":40,"description":"default 15"},"path":{"type":"string"}},"additionalProperties":false}`,
	"git_show":           `{"type":"object","properties":{"ref":{"type":"string"},"path":{"type":"string","description":"limit the diff to this path"}},"required":["ref"],"additionalProperties":false}`,
	"git_blame":          `{"type":"object","properties":{"path":{"type":"string"},"startLine":{"type":"integer","minimum":1},"endLine":{"type":"integer","minimum":1,"description":"default startLine+39"}},"required":["path"],"additionalProperties":false}`,
	"git_branch":         `{"type":"object","properties":{"remote":{"type":"boolean","description":"also remote-tracking branches"}},"additionalProperties":false}`,
	"git_commit_message": `{"type":"object","properties":{},"additionalProperties":false}`,
	"changed_files":      `{"type":"object","properties":{},"additionalProperties":false}`,
	// The git-extra set came after the derivation; its schemas are pinned
	// here all the same, since they are what the model is sent.
	"git_log_file":       `{"type":"object","properties":{"path":{"type":"string"},"limit":{"type":"integer","minimum":1,"maximum":40,"description":"default 15"}},"required":["path"],"additionalProperties":false}`,
	"git_diff_commits":   `{"type":"object","properties":{"from":{"type":"string"},"to":{"type":"string"},"path":{"type":"string"}},"required":["from","to"],"additionalProperties":false}`,
	"git_show_file":      `{"type":"object","properties":{"ref":{"type":"string"},"path":{"type":"string"}},"required":["ref","path"],"additionalProperties":false}`,
	"git_current_branch": `{"type":"object","properties":{},"additionalProperties":false}`,
	"git_changed_in_ref": `{"type":"object","properties":{"ref":{"type":"string"}},"required":["ref"],"additionalProperties":false}`,
}

// schemaShape is what a schema says about the input, for comparing two.
type schemaShape struct {
	Type       string `json:"type"`
	Properties map[string]struct {
		Type        string   `json:"type"`
		Description string   `json:"description"`
		Minimum     *float64 `json:"minimum"`
		Maximum     *float64 `json:"maximum"`
	} `json:"properties"`
	Required             []string `json:"required"`
	AdditionalProperties *bool    `json:"additionalProperties"`
}

func TestSchemasMatchTheHandWrittenOnes(t *testing.T) {
	ts := Tools(newWorkspace(t), fakeModel{})
	if len(ts) != len(handWritten) {
		t.Fatalf("%d tools, want %d", len(ts), len(handWritten))
	}
	for _, tl := range ts {
		info := tl.Info()
		before, ok := handWritten[info.Name]
		if !ok {
			t.Errorf("unexpected tool %s", info.Name)
			continue
		}
		var got, want schemaShape
		if err := json.Unmarshal(info.Schema, &got); err != nil {
			t.Errorf("%s: the derived schema is not JSON: %v\n%s", info.Name, err, info.Schema)
			continue
		}
		if err := json.Unmarshal([]byte(before), &want); err != nil {
			t.Fatal(err)
		}
		if len(got.Properties) == 0 {
			got.Properties = want.Properties // {} and an absent member say the same
		}
		if !reflect.DeepEqual(got, want) {
			t.Errorf("%s: derived schema differs\n got %s\nwant %s", info.Name, info.Schema, before)
		}
	}
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
		p, err := findTool(t, ts, c.tool).Prepare(json.RawMessage(c.input))
		if err != nil {
			t.Errorf("%s %s: %v", c.tool, c.input, err)
			continue
		}
		if got := p.Plan(); !reflect.DeepEqual(got, c.want) {
			t.Errorf("%s %s: plan %+v, want %+v", c.tool, c.input, got, c.want)
		}
		if _, ok := p.(tool.Previewer); ok {
			t.Errorf("%s changes nothing, yet offers a preview", c.tool)
		}
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

// TestSpecBytes measures what the tools cost on every request: name,
// description and schema. `go test -run SpecBytes -v` prints the table,
// against the hand-written schemas of before.
func TestSpecBytes(t *testing.T) {
	before, after := 0, 0
	ts := Tools(newWorkspace(t), fakeModel{})
	for _, tl := range ts {
		s := tl.Info().Spec()
		base := len(s.Name) + len(s.Description)
		was, n := base+len(handWritten[s.Name]), base+len(s.Schema)
		before += was
		after += n
		t.Logf("%-18s %4d -> %4d bytes", s.Name, was, n)
		if n > 400 {
			t.Errorf("%s costs %d bytes on every request; keep it under 400", s.Name, n)
		}
	}
	t.Logf("all %d tools: %d -> %d bytes", len(ts), before, after)
}
