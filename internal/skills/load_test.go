package skills

import (
	"os"
	"path/filepath"
	"runtime"
	"testing"
)

func TestPrecedenceProjectOverUserOverRegistryOverBundled(t *testing.T) {
	registry, user, project := t.TempDir(), t.TempDir(), t.TempDir()
	// "plan" is bundled; each layer overrides the one before.
	regPath := writeFile(t, registry, "plan.md", skillText("plan", "Use when registry.", "registry body"))
	userPath := writeFile(t, user, "plan.md", skillText("plan", "Use when user.", "user body"))
	projPath := writeFile(t, project, "plan.md", skillText("plan", "Use when project.", "project body"))
	// "verify" only as far as the user layer; "only-reg" only in the registry.
	userVerify := writeFile(t, user, "verify.md", skillText("verify", "Use when user verify.", "user verify body"))
	onlyReg := writeFile(t, registry, "only-reg.md", skillText("only-reg", "Use when registry only.", "reg only body"))

	cat, problems := Load(Sources{RegistryDir: registry, UserDir: user, ProjectDir: project})
	if len(problems) != 0 {
		t.Fatalf("problems: %v", problems)
	}
	cases := []struct {
		name, body, path string
		origin, overrode Origin
		overrodePath     string
	}{
		{"plan", "project body", projPath, OriginProject, OriginUser, userPath},
		{"verify", "user verify body", userVerify, OriginUser, OriginBundled, "bundled/verify.md"},
		{"only-reg", "reg only body", onlyReg, OriginRegistry, "", ""},
		{"debug", "", "bundled/debug.md", OriginBundled, "", ""},
	}
	for _, c := range cases {
		s, ok := cat.Get(c.name)
		if !ok {
			t.Fatalf("%s not loaded", c.name)
		}
		if s.Origin != c.origin || s.Path != c.path || s.Overrode != c.overrode || s.OverrodePath != c.overrodePath {
			t.Errorf("%s: origin=%s path=%s overrode=%s (%s); want %s %s %s (%s)",
				c.name, s.Origin, s.Path, s.Overrode, s.OverrodePath, c.origin, c.path, c.overrode, c.overrodePath)
		}
		if c.body != "" && s.Body != c.body {
			t.Errorf("%s body = %q, want %q", c.name, s.Body, c.body)
		}
	}
	_ = regPath

	// Without the project layer the user version shows through, and it
	// records that it overrode the registry one.
	cat, _ = Load(Sources{RegistryDir: registry, UserDir: user})
	s, _ := cat.Get("plan")
	if s.Origin != OriginUser || s.Overrode != OriginRegistry || s.OverrodePath != regPath {
		t.Errorf("plan without project: %+v", s)
	}
}

func TestBrokenOverrideKeepsEarlierSkill(t *testing.T) {
	user, project := t.TempDir(), t.TempDir()
	writeFile(t, user, "deploy.md", skillText("deploy", "Use when deploying.", "user steps"))
	bad := writeFile(t, project, "deploy.md", "---\nname: deploy\n---\nno description\n")
	cat, problems := Load(Sources{UserDir: user, ProjectDir: project, NoBundled: true})
	problemFor(t, problems, bad)
	s, ok := cat.Get("deploy")
	if !ok || s.Origin != OriginUser || s.Body != "user steps" {
		t.Fatalf("a malformed project file must not hide the user skill: %+v %v", s, ok)
	}
}

func TestBothLayouts(t *testing.T) {
	dir := t.TempDir()
	flat := writeFile(t, dir, "flat.md", skillText("flat", "Use when flat.", "flat body"))
	folder := writeFile(t, dir, "folder/SKILL.md", skillText("folder", "Use when folder.", "folder body"))
	// A skill folder's own resources are never taken for skills.
	writeFile(t, dir, "folder/references/extra.md", skillText("extra", "Use when nested.", "nested"))
	writeFile(t, dir, "folder/scripts/run.sh", "#!/bin/sh\n")
	// Files that are not skills are ignored without a problem.
	writeFile(t, dir, "notes.txt", "not a skill")
	writeFile(t, dir, ".hidden.md", "not even read")
	writeFile(t, dir, "assets/logo.svg", "<svg/>")

	cat, problems := Load(Sources{UserDir: dir, NoBundled: true})
	if len(problems) != 0 {
		t.Fatalf("problems: %v", problems)
	}
	if got := cat.Names(); len(got) != 2 || got[0] != "flat" || got[1] != "folder" {
		t.Fatalf("names = %v, want [flat folder]", got)
	}
	if s, _ := cat.Get("flat"); s.Path != flat || s.Body != "flat body" {
		t.Errorf("flat: %+v", s)
	}
	if s, _ := cat.Get("folder"); s.Path != folder || s.Body != "folder body" {
		t.Errorf("folder: %+v", s)
	}
}

