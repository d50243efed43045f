package app_test

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/shiro-neko/shiro/internal/app"
	"github.com/shiro-neko/shiro/internal/config"
	"github.com/shiro-neko/shiro/internal/llm"
	"github.com/shiro-neko/shiro/internal/llm/replay"
	"github.com/shiro-neko/shiro/internal/protocol"
)

// A session in a Go module, with gopls installed: the edit that breaks a
// file gets the type error in its result, from gopls started inside the
// session's sandbox; the model, about to end the turn, is told once; and
// /lsp shows the server running for the file.
func TestSessionReportsEditErrorsFromGopls(t *testing.T) {
	if _, err := exec.LookPath("gopls"); err != nil {
		t.Skip("gopls is not on PATH; .ci/run installs it (go install golang.org/x/tools/gopls@v0.23.0)")
	}
	home, work := t.TempDir(), t.TempDir()
	files := map[string]string{
		"go.mod":    "module example.com/m\n\ngo 1.22\n",
		"shapes.go": "package m\n\n// Area is the area of a rectangle.\nfunc Area(w, h int) int {\n\treturn w * h\n}\n",
	}
	for name, text := range files {
		if err := os.WriteFile(filepath.Join(work, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	env := map[string]string{"SHIRO_HOME": home, "HOME": home}
	loaded, err := app.Load(func(k string) string { return env[k] }, work, config.Flags{Provider: "replay"})
	if err != nil {
		t.Fatal(err)
	}
	input, _ := json.Marshal(map[string]string{"path": "shapes.go", "oldString": "return w * h", "newString": "return w * h * \"x\""})
	turn := []replay.Response{
		{llm.ToolCallDone{ID: "e1", Name: "edit_file", Input: input}, llm.Finish{Reason: llm.StopToolUse}},
		{llm.TextDelta{Text: "done"}, llm.Finish{Reason: llm.StopEnd}},
		{llm.TextDelta{Text: "I will fix it next turn"}, llm.Finish{Reason: llm.StopEnd}},
	}
	a, err := app.Open(t.Context(), app.Options{Loaded: loaded, Yolo: true, Provider: replay.New("t", turn)})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(a.Close)
	if _, ok := a.Tools.Get("definition"); !ok {
		t.Fatal("a Go workspace with gopls installed is not offered the definition tool")
	}
	var result string
	told := 0
	for e := range a.Session.Send(t.Context(), "make Area odd") {
		switch e := e.(type) {
		case protocol.ToolResultEvent:
			result = e.Output
		case protocol.NoticeEvent:
			if strings.HasPrefix(e.Text, "Before you finish") {
				told++
			}
		}
	}
	if !strings.Contains(result, "shapes.go:5:") || !strings.Contains(result, "(compiler)") && !strings.Contains(result, "mismatched types") && !strings.Contains(result, "cannot convert") {
		t.Fatalf("edit_file's result lacks gopls's type error at shapes.go:5:\n%s", result)
	}
	if told != 1 {
		t.Fatalf("the model was told %d times before the turn ended, want once", told)
	}
	if _, err := a.Session.Submit(protocol.Command{Line: "/lsp"}); err != nil {
		t.Fatal(err)
	}
	for e := range a.Session.Events() {
		if r, ok := e.(protocol.CommandResultEvent); ok && r.Command == "lsp" {
			if !strings.Contains(r.Output, "gopls: running") || !strings.Contains(r.Output, "files: shapes.go") {
				t.Fatalf("/lsp:\n%s", r.Output)
			}
			return
		}
	}
	t.Fatal("the session closed before /lsp answered")
}
