package tui

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/charmbracelet/x/ansi"

	"github.com/shiro-neko/shiro/internal/agent"
	"github.com/shiro-neko/shiro/internal/tools"
)

func previewText(p preview) string {
	var b strings.Builder
	for _, l := range p.lines {
		b.WriteString(l.text + "\n")
	}
	return b.String()
}

func previewEnv(t *testing.T, files map[string]string) *tools.Env {
	t.Helper()
	root := t.TempDir()
	for name, body := range files {
		path := filepath.Join(root, name)
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	env, err := tools.NewEnv(root)
	if err != nil {
		t.Fatal(err)
	}
	return env
}

func mustJSON(t *testing.T, v any) json.RawMessage {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func TestPreviewEditFileDiffsAgainstTheFile(t *testing.T) {
	env := previewEnv(t, map[string]string{"a.go": "package a\n\nfunc A() int { return 1 }\n"})
	p := buildPreview(env, "edit_file", mustJSON(t, map[string]any{
		"path": "a.go", "oldString": "return 1", "newString": "return 2",
	}))
	got := previewText(p)
	for _, want := range []string{"--- a/a.go", "+++ b/a.go", "-func A() int { return 1 }", "+func A() int { return 2 }", " package a"} {
		if !strings.Contains(got, want) {
			t.Errorf("preview lacks %q:\n%s", want, got)
		}
	}
	kinds := map[lineKind]bool{}
	for _, l := range p.lines {
		kinds[l.kind] = true
	}
	if !kinds[lineAdd] || !kinds[lineDel] || !kinds[lineHunk] || !kinds[lineFile] {
		t.Errorf("diff lines not classified for colour: %v", kinds)
	}
}

// When the text is not found exactly the prompt says so and shows the
// requested replacement rather than guessing.
func TestPreviewEditWithoutAnExactMatch(t *testing.T) {
	env := previewEnv(t, map[string]string{"a.txt": "one\ntwo\n"})
	got := previewText(buildPreview(env, "edit_file", mustJSON(t, map[string]any{
		"path": "a.txt", "oldString": "  two", "newString": "three",
	})))
	for _, want := range []string{"not found exactly", "-  two", "+three"} {
		if !strings.Contains(got, want) {
			t.Errorf("preview lacks %q:\n%s", want, got)
		}
	}
}

func TestPreviewMultiEditAppliesInOrder(t *testing.T) {
	env := previewEnv(t, map[string]string{"m.txt": "a\nb\nc\n"})
	got := previewText(buildPreview(env, "multi_edit", mustJSON(t, map[string]any{
		"path": "m.txt", "edits": []map[string]any{
			{"oldString": "a", "newString": "x"},
			{"oldString": "x\nb", "newString": "y"},
		},
	})))
	for _, want := range []string{"-a", "-b", "+y", " c"} {
		if !strings.Contains(got, want) {
			t.Errorf("preview lacks %q:\n%s", want, got)
		}
	}
}

// The preview reads through the workspace jail: a path outside is
// reported, never read.
func TestPreviewDoesNotReadOutsideTheWorkspace(t *testing.T) {
	outside := filepath.Join(t.TempDir(), "secret.txt")
	if err := os.WriteFile(outside, []byte("TOP SECRET\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	env := previewEnv(t, nil)
	got := previewText(buildPreview(env, "write_file", mustJSON(t, map[string]any{"path": outside, "content": "x"})))
	if strings.Contains(got, "TOP SECRET") {
		t.Fatalf("preview read a file outside the workspace:\n%s", got)
	}
	if !strings.Contains(got, outside) {
		t.Fatalf("preview does not name the refused path:\n%s", got)
	}
}

func TestPreviewBashPatchAndArguments(t *testing.T) {
	got := previewText(buildPreview(nil, "bash", mustJSON(t, map[string]any{"command": "go test ./...\ngo vet ./...", "timeout": 5000})))
	if !strings.Contains(got, "$ go test ./...\n  go vet ./...") || !strings.Contains(got, "timeout: 5000") {
		t.Errorf("bash preview:\n%s", got)
	}
	p := buildPreview(nil, "apply_patch", mustJSON(t, map[string]any{"patch": "*** Begin Patch\n*** Update File: a\n@@\n-x\n+y\n*** End Patch"}))
	if p.lines[3].kind != lineDel || p.lines[4].kind != lineAdd || p.lines[1].kind != lineFile {
		t.Errorf("patch lines not classified: %+v", p.lines)
	}
	got = previewText(buildPreview(nil, "web_fetch", mustJSON(t, map[string]any{"url": "https://example.com", "max": 3})))
	if got != "max: 3\nurl: https://example.com\n" {
		t.Errorf("argument preview = %q", got)
	}
}

func TestPreviewIsBounded(t *testing.T) {
	big := strings.Repeat("line\n", previewLimit*2)
	p := buildPreview(previewEnv(t, nil), "write_file", mustJSON(t, map[string]any{"path": "big.txt", "content": big}))
	if len(p.lines) != previewLimit+1 || !strings.Contains(p.lines[previewLimit].text, "more lines not shown") {
		t.Fatalf("preview of %d lines, last %q", len(p.lines), p.lines[len(p.lines)-1].text)
	}
}

// The prompt's title says who asks and why; the footer names the grant.
func TestApprovalPromptTitles(t *testing.T) {
	env := newTestEnv(t)
	a, _ := env.open(t, replayFlags(t, "turn.jsonl"), nil)
	bash, _ := a.Tools.Get("bash")
	in := mustJSON(t, map[string]any{"command": "make"})
	st := newStyles()
	for _, c := range []struct {
		req  agent.ApprovalRequest
		want []string
	}{
		{agent.ApprovalRequest{Tool: bash, Input: in, Grants: []string{`bash "make *"`}},
			[]string{"bash wants to run", "$ make", `y allow once | a always allow bash "make *" | n deny`}},
		{agent.ApprovalRequest{Tool: bash, Input: in, Repeated: true, Pattern: "make*"},
			[]string{"bash is repeating the same call", "allowed by the rules, but this is the third identical call this turn", `matched bash: "make*"`, "y allow once | n deny"}},
		{agent.ApprovalRequest{Tool: bash, Input: in, Subagent: "worker"},
			[]string{"a worker subagent wants to run bash"}},
		{agent.ApprovalRequest{Tool: bash, Input: in, Subagent: "explore"},
			[]string{"an explore subagent wants to run bash"}},
		{agent.ApprovalRequest{Tool: bash, Input: in, Subagent: "review"},
			[]string{"a review subagent wants to run bash"}},
	} {
		p := newApprovalPrompt(approvalAsk{req: c.req, ctx: t.Context()}, a.Env)
		got := ansi.Strip(p.view(&st, 100, 30))
		for _, w := range c.want {
			if !strings.Contains(got, w) {
				t.Errorf("prompt lacks %q:\n%s", w, got)
			}
		}
		if _, ok := p.answer("a"); ok != (len(c.req.Grants) > 0) {
			t.Errorf("a accepted = %v with grants %v", ok, c.req.Grants)
		}
	}
}
