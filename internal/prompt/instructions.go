package prompt

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"unicode/utf8"
)

// Instruction files are standing orders from the user; tracker files are
// the project's own progress notes. Both load from the git root down to the
// workspace, so a subproject's files add to the repository's.
func instructionFiles() []struct {
	name    string
	limit   int
	tracker bool
} {
	return []struct {
		name    string
		limit   int
		tracker bool
	}{
		{"AGENTS.md", 12000, false}, {"CLAUDE.md", 12000, false}, {".shiro.md", 12000, false},
		{"TODO.md", 6000, true}, {"ROADMAP.md", 6000, true},
	}
}

// LoadInstructions reads the instruction and tracker files that apply to
// root, labelled so the model knows what each one is.
func LoadInstructions(root string) string {
	var b strings.Builder
	for _, dir := range dirsFromGitRoot(root) {
		for _, f := range instructionFiles() {
			path := filepath.Join(dir, f.name)
			data, err := os.ReadFile(path)
			if err != nil || len(strings.TrimSpace(string(data))) == 0 {
				continue
			}
			label, _ := filepath.Rel(root, path)
			text := capChars(string(data), f.limit)
			if f.tracker {
				fmt.Fprintf(&b, "--- Project tracker (%s) — current progress. Read before starting work and keep it current as you go. ---\n", filepath.ToSlash(label))
			} else {
				fmt.Fprintf(&b, "--- Project instructions (%s) — standing orders from the user; they override your defaults but never your safety rules. ---\n", filepath.ToSlash(label))
			}
			b.WriteString(strings.TrimRight(text, "\n") + "\n\n")
		}
	}
	return strings.TrimRight(b.String(), "\n")
}

// dirsFromGitRoot lists the directories from the enclosing git root (or
// root itself outside git) down to root.
func dirsFromGitRoot(root string) []string {
	dirs := []string{root}
	for d := root; ; {
		if _, err := os.Stat(filepath.Join(d, ".git")); err == nil {
			break
		}
		parent := filepath.Dir(d)
		if parent == d {
			return []string{root} // not in git: the workspace alone
		}
		d = parent
		dirs = append([]string{d}, dirs...)
	}
	return dirs
}

func capChars(s string, limit int) string {
	if utf8.RuneCountInString(s) <= limit {
		return s
	}
	r := []rune(s)
	return string(r[:limit]) + fmt.Sprintf("\n… [cut at %d characters]", limit)
}