func TestSameNameInBothLayoutsIsReported(t *testing.T) {
	dir := t.TempDir()
	folder := writeFile(t, dir, "x/SKILL.md", skillText("x", "Use when folder.", "folder body"))
	flat := writeFile(t, dir, "x.md", skillText("x", "Use when flat.", "flat body"))
	cat, problems := Load(Sources{ProjectDir: dir, NoBundled: true})
	p := problemFor(t, problems, flat)
	mustContain(t, p.Err, folder)
	if s, _ := cat.Get("x"); s.Path != folder {
		t.Errorf("the folder layout should win a tie, got %s", s.Path)
	}
}

func TestExtraFrontmatterKeysKept(t *testing.T) {
	dir := t.TempDir()
	writeFile(t, dir, "lint/SKILL.md", `---
name: lint
description: "Use when linting: runs the linters."
license: MIT
allowed-tools: [bash, read_file]
metadata:
  author: someone
  version: 2
---
Run the linters.
`)
	cat, problems := Load(Sources{UserDir: dir, NoBundled: true})
	if len(problems) != 0 {
		t.Fatalf("problems: %v", problems)
	}
	s, _ := cat.Get("lint")
	if s.Description != "Use when linting: runs the linters." {
		t.Errorf("description = %q", s.Description)
	}
	if s.Extra["license"] != "MIT" {
		t.Errorf("license = %#v", s.Extra["license"])
	}
	tools, _ := s.Extra["allowed-tools"].([]any)
	if len(tools) != 2 || tools[0] != "bash" {
		t.Errorf("allowed-tools = %#v", s.Extra["allowed-tools"])
	}
	meta, _ := s.Extra["metadata"].(map[string]any)
	if meta["author"] != "someone" || meta["version"] != 2 {
		t.Errorf("metadata = %#v", s.Extra["metadata"])
	}
	if _, ok := s.Extra["name"]; ok {
		t.Error("name must not be repeated in Extra")
	}

	// Extra is handed out as a copy: changing it does not change the catalogue.
	meta["author"] = "changed"
	s.Extra["license"] = "changed"
	again, _ := cat.Get("lint")
	if again.Extra["license"] != "MIT" || again.Extra["metadata"].(map[string]any)["author"] != "someone" {
		t.Error("mutating a returned skill changed the catalogue")
	}
}

func TestMalformedFilesReportedWithPath(t *testing.T) {
	good := skillText("ok", "Use when fine.", "body")
	cases := []struct {
		rel, content, want string
	}{
		{"no-frontmatter.md", "# Just markdown\n", "does not start with a '---' line"},
		{"unclosed.md", "---\nname: unclosed\ndescription: x\nbody\n", "never closed"},
		{"bad-yaml.md", "---\nname: [bad\ndescription: x\n---\nbody\n", "not valid YAML"},
		{"colon.md", "---\nname: colon\ndescription: Use when x: do y\n---\nbody\n", "double quotes"},
		{"seq.md", "---\n- a\n- b\n---\nbody\n", "not valid YAML"},
		{"dup-key.md", "---\nname: dup-key\nname: dup-key\ndescription: x\n---\nbody\n", "already defined"},
		{"no-name.md", "---\ndescription: x\n---\nbody\n", `no "name"`},
		{"no-desc.md", "---\nname: no-desc\n---\nbody\n", `no "description"`},
		{"empty-desc.md", "---\nname: empty-desc\ndescription: \"  \"\n---\nbody\n", `"description" is empty`},
		{"num-name.md", "---\nname: 42\ndescription: x\n---\nbody\n", `"name" must be text`},
		{"Bad_Name.md", "---\nname: Bad_Name\ndescription: x\n---\nbody\n", "not a valid skill name"},
		{"mismatch.md", "---\nname: other\ndescription: x\n---\nbody\n", `does not match the file or folder name "mismatch"`},
		{"dirname/SKILL.md", "---\nname: other\ndescription: x\n---\nbody\n", `does not match the file or folder name "dirname"`},
		{"empty-body.md", "---\nname: empty-body\ndescription: x\n---\n\n  \n", "no instructions"},
		{"latin1.md", "---\nname: latin1\ndescription: caf\xe9\n---\nbody\n", "not valid UTF-8"},
		{"UPPER.MD", good, "lowercase .md"},
		{"wrongcase/skill.md", good, "rename it to SKILL.md"},
	}
	dir := t.TempDir()
	writeFile(t, dir, "ok.md", good)
	for _, c := range cases {
		writeFile(t, dir, c.rel, c.content)
	}
	cat, problems := Load(Sources{ProjectDir: dir, NoBundled: true})
	for _, c := range cases {
		p := problemFor(t, problems, filepath.Join(dir, filepath.FromSlash(c.rel)))
		mustContain(t, p.Err, c.want)
	}
	if len(problems) != len(cases) {
		t.Errorf("got %d problems for %d bad files: %v", len(problems), len(cases), problems)
	}
	if got := cat.Names(); len(got) != 1 || got[0] != "ok" {
		t.Errorf("only the good skill should load, got %v", got)
	}
}

