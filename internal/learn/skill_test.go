package learn

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/shiro-neko/shiro/internal/skills"
)

const bisectBody = "1. Find a good and a bad commit.\n2. Run git bisect start BAD GOOD.\n3. Run the failing test at each step and mark it good or bad."

// A universal skill is written as auto-<slug>.md in the skill folder with
// frontmatter the skill loader reads; the same skill with a new body is
// appended under a dated update heading; a known body changes nothing.
func TestSkillsAreWrittenAndUpdated(t *testing.T) {
	skill := skillProposal{Name: "Bisect a Regression", Description: "Use when a test passed before and fails now.", Body: bisectBody}
	s := newSetup(t, answerJSON(t, proposals{Skills: []skillProposal{skill}}), nil)
	s.c.turn("no, bisect it rather than guessing", "ok")
	path := filepath.Join(s.skillsDir, "auto-bisect-a-regression.md")
	if notices := s.after(t); len(notices) != 1 || notices[0] != "auto-skill: auto-bisect-a-regression → "+path {
		t.Fatalf("notices %q", notices)
	}
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	want := "---\nname: auto-bisect-a-regression\ndescription: \"Use when a test passed before and fails now.\"\n---\n\n" + bisectBody + "\n"
	if string(data) != want {
		t.Fatalf("skill file:\n%s\nwant:\n%s", data, want)
	}

	// Again with the same body: nothing changes, nothing is said.
	s.c.turn("no, bisect again", "ok")
	if notices := s.after(t); len(notices) != 0 {
		t.Fatalf("notices %q for a known body", notices)
	}
	// A new body is appended under the date.
	more := "Automate it: git bisect run go test ./pkg -run TestBroken, which marks each commit by the test's exit status."
	skill.Body = more
	s.model.answer = answerJSON(t, proposals{Skills: []skillProposal{skill}})
	s.c.turn("no, automate the bisect", "ok")
	if notices := s.after(t); len(notices) != 1 || !strings.HasSuffix(notices[0], "(updated)") {
		t.Fatalf("notices %q", notices)
	}
	data, _ = os.ReadFile(path)
	if !strings.HasSuffix(string(data), bisectBody+"\n\n## Update — 2026-12-02\n\n"+more+"\n") {
		t.Fatalf("updated skill file:\n%s", data)
	}
	// The skill loader takes the file as the person's own skill.
	cat, problems := skills.Load(skills.Sources{UserDir: s.skillsDir, NoBundled: true})
	got, ok := cat.Get("auto-bisect-a-regression")
	if len(problems) != 0 || !ok || got.Description != skill.Description || !strings.Contains(got.Body, more) {
		t.Fatalf("loaded %+v (found %v), problems %v", got, ok, problems)
	}

	// Past the cap an update is not added, and the person hears why.
	big := strings.Repeat("x", SkillFileCap)
	skill.Body = "A long procedure: " + big
	s.model.answer = answerJSON(t, proposals{Skills: []skillProposal{skill}})
	s.c.turn("no, the long way", "ok")
	notices := s.after(t)
	if len(notices) != 1 || !strings.Contains(notices[0], "cap") {
		t.Fatalf("notices %q", notices)
	}
	after, _ := os.ReadFile(path)
	if string(after) != string(data) {
		t.Fatal("an update past the cap changed the file")
	}
}

// Proposals that are not skills are dropped: a description that does not
// say when to use it, a body under 80 characters, a credential, a name
// with nothing left of it.
func TestBadSkillProposalsAreDropped(t *testing.T) {
	s := newSetup(t, answerJSON(t, proposals{Skills: []skillProposal{
		{Name: "bisect", Description: "Bisecting.", Body: bisectBody},
		{Name: "short", Description: "Use when short.", Body: "Run it."},
	}}), nil)
	s.c.turn("no, bisect", "ok")
	if notices := s.after(t); len(notices) != 0 {
		t.Fatalf("notices %q", notices)
	}
	s.model.answer = answerJSON(t, proposals{Skills: []skillProposal{
		{Name: "deploy", Description: "Use when deploying.", Body: bisectBody + "\nexport TOKEN=sk-ant-abcdefghijklmnop0123"},
		{Name: "!!!", Description: "Use when ever.", Body: bisectBody},
	}})
	s.c.turn("no, deploy", "ok")
	if notices := s.after(t); len(notices) != 0 {
		t.Fatalf("notices %q", notices)
	}
	if _, err := os.Stat(s.skillsDir); !os.IsNotExist(err) {
		t.Fatalf("the skill folder was made: %v", err)
	}
}

func TestSlug(t *testing.T) {
	for in, want := range map[string]string{
		"Bisect a Regression":   "bisect-a-regression",
		"auto-run-checks":       "run-checks",
		"../../etc/passwd":      "etc-passwd",
		"Ünïcode  names!":       "n-code-names",
		strings.Repeat("a", 60): strings.Repeat("a", maxSlug),
	} {
		if got := slug(in); got != want {
			t.Errorf("slug(%q) = %q, want %q", in, got, want)
		}
	}
}
