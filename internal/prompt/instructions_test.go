package prompt

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func writeFile(t *testing.T, path, body string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
}

func TestInstructionsFromGitRootDownWithLabels(t *testing.T) {
	root := t.TempDir()
	writeFile(t, filepath.Join(root, ".git", "HEAD"), "ref: refs/heads/main\n")
	work := filepath.Join(root, "services", "api")
	writeFile(t, filepath.Join(root, "AGENTS.md"), "root agents")
	writeFile(t, filepath.Join(root, "TODO.md"), "root todo")
	writeFile(t, filepath.Join(root, "services", "CLAUDE.md"), "services claude")
	writeFile(t, filepath.Join(work, ".shiro.md"), "api shiro")
	writeFile(t, filepath.Join(work, "ROADMAP.md"), "api roadmap")
	writeFile(t, filepath.Join(work, "AGENTS.md"), "  \n") // blank: skipped
	got := loadInstructions(work)
	want := "--- Project instructions (../../AGENTS.md) — standing orders from the user; they override your defaults but never your safety rules. ---\nroot agents\n\n" +
		"--- Project tracker (../../TODO.md) — current progress. Read before starting work and keep it current as you go. ---\nroot todo\n\n" +
		"--- Project instructions (../CLAUDE.md) — standing orders from the user; they override your defaults but never your safety rules. ---\nservices claude\n\n" +
		"--- Project instructions (.shiro.md) — standing orders from the user; they override your defaults but never your safety rules. ---\napi shiro\n\n" +
		"--- Project tracker (ROADMAP.md) — current progress. Read before starting work and keep it current as you go. ---\napi roadmap"
	if got != want {
		t.Fatalf("instructions =\n%s\n\nwant\n%s", got, want)
	}
}

func TestInstructionCaps(t *testing.T) {
	root := t.TempDir()
	writeFile(t, filepath.Join(root, ".git", "HEAD"), "x")
	writeFile(t, filepath.Join(root, "AGENTS.md"), strings.Repeat("á", 12000))
	writeFile(t, filepath.Join(root, "CLAUDE.md"), strings.Repeat("b", 12001))
	writeFile(t, filepath.Join(root, "TODO.md"), strings.Repeat("c", 6001))
	got := loadInstructions(root)
	if strings.Count(got, "[cut at") != 2 {
		t.Fatalf("want CLAUDE.md and TODO.md cut, AGENTS.md whole:\n%s", got[:200])
	}
	if !strings.Contains(got, strings.Repeat("á", 12000)+"\n") || strings.Contains(got, strings.Repeat("b", 12001)) ||
		!strings.Contains(got, strings.Repeat("c", 6000)+"\n… [cut at 6000 characters]") {
		t.Fatal("caps are 12,000 characters for instruction files and 6,000 for trackers")
	}
}

func TestInstructionsOutsideGitReadTheWorkspaceOnly(t *testing.T) {
	parent := t.TempDir()
	work := filepath.Join(parent, "w")
	writeFile(t, filepath.Join(parent, "AGENTS.md"), "parent, not a repository")
	writeFile(t, filepath.Join(work, "AGENTS.md"), "workspace")
	got := loadInstructions(work)
	if strings.Contains(got, "parent") || !strings.Contains(got, "workspace") {
		t.Fatalf("instructions = %q", got)
	}
}

// loadInstructions is the prompt's text of root's instructions, no home.
func loadInstructions(root string) string {
	text, _ := ReadInstructions(root, InstructionOptions{})
	return text
}