func TestOversizedFileReported(t *testing.T) {
	dir := t.TempDir()
	huge := make([]byte, MaxFileBytes+10)
	for i := range huge {
		huge[i] = 'a'
	}
	p := writeFile(t, dir, "huge.md", "---\nname: huge\ndescription: x\n---\n"+string(huge))
	_, problems := Load(Sources{UserDir: dir, NoBundled: true})
	mustContain(t, problemFor(t, problems, p).Err, "byte limit")
}

func TestDirectoryProblems(t *testing.T) {
	base := t.TempDir()
	missing := filepath.Join(base, "does-not-exist")
	file := writeFile(t, base, "a-file", "x")
	cat, problems := Load(Sources{RegistryDir: missing, UserDir: file, NoBundled: true})
	if cat.Len() != 0 {
		t.Errorf("no skills expected, got %v", cat.Names())
	}
	if len(problems) != 1 {
		t.Fatalf("a missing directory is fine, a file in its place is not: %v", problems)
	}
	mustContain(t, problemFor(t, problems, file).Err, "not a directory")

	if runtime.GOOS != "windows" && os.Geteuid() != 0 {
		locked := filepath.Join(base, "locked")
		if err := os.Mkdir(locked, 0o000); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { _ = os.Chmod(locked, 0o755) })
		_, problems = Load(Sources{ProjectDir: locked, NoBundled: true})
		if len(problems) != 1 || problems[0].Where != locked {
			t.Errorf("unreadable directory: %v", problems)
		}
	}
}

func TestSymlinkedSkillFollowedAndBrokenLinkReported(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("symlinks need privileges on Windows")
	}
	shared, dir := t.TempDir(), t.TempDir()
	target := writeFile(t, shared, "team.md", skillText("team", "Use when team.", "team body"))
	if err := os.Symlink(target, filepath.Join(dir, "team.md")); err != nil {
		t.Fatal(err)
	}
	broken := filepath.Join(dir, "gone.md")
	if err := os.Symlink(filepath.Join(shared, "nope.md"), broken); err != nil {
		t.Fatal(err)
	}
	cat, problems := Load(Sources{UserDir: dir, NoBundled: true})
	if s, ok := cat.Get("team"); !ok || s.Body != "team body" {
		t.Errorf("symlinked skill not loaded: %+v", s)
	}
	problemFor(t, problems, broken)
}

func TestNoBundled(t *testing.T) {
	cat, problems := Load(Sources{NoBundled: true})
	if cat.Len() != 0 || len(problems) != 0 || cat.PromptSection() != "" {
		t.Fatalf("NoBundled with no directories must be empty: %d %v", cat.Len(), problems)
	}
}

func TestCRLFAndBOMAccepted(t *testing.T) {
	dir := t.TempDir()
	writeFile(t, dir, "win.md", "\uFEFF---\r\nname: win\r\ndescription: Use when on Windows.\r\n---\r\nline one\r\nline two\r\n")
	cat, problems := Load(Sources{UserDir: dir, NoBundled: true})
	if len(problems) != 0 {
		t.Fatalf("problems: %v", problems)
	}
	if s, _ := cat.Get("win"); s.Body != "line one\nline two" {
		t.Errorf("body = %q", s.Body)
	}
}
