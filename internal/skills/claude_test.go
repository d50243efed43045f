package skills

import (
	"slices"
	"testing"
)

// Claude Code's skill folders load unchanged (allowed-tools and other keys
// kept as extras), each below shiro's folder of the same reach, and a
// folder skill's output names its folder.
func TestClaudeSkillFoldersLoad(t *testing.T) {
	claudeUser, user, claudeProject := t.TempDir(), t.TempDir(), t.TempDir()
	writeFile(t, claudeUser, "pdf/SKILL.md", "---\nname: pdf\ndescription: Use for PDFs.\nallowed-tools: Read, Bash(python:*)\n---\nRun scripts/fill.py\n")
	writeFile(t, claudeUser, "pdf/scripts/fill.py", "print('hi')\n")
	writeFile(t, claudeUser, "shared/SKILL.md", skillText("shared", "Claude's.", "claude body"))
	writeFile(t, user, "shared.md", skillText("shared", "shiro's.", "shiro body"))
	writeFile(t, claudeProject, "review/SKILL.md", skillText("review", "Project review.", "look"))
	cat, problems := Load(Sources{NoBundled: true, ClaudeUserDir: claudeUser, UserDir: user, ClaudeProjectDir: claudeProject})
	if len(problems) != 0 {
		t.Fatalf("problems: %v", problems)
	}
	pdf, ok := cat.Get("pdf")
	if !ok || pdf.Origin != OriginClaudeUser || pdf.Dir != claudeUser+"/pdf" || pdf.Extra["allowed-tools"] != "Read, Bash(python:*)" {
		t.Fatalf("pdf = %+v", pdf)
	}
	if shared, _ := cat.Get("shared"); shared.Origin != OriginUser || shared.Overrode != OriginClaudeUser || shared.Dir != "" {
		t.Fatalf("shared = %+v", shared)
	}
	if review, _ := cat.Get("review"); review.Origin != OriginClaudeProject {
		t.Fatalf("review = %+v", review)
	}
	want := []string{claudeProject + "/review", claudeUser + "/pdf"}
	slices.Sort(want)
	if got := cat.Folders(); !slices.Equal(got, want) {
		t.Fatalf("folders = %v", got)
	}
	out, err := runSkill(t, Tool(func() *Catalogue { return cat }), `{"name":"pdf"}`)
	if err != nil {
		t.Fatal(err)
	}
	mustContain(t, out, `Skill "pdf" (claude-user), in the folder `+claudeUser+"/pdf. The files its instructions mention")
	mustContain(t, out, "Run scripts/fill.py")
}
